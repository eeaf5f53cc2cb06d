import Testing
import WhiskerCore
import WhiskerProxies
import WhiskerTLS
import WhiskerTesting

/// The PROXY protocol header in front of TLS: read first, then the handshake on the same socket.
@Suite struct ProxyProtocolTLSTests {
    @Test func header_ThenTLS_TheClientIsTheHeadersSource() async throws {
        let proxies = try WhiskerServer.ReverseProxies(trusting: ["127.0.0.1"])
        let server = makeTestServer {
            $0.listeners = [.https(port: 0, tls: TestCertificates.localhostTLS).expectingProxyProtocol()]
            $0.reverseProxies = proxies
        }
        try registerClientRoute(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(
                to: address, tls: TestTLSOptions(trustedCAPath: TestCertificates.ca),
                preamble: Array("PROXY TCP6 2001:db8::7 ::1 50000 443\r\n".utf8))
            #expect(client.tlsVersion == "TLSv1.3")
            try await client.send("GET /client HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await client.readResponse().text == "[2001:db8::7]:50000 | https | 127.0.0.1 | v1 - - -")
            // Without the header, the TLS ClientHello is not a PROXY header: closed.
            await #expect(throws: (any Error).self) {
                _ = try await TestClient.connect(to: address, tls: TestTLSOptions(trustedCAPath: TestCertificates.ca))
            }
        }
    }
}
