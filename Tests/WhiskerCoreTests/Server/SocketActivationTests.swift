import Testing
import WhiskerCore
import WhiskerSockets
import WhiskerTesting

/// Serving on sockets passed as systemd passes them (socket activation): made here, listening
/// on 127.0.0.1, and handed over as an injected descriptor list, never through the process's
/// own `LISTEN_*` variables. Here, the startup errors of a server without HTTPS; serving inherited
/// sockets, cleartext and TLS, is in WhiskerTLSTests/SocketActivationTests.swift.
@Suite struct SocketActivationTests {
    @Test func tlsNamedSocket_WithoutATLSCertificate_IsAStartupErrorNamingIt() async throws {
        let activation = try SystemdSocketActivation.loopbackForTesting(names: ["http", "tls"])
        defer { activation.closeForTesting() }
        let server = makeTestServer { $0.socketActivation = .init(activation) }
        let error = await #expect(throws: WhiskerServerError.self) { try await server.run() }
        #expect(error?.description == "the inherited socket fd \(activation.descriptors[1].fd) (\"tls\") is named for TLS, but no TLS certificate is configured (configuration.https)")
    }

    @Test func inheritedDescriptorThatIsNotListening_IsAStartupErrorNamingIt() async throws {
        let activation = SystemdSocketActivation(descriptors: [.init(fd: 2_000_000_000, name: "http")])
        let server = makeTestServer { $0.socketActivation = .init(activation) }
        let error = await #expect(throws: WhiskerServerError.self) { try await server.run() }
        #expect(error?.description.hasPrefix("cannot serve the inherited socket fd 2000000000 (\"http\"): getsockopt(inherited descriptor 2000000000, SO_TYPE) failed: Bad file descriptor") == true, "\(String(describing: error))")
    }
}
