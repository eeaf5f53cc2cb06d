import HTTPTypes
import Logging
import Testing
import WhiskerCore
import WhiskerTLS
import WhiskerTesting

/// Client certificates: required or optional, verified against the configured CAs, and what the
/// handler's `RequestContext` then says.
@Suite struct MutualTLSTests {
    private func server(required: Bool, lines: LoggedLines = LoggedLines()) throws -> WhiskerServer {
        var tls = TestCertificates.localhostTLS
        tls.clientCertificates = .init(trustedCAPath: TestCertificates.ca, isRequired: required)
        let server = makeTestServer {
            $0.listeners = [.https(port: 0, tls: tls)]
            $0.logger = .capturing(lines)
        }
        try server.register(method: .get, path: "/who") { _ in
            let certificate = RequestContext.current?.tls?.clientCertificate
            let text = certificate.map { "\($0.subject) | \($0.subjectAlternativeNames.joined(separator: " "))" } ?? "anonymous"
            return Response(status: .ok, body: .init(string: text))
        }
        return server
    }

    private func options(certificate: String? = TestCertificates.client, key: String = TestCertificates.clientKey) -> TestTLSOptions {
        var options = TestTLSOptions(trustedCAPath: TestCertificates.ca)
        if let certificate { options.clientCertificate = (certificate, key) }
        return options
    }

    private func ask(_ address: SocketAddress, _ options: TestTLSOptions) async throws -> String {
        let client = try await TestClient.connect(to: address, tls: options)
        try await client.send("GET /who HTTP/1.1\r\nHost: localhost\r\n\r\n")
        return try await client.readResponse().text
    }

    @Test func required_AVerifiedCertificate_ReachesTheHandler() async throws {
        let server = try server(required: true)
        try await server.withRunning { address in
            let answer = try await ask(address, options())
            #expect(answer == "CN=cat client,O=Whisker development | URI:spiffe://cats.example/client email:client@cats.example")
        }
    }

    @Test func required_NoCertificate_IsRefused_WithTheReasonLogged() async throws {
        let lines = LoggedLines()
        let server = try server(required: true, lines: lines)
        try await server.withRunning { address in
            // TLS 1.3: the client's handshake ends before the server has checked; the refusal is
            // the alert the first read finds.
            await #expect(throws: (any Error).self) { _ = try await ask(address, options(certificate: nil)) }
        }
        #expect(lines.all.contains { $0.0 == "TLS connection failed" && "\($0.1["error"] ?? "")".contains("peer did not return a certificate") },
                "\(lines.all.map { "\($0.0) \($0.1)" })")
    }

    @Test func optional_WithoutACertificate_IsAnonymous_WithOne_Named() async throws {
        let server = try server(required: false)
        try await server.withRunning { address in
            let anonymous = try await ask(address, options(certificate: nil))
            #expect(anonymous == "anonymous")
            let named = try await ask(address, options())
            #expect(named.hasPrefix("CN=cat client,O=Whisker development"))
        }
    }

    @Test(arguments: [true, false])
    func aCertificateThatDoesNotVerify_IsRefused_RequiredOrNot(_ required: Bool) async throws {
        let lines = LoggedLines()
        let server = try server(required: required, lines: lines)
        try await server.withRunning { address in
            // The server's own certificate: issued by the trusted CA, but for servers only.
            await #expect(throws: (any Error).self) {
                _ = try await ask(address, options(certificate: TestCertificates.localhost, key: TestCertificates.localhostKey))
            }
        }
        #expect(lines.all.contains { $0.0 == "TLS connection failed" && "\($0.1["error"] ?? "")".contains("certificate") },
                "\(lines.all.map { "\($0.0) \($0.1)" })")
    }

    @Test func aMissingCABundle_StopsTheStart_NamingIt() async throws {
        var tls = TestCertificates.localhostTLS
        tls.clientCertificates = .init(trustedCAPath: "/nonexistent/clients-ca.pem")
        let server = makeTestServer {
            $0.listeners = [.https(port: 0, tls: tls)]
        }
        await #expect { try await server.run() } throws: { "\($0)".contains("loading the client certificates' CAs from /nonexistent/clients-ca.pem") }
    }
}
