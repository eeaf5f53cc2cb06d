import Testing
import WhiskerSockets

@Suite struct IPAddressRangeTests {
    private func address(_ host: String) throws -> SocketAddress { try SocketAddress(host: host, port: 1234) }

    @Test func ipv4Ranges_MatchTheirAddressesOnly() throws {
        let range = try IPAddressRange("10.0.0.0/8")
        #expect(range.contains(try address("10.0.0.1")))
        #expect(range.contains(try address("10.255.255.255")))
        #expect(!range.contains(try address("11.0.0.0")))
        #expect(!range.contains(try address("::1")))
        let odd = try IPAddressRange("192.168.4.0/22")
        #expect(odd.contains(try address("192.168.7.200")))
        #expect(!odd.contains(try address("192.168.8.1")))
        #expect(try IPAddressRange("127.0.0.1").contains(try address("127.0.0.1")))
        #expect(!(try IPAddressRange("127.0.0.1")).contains(try address("127.0.0.2")))
        #expect(try IPAddressRange("0.0.0.0/0").contains(try address("203.0.113.9")))
    }

    @Test func ipv6Ranges_AndIPv4MappedAddresses() throws {
        let range = try IPAddressRange("2001:db8::/32")
        #expect(range.contains(try address("2001:db8:ffff::1")))
        #expect(!range.contains(try address("2001:db9::1")))
        #expect(!range.contains(try address("10.0.0.1")))
        #expect(try IPAddressRange("::1").contains(try address("::1")))
        // An IPv4 client of a server listening on `::` shows up as ::ffff:a.b.c.d.
        #expect(try IPAddressRange("10.0.0.0/8").contains(try address("::ffff:10.1.2.3")))
        #expect(!(try IPAddressRange("10.0.0.0/8")).contains(try address("::ffff:11.1.2.3")))
        #expect(try IPAddressRange("2001:db8::/32").description == "2001:db8::/32")
    }

    @Test(arguments: ["", "10.0.0.0/", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/8/8", "example.com/8", "10.0.0.1/8", "10.0.0.0/ 8", "10.0.0.0/0008"])
    func malformedRanges_AreErrorsThatSayWhy(_ text: String) {
        #expect(throws: IPAddressRangeError.self) { try IPAddressRange(text) }
    }

    @Test func hostBitsPastThePrefix_NameTheNetwork() {
        do {
            _ = try IPAddressRange("10.1.2.3/8")
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("10.0.0.0/8"), "\(error)")
        }
    }
}
