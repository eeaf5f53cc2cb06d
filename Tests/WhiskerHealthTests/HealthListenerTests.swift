import Testing
import WhiskerCore
import WhiskerHealth
import WhiskerTesting

/// The health checks and the listener list: their own port among the implied listeners, and a
/// listener of the list that serves only them.
@Suite struct HealthListenerTests {
    private static func get(_ path: String) -> String { "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n" }

    @Test func aHealthOnlyListener_FromTheList_AnswersOnlyThem_AndTheOthersNot() async throws {
        let server = makeTestServer {
            $0.healthChecks = .init()
            $0.listeners = [.tcp(port: 0), .tcp(port: 0).servingOnlyHealthChecks()]
        }
        try registerBasicRoutes(on: server)
        try await server.withRunningAddresses { addresses in
            let main = try await TestClient.connect(to: addresses[0])
            try await main.send(Self.get("/healthz"))
            #expect(try await main.readResponse().status == 404, "not on the main listener")
            let health = try await TestClient.connect(to: addresses[1])
            try await health.send(Self.get("/healthz"))
            #expect(try await health.readResponse().status == 200)
            try await health.send(Self.get("/hello"))
            #expect(try await health.readResponse().status == 404, "only the health checks there")
        }
    }

    @Test func aHealthOnlyListener_WithoutHealthChecks_IsAStartupError() async throws {
        let server = makeTestServer { $0.listeners = [.tcp(port: 0).servingOnlyHealthChecks()] }
        let error = await #expect(throws: WhiskerServerError.self) { try await server.run() }
        #expect(error?.description.contains("serves only the health checks") == true, "\(String(describing: error))")
        #expect(error?.description.contains("none are configured (configuration.healthChecks)") == true)
    }

}
