import HTTPTypes
import Testing
@testable import WhiskerSockets
import WhiskerCore
import WhiskerTesting

/// Connections spread over the I/O workers, and what sharing a worker means for handlers.
@Suite struct WorkerTests {
    /// `GET /worker` answers with the label of the worker whose queue runs the handler.
    private func workerRoute(on server: WhiskerServer) throws {
        try server.register(method: .get, path: "/worker") { _ in
            Response(status: .ok, body: .init(string: IOWorker.currentLabel ?? "none"))
        }
    }

    @Test func twoWorkers_ServeConnectionsInTurn() async throws {
        let server = makeTestServer { $0.io.workers = 2 }
        try workerRoute(on: server)
        try await server.withRunning { address in
            var labels: [String] = []
            var clients: [TestClient] = []
            for _ in 0..<4 {
                let client = try await TestClient.connect(to: address)
                clients.append(client)
                try await client.send("GET /worker HTTP/1.1\r\nHost: x\r\n\r\n")
                labels.append(try await client.readResponse().text)
            }
            #expect(Set(labels) == ["whisker.worker.0", "whisker.worker.1"], "\(labels)")
            #expect(labels[0] != labels[1] && labels[0] == labels[2] && labels[1] == labels[3], "in turn: \(labels)")
            // Each connection stays on its worker.
            for (client, label) in zip(clients, labels) {
                try await client.send("GET /worker HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try await client.readResponse().text == label)
            }
        }
    }

    /// A handler that awaits gives its worker back: another connection on the same (only) worker
    /// is answered while the first handler is still waiting.
    @Test func awaitingHandler_DoesNotHoldUpItsWorkersOtherConnections() async throws {
        let started = Signal<Void>()
        let release = Signal<Void>()
        let server = makeTestServer { $0.io.workers = 1 }
        try registerBasicRoutes(on: server)
        try workerRoute(on: server)
        try server.register(method: .get, path: "/slow") { _ in
            started.fire()
            _ = await release.wait()
            return Response(status: .ok, body: .init(string: IOWorker.currentLabel ?? "none"))
        }
        try await server.withRunning { address in
            let slow = try await TestClient.connect(to: address)
            try await slow.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await started.wait() != nil)
            let other = try await TestClient.connect(to: address)
            try await other.send("GET /worker HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await other.readResponse().text == "whisker.worker.0")
            release.fire()
            #expect(try await slow.readResponse().text == "whisker.worker.0", "back on its worker after the await")
        }
    }
}
