import Testing
import WhiskerSockets

@Suite struct SocketAddressTests {
    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1:80", false),
        ("localhost", "127.0.0.1:80", false),
        ("::1", "[::1]:80", true),
        ("[::1]", "[::1]:80", true),
        ("0:0:0:0:0:0:0:1", "[::1]:80", true),
        ("0.0.0.0", "0.0.0.0:80", false),
    ])
    func numericHosts_ParseAndPrintCanonically(host: String, description: String, isIPv6: Bool) throws {
        let address = try SocketAddress(host: host, port: 80)
        #expect(address.description == description)
        #expect(address.isIPv6 == isIPv6)
        #expect(address.port == 80)
    }

    @Test(arguments: ["example.com", "256.1.1.1", "", "::g"])
    func nonNumericHosts_AreRefusedWithTheReason(host: String) {
        let error = #expect(throws: SocketAddressError.self) { try SocketAddress(host: host, port: 80) }
        #expect(error?.description.contains("not a numeric") == true)
    }

    @Test func portOutOfRange_IsRefused() {
        #expect(throws: SocketAddressError.self) { try SocketAddress(host: "127.0.0.1", port: 65536) }
        #expect(throws: SocketAddressError.self) { try SocketAddress(host: "127.0.0.1", port: -1) }
    }
}
