import HTTPTypes
import Testing
import WhiskerCore
import WhiskerTesting

/// Clients that trickle (slow POST) or read a response a few bytes at a time (slow read): the
/// stall timeouts alone never end them, since every trickle is progress. With a minimum data rate
/// (``WhiskerServer/Limits/minRequestBodyRate``, ``WhiskerServer/Limits/minResponseRate``) they
/// are ended soon after the grace period, while other clients are served meanwhile.
@Suite(.timeLimit(.minutes(1))) struct SlowClientTests {
    private func server(_ configure: (inout WhiskerServer.Configuration) -> Void) throws -> WhiskerServer {
        let server = makeTestServer(configure)
        try registerBasicRoutes(on: server)
        // 32 MiB in 64 KiB chunks, each written once the one before is on its way.
        try server.register(method: .get, path: "/big") { _ in
            Response(status: .ok, body: .init(length: 32 << 20) { writer in
                let chunk = [UInt8](repeating: 0x63, count: 64 << 10)
                for _ in 0..<512 { try await writer.write(chunk) }
            })
        }
        return server
    }

    /// 10 bytes every 50 ms (200 bytes/s) against a minimum of 1,000 bytes/s after 0.3 s: a 408
    /// long before the 30 s stall timeout, and the connection closes. Meanwhile `/hello` is served.
    @Test func slowPOST_Gets408_AfterTheGracePeriod() async throws {
        let server = try server {
            $0.limits.minRequestBodyRate = MinimumDataRate(bytesPerSecond: 1_000, gracePeriod: .milliseconds(300))
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
            let started = ContinuousClock.now
            var answered = false
            for round in 0..<100 {
                if try await client.hasBytesToRead() {
                    answered = true
                    break
                }
                try await client.send(Array(repeating: UInt8(ascii: "a"), count: 10))
                if round == 5 {
                    let other = try await TestClient.connect(to: address)
                    try await other.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                    #expect(try await other.readResponse().status == 200, "another client is served during the attack")
                }
                try await Task.sleep(for: .milliseconds(50))  // the slow client's pace, not a synchronisation
            }
            #expect(answered, "the server answered before the client had trickled for 5 s")
            let response = try await client.readResponse()
            #expect(response.status == 408)
            #expect(response.text.contains("slower than"))
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(try await client.isClosedByServer())
        }
    }

    /// Reading 16 KiB every 50 ms (about 320 KiB/s) against a minimum of 2 MiB/s after 0.5 s: the
    /// connection is closed long before the 32 MiB have come.
    @Test func slowRead_IsClosed_AfterTheGracePeriod() async throws {
        let server = try server {
            $0.limits.minResponseRate = MinimumDataRate(bytesPerSecond: 2 * 1024 * 1024, gracePeriod: .milliseconds(500))
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            var received = 0
            var closed = false
            let started = ContinuousClock.now
            while !closed, ContinuousClock.now - started < .seconds(15) {
                let bytes = (try? await client.receiveSome()) ?? []
                closed = bytes.isEmpty
                received += bytes.count
                try await Task.sleep(for: .milliseconds(50))  // the slow client's pace
            }
            #expect(closed, "the server closed the connection within 15 s")
            #expect(received < 32 << 20, "closed before the whole response was read (\(received) bytes)")
        }
    }
}
