import HTTPTypes
import Testing
import WhiskerCore
import WhiskerTLS
import WhiskerTesting

/// `RequestContext.current` in a handler over HTTPS and over HTTP/2. (Over cleartext HTTP/1.1,
/// with request ids and the access log: WhiskerCoreTests/Handling/RequestContextTests.swift.)
@Suite struct RequestContextTests {
    @Test func https_AndHTTP2_AreReported() async throws {
        let server = makeHTTP2Server {
            $0.listeners.append(.https(port: 0, tls: TestCertificates.localhostTLS))
        }
        try registerContextRoute(on: server)
        try await server.withRunningAddresses { addresses in
            let secure = try await TestClient.connect(to: addresses[1], tls: TestTLSOptions(trustedCAPath: TestCertificates.ca))
            try await secure.send("GET /context HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await secure.readResponse().text == "HTTP/1.1 | TLSv1.3 http/1.1 | no id | 127.0.0.1")

            let socket = try await TestClient.connect(to: addresses[0])
            let h2 = HTTP2TestClient()
            let id = h2.request(path: "/context")
            try await h2.exchange(over: socket) { $0.closed[id] != nil }
            #expect(h2.bodies[id].map { String(decoding: $0, as: UTF8.self) } == "HTTP/2 | cleartext | no id | 127.0.0.1")
        }
    }
}
