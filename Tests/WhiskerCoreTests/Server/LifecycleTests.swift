import HTTPTypes
import Testing
import WhiskerCore
import WhiskerSockets
import WhiskerTesting

/// Timeouts, the connection limit, cancellation when a client leaves, graceful shutdown and
/// listening errors. (The connection limit for HTTPS and HTTP/2 clients:
/// WhiskerHTTP2Tests/LifecycleTests.swift.)
@Suite struct LifecycleTests {
    @Test func slowHeader_Gets408AndClose() async throws {
        let server = makeTestServer { $0.timeouts.requestHeader = .milliseconds(200) }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n")  // never finishes the head
            let response = try await client.readResponse()
            #expect(response.status == 408)
            #expect(try await client.isClosedByServer())
        }
    }

    @Test func silentConnection_IsClosedQuietly_AtTheIdleTimeout() async throws {
        let server = makeTestServer { $0.timeouts.idle = .milliseconds(200) }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            #expect(try await client.readUntilClose() == "", "an idle close sends nothing")
        }
    }

    @Test func keepAliveConnection_IsClosedQuietly_AtTheIdleTimeoutAfterAResponse() async throws {
        // Long enough that a loaded machine delivers the first request well inside it (2 s was
        // not, once, with two test runs at once on two cores).
        let server = makeTestServer { $0.timeouts.idle = .seconds(5) }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
            #expect(try await client.readUntilClose() == "", "an idle close sends nothing")
        }
    }

    @Test func stalledRequestBody_Gets408_AndTheHandlerSeesAnError() async throws {
        let failed = Signal<String>()
        let server = makeTestServer { $0.timeouts.requestBody = .milliseconds(200) }
        try server.register(method: .post, path: "/upload") { request in
            do {
                for try await _ in request.body! {}
                failed.fire("completed")
            } catch {
                failed.fire("failed")
            }
            return Response(status: .ok)
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly a little")
            let response = try await client.readResponse()
            #expect(response.status == 408)
            #expect(await failed.wait() == "failed")
        }
    }

    @Test func clientThatStopsReading_IsDisconnectedAtTheWriteTimeout_AndTheStreamFails() async throws {
        let failed = Signal<Int>()
        let server = makeTestServer { $0.timeouts.write = .milliseconds(300) }
        try server.register(method: .get, path: "/endless") { _ in
            Response(status: .ok, body: ResponseBody(length: nil) { writer in
                let piece = [UInt8](repeating: 0x61, count: 64 * 1024)
                var written = 0
                do {
                    while true {
                        try await writer.write(piece)
                        written += piece.count
                    }
                } catch {
                    failed.fire(written)
                    throw error
                }
            })
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /endless HTTP/1.1\r\nHost: x\r\n\r\n")
            // Never read: the kernel buffers fill, the server's write blocks, the deadline passes.
            let written = try #require(await failed.wait(), "the stalled write was not timed out")
            #expect(written < 64 * 1024 * 1024, "backpressure stopped the producer long before this")
        }
    }

    @Test func clientDisconnectMidRequest_CancelsTheHandler() async throws {
        let probe = CancellationProbe()
        let server = makeTestServer()
        try server.register(method: .get, path: "/slow", handler: probe.handler)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await probe.started.wait() != nil)
            try await client.close()
            #expect(await probe.cancelled.wait() != nil, "the handler's task is cancelled when its client leaves")
        }
    }

    @Test func connectionLimit_Gets503() async throws {
        let server = makeTestServer { $0.limits.maxConnections = 1 }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let first = try await TestClient.connect(to: address)
            try await first.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await first.readResponse().status == 200)
            let second = try await TestClient.connect(to: address)
            try await second.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await second.readResponse().status == 503)
            // The first connection is unaffected.
            try await first.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await first.readResponse().status == 200)
        }
    }

    @Test func gracefulShutdown_FinishesTheRequestInFlight_WithConnectionClose() async throws {
        let started = Signal<Void>()
        let release = Signal<Void>()
        let server = makeTestServer()
        try server.register(method: .get, path: "/slow") { _ in
            started.fire()
            _ = await release.wait()
            return Response(status: .ok, body: .init(string: "finished"))
        }
        let addressSignal = Signal<SocketAddress>()
        let run = Task { try await server.run { addressSignal.fire($0[0]) } }
        let address = try #require(await addressSignal.wait())
        let client = try await TestClient.connect(to: address)
        let idle = try await TestClient.connect(to: address)
        try await client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await started.wait() != nil)
        await server.shutdown()
        #expect(try await idle.isClosedByServer(), "idle connections close at once")
        release.fire()
        let response = try await client.readResponse()
        #expect(response.text == "finished")
        #expect(response.header("connection") == "close")
        try await run.value
        await #expect(throws: (any Error).self) { try await TestClient.connect(to: address) }
    }

    @Test func shutdown_AnswersARequestThatWasHalfReceived() async throws {
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        let run = Task { try await server.run() }
        let address = try #require(try await server.listeningAddresses().first)
        let client = try await TestClient.connect(to: address)
        let idle = try await TestClient.connect(to: address)
        for connection in [client, idle] {
            try await connection.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await connection.readResponse().header("connection") == nil, "kept alive before the shutdown")
        }
        try await client.send("GET /hello HTTP/1.1\r\n")
        await server.shutdown()
        #expect(try await idle.isClosedByServer(), "the shutdown has reached the connections")
        try await client.send("Host: x\r\n\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 200)
        #expect(response.header("connection") == "close")
        try await run.value
    }

    @Test func cancellingTheServersTask_ClosesAtOnce_AndCancelsHandlers() async throws {
        let server = makeTestServer { $0.timeouts.shutdownGracePeriod = .seconds(60) }
        let probe = CancellationProbe()
        try server.register(method: .get, path: "/forever", handler: probe.handler)
        let run = Task { try await server.run() }
        let address = try #require(try await server.listeningAddresses().first)
        let client = try await TestClient.connect(to: address)
        try await client.send("GET /forever HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await probe.started.wait() != nil)
        run.cancel()
        #expect(await probe.cancelled.wait() != nil, "cancellation does not wait out the 60 s grace period")
        #expect(try await client.isClosedByServer())
        try await run.value
    }

    @Test func listeningAddresses_WaitsForTheListener_AndFailsOnceStopped() async throws {
        let server = makeTestServer()
        let early = Task { try await server.listeningAddresses() }
        let announced = Signal<[SocketAddress]>()
        let run = Task { try await server.run { announced.fire($0) } }
        let bound = try #require(await announced.wait())
        #expect(try await early.value == bound)
        #expect(try await server.listeningAddresses() == bound)
        await server.shutdown()
        try await run.value
        await #expect(throws: WhiskerServerError.self) { try await server.listeningAddresses() }
    }

    @Test func listeningAddresses_ReportsWhyTheServerCouldNotListen() async throws {
        try await makeTestServer().withRunning { address in
            let second = WhiskerServer(configuration: .init(host: "127.0.0.1", port: address.port))
            let waiter = Task { try await second.listeningAddresses() }
            await #expect(throws: WhiskerServerError.self) { try await second.run() }
            let error = await #expect(throws: WhiskerServerError.self) { try await waiter.value }
            #expect(error?.description.contains("127.0.0.1:\(address.port)") == true)
        }
    }

    @Test func portInUse_FailsWithAMessageNamingTheAddress() async throws {
        let first = makeTestServer()
        try await first.withRunning { address in
            let second = WhiskerServer(configuration: .init(host: "127.0.0.1", port: address.port))
            let error = await #expect(throws: WhiskerServerError.self) { try await second.run() }
            #expect(error?.description.contains("127.0.0.1:\(address.port)") == true)
            #expect(error?.description.contains("Address already in use") == true)
        }
    }

    @Test func ipv6Loopback_Serves() async throws {
        let server = makeTestServer { $0.listeners = [.tcp(host: "::1", port: 0)] }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            #expect(address.isIPv6)
            #expect(address.description.hasPrefix("[::1]:"))
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hello HTTP/1.1\r\nHost: [::1]\r\n\r\n")
            #expect(try await client.readResponse().text == "hello")
        }
    }

    @Test func registeringAfterRun_ThrowsAndDuplicateRoutesNameBoth() async throws {
        let server = makeTestServer()
        try server.register(method: .get, path: "/pets/{id}") { _ in Response(status: .ok) }
        let duplicate = #expect(throws: RouteError.self) {
            try server.register(method: .get, path: "/pets/{petId}") { _ in Response(status: .ok) }
        }
        #expect(duplicate?.description.contains("/pets/{id}") == true)
        #expect(duplicate?.description.contains("/pets/{petId}") == true)
        try await server.withRunning { _ in
            #expect(throws: RouteError.self) {
                try server.register(method: .get, path: "/late") { _ in Response(status: .ok) }
            }
        }
    }
}
