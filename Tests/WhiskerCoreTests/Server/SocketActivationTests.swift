import Testing
import WhiskerCore
import WhiskerSockets
import WhiskerTesting

/// Serving on sockets passed as systemd passes them (socket activation): made here, listening
/// on 127.0.0.1, and handed over as an injected descriptor list, never through the process's
/// own `LISTEN_*` variables. Here, a cleartext socket and a startup error; which sockets speak TLS
/// is in WhiskerTLSTests/SocketActivationTests.swift.
@Suite struct SocketActivationTests {
    @Test func anInheritedSocket_ServesAsCleartext() async throws {
        let activation = try SystemdSocketActivation.loopbackForTesting(names: ["http"])
        let server = makeTestServer { $0.listeners = activation.descriptors.map { .inherited($0) } }
        try registerBasicRoutes(on: server)
        try await server.withRunningAddresses { addresses in
            #expect(addresses.count == 1)
            let client = try await TestClient.connect(to: addresses[0])
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().text == "hello")
        }
    }

    @Test func inheritedDescriptorThatIsNotListening_IsAStartupErrorNamingIt() async throws {
        let activation = SystemdSocketActivation(descriptors: [.init(fd: 2_000_000_000, name: "http")])
        let server = makeTestServer { $0.listeners = activation.descriptors.map { .inherited($0) } }
        let error = await #expect(throws: WhiskerServerError.self) { try await server.run() }
        #expect(error?.description.hasPrefix("cannot serve the inherited socket fd 2000000000 (\"http\"): getsockopt(inherited descriptor 2000000000, SO_TYPE) failed: Bad file descriptor") == true, "\(String(describing: error))")
    }
}
