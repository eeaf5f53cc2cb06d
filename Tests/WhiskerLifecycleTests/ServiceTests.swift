import HTTPTypes
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing
import WhiskerCore
import WhiskerLifecycle
import WhiskerTesting

/// The server as a swift-service-lifecycle `Service`: a graceful shutdown drains it, and the
/// group's cancellation after its deadline stops what is left.
@Suite struct ServiceTests {
    private static func makeServer(gracePeriod: Duration = .seconds(60)) -> WhiskerServer {
        var configuration = WhiskerServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.logger.logLevel = .critical
        configuration.timeouts.shutdownGracePeriod = gracePeriod
        return WhiskerServer(configuration: configuration)
    }

    @Test func gracefulShutdown_AnswersTheRequestInFlight_ThenRunReturns() async throws {
        let server = Self.makeServer()
        let started = Signal<Void>()
        let release = Signal<Void>()
        try server.register(method: .get, path: "/slow") { _ in
            started.fire()
            _ = await release.wait()
            return Response(status: .ok, body: .init(string: "finished"))
        }
        try await testGracefulShutdown { trigger in
            let run = Task { try await server.run() }
            let address = try #require(try await server.listeningAddresses().first)
            let client = try await TestClient.connect(to: address)
            let idle = try await TestClient.connect(to: address)
            try await client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await started.wait() != nil)
            trigger.triggerGracefulShutdown()
            #expect(try await idle.isClosedByServer(), "the shutdown reached the connections: idle ones close")
            await #expect(throws: (any Error).self, "the listener is closed") {
                _ = try await TestClient.connect(to: address, timeout: .seconds(1))
            }
            release.fire()
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "finished")
            #expect(response.header("connection") == "close")
            try await run.value
        }
    }

    @Test func serviceGroup_CancelsWhatIsLeft_AfterItsGracefulShutdownDeadline() async throws {
        let server = Self.makeServer(gracePeriod: .seconds(60))
        let probe = CancellationProbe()
        try server.register(method: .get, path: "/forever", handler: probe.handler)
        var logger = Logger(label: "test.group")
        logger.logLevel = .critical
        var configuration = ServiceGroupConfiguration(services: [.init(service: server)], logger: logger)
        configuration.maximumGracefulShutdownDuration = .milliseconds(300)
        let group = ServiceGroup(configuration: configuration)
        let run = Task { try await group.run() }
        let address = try #require(try await server.listeningAddresses().first)
        let client = try await TestClient.connect(to: address)
        try await client.send("GET /forever HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await probe.started.wait() != nil)
        await group.triggerGracefulShutdown()
        #expect(await probe.cancelled.wait() != nil, "the group's cancellation reaches the handler long before the server's 60 s grace period")
        #expect(try await client.isClosedByServer())
        // The group reports that it had to cancel; what matters here is that it returned.
        _ = try? await run.value
    }
}
