import Foundation
import HTTPTypes
import Testing
import WhiskerCore
import WhiskerTLS
import WhiskerTesting

/// `reloadTLS()`: new connections get the certificate now in the files, open ones keep theirs and
/// go on serving, and files that do not load leave the current certificate in place.
@Suite struct TLSReloadTests {
    /// A copy of the first certificate and key in a directory of the test's own, which the test
    /// then overwrites as a renewal would.
    private struct LiveFiles {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("whisker-reload-\(UUID().uuidString)")
        var certificate: String { directory.appendingPathComponent("live.pem").path }
        var key: String { directory.appendingPathComponent("live-key.pem").path }

        init() throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try install(certificate: TestCertificates.localhost, key: TestCertificates.localhostKey)
        }

        func install(certificate newCertificate: String, key newKey: String) throws {
            try Data(contentsOf: URL(fileURLWithPath: newCertificate)).write(to: URL(fileURLWithPath: certificate))
            try Data(contentsOf: URL(fileURLWithPath: newKey)).write(to: URL(fileURLWithPath: key))
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }

        /// An HTTPS-only server on these files, with the basic routes.
        func makeServer() throws -> WhiskerServer {
            let server = makeTestServer {
                $0.listeners = [.https(port: 0, tls: TLSConfiguration(certificateChainPath: certificate, privateKeyPath: key))]
            }
            try registerBasicRoutes(on: server)
            return server
        }
    }

    @Test func reload_NewConnectionsGetTheNewCertificate_OpenOnesKeepServing() async throws {
        let files = try LiveFiles()
        defer { files.remove() }
        let server = try files.makeServer()
        let trust = TestTLSOptions(trustedCAPath: TestCertificates.ca)
        try await server.withRunning { address in
            let before = try await TestClient.connect(to: address, tls: trust)
            #expect(before.tlsPeerCertificateSubject == "/CN=localhost")
            try await before.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await before.readResponse().status == 200)

            try files.install(certificate: TestCertificates.renewed, key: TestCertificates.renewedKey)
            try await server.reloadTLS()

            let after = try await TestClient.connect(to: address, tls: trust)
            #expect(after.tlsPeerCertificateSubject == "/CN=localhost renewed")
            try await after.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await after.readResponse().status == 200)
            // The connection made before the reload still serves, on its first certificate.
            try await before.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await before.readResponse().text == "hello")
            #expect(before.tlsPeerCertificateSubject == "/CN=localhost")
        }
    }

    @Test func httpsListeners_EachPresentItsOwnCertificate_AndReloadReloadsEach() async throws {
        let files = try LiveFiles()
        defer { files.remove() }
        let server = makeTestServer {
            $0.listeners = [
                .https(port: 0, tls: TLSConfiguration(certificateChainPath: files.certificate, privateKeyPath: files.key)),
                .https(port: 0, tls: TLSConfiguration(certificateChainPath: TestCertificates.renewed, privateKeyPath: TestCertificates.renewedKey)),
                .tcp(port: 0),
            ]
        }
        try registerBasicRoutes(on: server)
        let trust = TestTLSOptions(trustedCAPath: TestCertificates.ca)
        try await server.withRunningAddresses { addresses in
            #expect(try await TestClient.connect(to: addresses[0], tls: trust).tlsPeerCertificateSubject == "/CN=localhost")
            #expect(try await TestClient.connect(to: addresses[1], tls: trust).tlsPeerCertificateSubject == "/CN=localhost renewed")
            let cleartext = try await TestClient.connect(to: addresses[2])
            try await cleartext.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await cleartext.readResponse().text == "hello")

            try files.install(certificate: TestCertificates.renewed, key: TestCertificates.renewedKey)
            try await server.reloadTLS()
            let first = try await TestClient.connect(to: addresses[0], tls: trust)
            #expect(first.tlsPeerCertificateSubject == "/CN=localhost renewed", "the first listener's files were renewed")
            try await first.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await first.readResponse().status == 200)
        }
    }

    @Test func reload_WithABadKey_FailsNamingTheFile_AndKeepsTheCurrentCertificate() async throws {
        let files = try LiveFiles()
        defer { files.remove() }
        let server = try files.makeServer()
        try await server.withRunning { address in
            // A renewed certificate with the old key: they do not match.
            try files.install(certificate: TestCertificates.renewed, key: TestCertificates.localhostKey)
            let error = await #expect(throws: WhiskerServerError.self) { try await server.reloadTLS() }
            #expect(error?.description.contains(files.key) == true, "\(String(describing: error))")
            let client = try await TestClient.connect(to: address, tls: TestTLSOptions(trustedCAPath: TestCertificates.ca))
            #expect(client.tlsPeerCertificateSubject == "/CN=localhost")
            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
        }
    }

    @Test func reload_WithoutHTTPS_OrBeforeRunning_Fails() async throws {
        let cleartext = makeTestServer()
        try await cleartext.withRunning { _ in
            let error = await #expect(throws: WhiskerServerError.self) { try await cleartext.reloadTLS() }
            #expect(error?.description.contains("no HTTPS listener") == true)
        }
        let idle = makeTestServer {
            $0.listeners.append(.https(port: 0, tls: TestCertificates.localhostTLS))
        }
        await #expect(throws: WhiskerServerError.self) { try await idle.reloadTLS() }
    }
}
