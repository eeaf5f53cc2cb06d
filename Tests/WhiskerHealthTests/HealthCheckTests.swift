import HTTPTypes
import Testing
import WhiskerCore
import WhiskerHealth
import WhiskerSockets
import WhiskerTesting

/// Liveness and readiness answered by the server itself, readiness turning 503 when a graceful
/// shutdown starts, and the health checks' own listener.
@Suite struct HealthCheckTests {
    private static func get(_ path: String, method: String = "GET") -> String { "\(method) \(path) HTTP/1.1\r\nHost: x\r\n\r\n" }

    @Test func livenessAndReadiness_AnsweredBeforeRouting() async throws {
        let server = makeTestServer { $0.healthChecks = .init() }
        try registerBasicRoutes(on: server)
        try server.register(method: .get, path: "/readyz") { _ in Response(status: .ok, body: .init(string: "the handler")) }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send(Self.get("/healthz"))
            var response = try await client.readResponse()
            #expect(response.status == 200 && response.text == "ok\n" && response.header("Cache-Control") == "no-store")
            try await client.send(Self.get("/readyz"))
            response = try await client.readResponse()
            #expect(response.status == 200 && response.text == "ready\n", "the server answers, not the route registered there")
            try await client.send(Self.get("/readyz", method: "HEAD"))
            response = try await client.readResponse(isHEAD: true)
            #expect(response.status == 200 && response.body.isEmpty)
            try await client.send("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            response = try await client.readResponse()
            #expect(response.status == 405 && response.header("Allow") == "GET, HEAD")
            try await client.send(Self.get("/healthz?verbose=1"))
            #expect(try await client.readResponse().status == 200, "the query does not matter")
            try await client.send(Self.get("/hello"))
            #expect(try await client.readResponse().text == "hello", "everything else is routed")
        }
    }

    @Test func offByDefault() async throws {
        let server = makeTestServer()
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send(Self.get("/healthz"))
            #expect(try await client.readResponse().status == 404)
        }
    }

    @Test func readiness_Is503FromTheStartOfAShutdown_WhileTheListenerStillServes() async throws {
        let server = makeTestServer { $0.healthChecks = .init(drainDelay: .seconds(60)) }
        try registerBasicRoutes(on: server)
        let running = Task { try await server.run() }
        let address = try await server.listeningAddresses()[0]
        let before = try await TestClient.connect(to: address)
        try await before.send(Self.get("/readyz"))
        #expect(try await before.readResponse().status == 200)
        await server.shutdown()
        // The shutdown goes on in run(); probe as a balancer does, a new connection each time.
        var status = 200
        for _ in 0..<500 where status == 200 {
            let probe = try await TestClient.connect(to: address)
            try await probe.send(Self.get("/readyz"))
            status = try await probe.readResponse().status
        }
        #expect(status == 503)
        let late = try await TestClient.connect(to: address)
        try await late.send(Self.get("/hello"))
        #expect(try await late.readResponse().text == "hello", "new connections are still served during the drain delay")
        try await before.send(Self.get("/hello"))
        #expect(try await before.readResponse().status == 200, "and open ones")
        // Cancelling the server's task cuts the delay short; then the listener is gone.
        running.cancel()
        try await running.value
        await #expect(throws: SocketError.self) { try await TestClient.connect(to: address) }
    }

    @Test func ownListener_ServesOnlyTheHealthChecks() async throws {
        let server = makeTestServer {
            $0.healthChecks = .init()
            $0.listeners.append(.tcp(port: 0).servingOnlyHealthChecks())
        }
        try registerBasicRoutes(on: server)
        try await server.withRunningAddresses { addresses in
            #expect(addresses.count == 2)
            let health = try await TestClient.connect(to: addresses[1])
            try await health.send(Self.get("/healthz"))
            #expect(try await health.readResponse().status == 200)
            try await health.send(Self.get("/readyz"))
            #expect(try await health.readResponse().status == 200)
            try await health.send(Self.get("/hello"))
            #expect(try await health.readResponse().status == 404, "nothing else there")
            let main = try await TestClient.connect(to: addresses[0])
            try await main.send(Self.get("/healthz"))
            #expect(try await main.readResponse().status == 404, "and not on the main listener")
            try await main.send(Self.get("/hello"))
            #expect(try await main.readResponse().text == "hello")
        }
    }
}
