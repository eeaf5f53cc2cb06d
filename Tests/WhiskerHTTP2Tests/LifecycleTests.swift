import Testing
import WhiskerCore
import WhiskerTLS
import WhiskerTesting

/// The connection limit as HTTPS and HTTP/2 clients meet it. (Timeouts, the limit over HTTP/1.1,
/// cancellation, graceful shutdown and listening errors: WhiskerCoreTests/Server/LifecycleTests.swift.)
@Suite struct LifecycleTests {
    /// Over the limit, an HTTPS client completes its handshake and reads the 503 (the answer used
    /// to be written before the handshake and lost), and an HTTP/2 client (ALPN `h2`, or the h2c
    /// preface) gets the server's SETTINGS and GOAWAY naming no stream, so it may retry elsewhere.
    @Test func connectionLimit_HTTPSGets503AfterTheHandshake_HTTP2GetsGoAway() async throws {
        let server = makeHTTP2Server {
            $0.limits.maxConnections = 1
            $0.listeners.append(.https(port: 0, tls: TestCertificates.localhostTLS))
        }
        try registerBasicRoutes(on: server)
        try await server.withRunningAddresses { addresses in
            let (cleartext, https) = (addresses[0], addresses[1])
            let first = try await TestClient.connect(to: cleartext)
            try await first.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await first.readResponse().status == 200)

            let tlsClient = try await TestClient.connect(to: https, tls: TestTLSOptions(trustedCAPath: TestCertificates.ca))
            try await tlsClient.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let refused = try await tlsClient.readResponse()
            #expect(refused.status == 503)
            #expect(refused.text.contains("connection limit"))
            #expect(try await tlsClient.isClosedByServer())

            var h2Options = TestTLSOptions(trustedCAPath: TestCertificates.ca)
            h2Options.applicationProtocols = ["h2"]
            for socket in [try await TestClient.connect(to: https, tls: h2Options), try await TestClient.connect(to: cleartext)] {
                try await socket.send(HTTP2Frame.preface + HTTP2Frame.settings().bytes)
                let reader = HTTP2FrameReader()
                try await reader.read(from: socket) { $0.isClosed }
                #expect(reader.frames.first?.type == HTTP2Frame.Kind.settings)
                let goAway = try #require(reader.frames(ofType: HTTP2Frame.Kind.goAway).first)
                #expect(goAway.lastStreamID == 0)
                #expect(goAway.errorCode == 0)
            }

            try await first.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await first.readResponse().status == 200, "the admitted connection is unaffected")
        }
    }
}
