import HTTPTypes
import Testing
import WhiskerCore
import WhiskerTLS
import WhiskerTesting

/// HTTP/1.1 over TLS through a real listener: ALPN, keep-alive, large bodies both ways, and the
/// clients a TLS port must turn away cleanly.
@Suite struct HTTPSTests {
    @Test func https_ServesHTTP11_WithALPN_AndKeepAlive() async throws {
        let server = try makeHTTPSServer()
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address, tls: TestTLSOptions(trustedCAPath: TestCertificates.ca))
            #expect(client.negotiatedApplicationProtocol == "http/1.1")
            #expect(client.tlsVersion == "TLSv1.3")
            for _ in 0..<3 {
                try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
                let response = try await client.readResponse()
                #expect(response.status == 200)
                #expect(response.text == "hello")
            }
        }
    }

    @Test func https_StreamsLargeBodiesBothWays() async throws {
        let server = try makeHTTPSServer()
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address, tls: TestTLSOptions(trustedCAPath: TestCertificates.ca))
            let size = 300_000 + 17
            try await client.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(size)\r\n\r\n")
            try await client.sendPattern(count: size)
            let response = try await client.readResponse(collectBody: false)
            #expect(response.status == 200)
            #expect(response.bodyCount == size)
            #expect(response.bodyChecksum == TestClient.checksum(ofPattern: size))
        }
    }

    @Test func tls11Client_IsRefused_AndTheServerGoesOnServing() async throws {
        let server = try makeHTTPSServer()
        try await server.withRunning { address in
            var old = TestTLSOptions(trustedCAPath: TestCertificates.ca)
            old.onlyVersion = "TLSv1.1"
            await #expect(throws: TestClientError.self) { try await TestClient.connect(to: address, tls: old) }
            let client = try await TestClient.connect(to: address, tls: TestTLSOptions(trustedCAPath: TestCertificates.ca))
            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
        }
    }

    @Test func plainHTTPOnTheTLSPort_GetsAPlaintext400ThatSaysSo() async throws {
        let server = try makeHTTPSServer()
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 400)
            #expect(response.text.contains("HTTPS"))
            #expect(try await client.isClosedByServer())
        }
    }

    /// A client that connects to the TLS port and never finishes its handshake (here: sends half
    /// a ClientHello) is closed at `timeouts.tlsHandshake`, not at the idle timeout.
    @Test func stalledHandshake_IsClosedAtTheHandshakeTimeout() async throws {
        let server = makeTestServer {
            $0.listeners = [.https(port: 0, tls: TestCertificates.localhostTLS)]
            $0.timeouts.tlsHandshake = .milliseconds(300)
            $0.timeouts.idle = .seconds(60)
        }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let silent = try await TestClient.connect(to: address, timeout: .seconds(5))
            let halfHello = try await TestClient.connect(to: address, timeout: .seconds(5))
            try await halfHello.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03])
            let start = ContinuousClock.now
            #expect(try await silent.isClosedByServer())
            #expect(try await halfHello.isClosedByServer())
            #expect(ContinuousClock.now - start < .seconds(5))
        }
    }

    @Test func cleartextAndHTTPS_ServeSideBySide() async throws {
        let server = try makeHTTPSServer(cleartext: true)
        try await server.withRunningAddresses { addresses in
            #expect(addresses.count == 2)
            let plain = try await TestClient.connect(to: addresses[0])
            try await plain.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await plain.readResponse().text == "hello")
            let secure = try await TestClient.connect(to: addresses[1], tls: TestTLSOptions(trustedCAPath: TestCertificates.ca))
            try await secure.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await secure.readResponse().text == "hello")
        }
    }

    @Test func clientCloseNotify_ClosesTheConnection() async throws {
        let server = try makeHTTPSServer()
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address, tls: TestTLSOptions(trustedCAPath: TestCertificates.ca))
            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
            try await client.shutdownWrite()
            #expect(try await client.isClosedByServer())
        }
    }

    @Test func unreadableCertificate_StopsRunWithAnErrorNamingTheFile() async throws {
        let server = makeTestServer {
            $0.listeners.append(.https(port: 0, tls: TLSConfiguration(certificateChainPath: "/nonexistent.pem", privateKeyPath: TestCertificates.localhostKey)))
        }
        let error = await #expect(throws: WhiskerServerError.self) { try await server.run() }
        #expect(error?.description.hasPrefix("cannot serve HTTPS: TLS: loading the certificate chain from /nonexistent.pem failed") == true, "\(String(describing: error))")
    }
}

/// An HTTPS server on 127.0.0.1 port 0 with the development certificate, and the basic routes.
private func makeHTTPSServer(cleartext: Bool = false) throws -> WhiskerServer {
    let server = makeTestServer {
        $0.listeners = (cleartext ? $0.listeners : []) + [.https(port: 0, tls: TestCertificates.localhostTLS)]
    }
    try registerBasicRoutes(on: server)
    return server
}
