import HTTPTypes
import Testing
import WhiskerCore
import WhiskerTesting

/// The minimum request-body rate counts only while the request is the only thing moving. A
/// client that sends one line a second while it reads the echoes (swift-openapi-generator's
/// bidirectional-event-streams example: ~26 bytes a second both ways) is far below the default
/// 240 bytes/s, yet must be served as long as it likes; a slow POST, with or without
/// `Expect: 100-continue`, is still cut soon after the grace period. With the server's defaults.
@Suite(.timeLimit(.minutes(1))) struct BidirectionalStreamTests {
    static let line = #"{"message":"hello","n":1}"# + "\n"  // 26 bytes

    @Test func aLineASecondBothWays_ForSevenSeconds_IsServedWithTheDefaults() async throws {
        let server = makeTestServer()
        try registerChat(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("POST /chat HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            var received: [UInt8] = []
            for round in 1...7 {
                if round > 1 { try await Task.sleep(for: .seconds(1)) }  // the client's pace, not a synchronisation
                try await client.send("\(String(Self.line.utf8.count, radix: 16))\r\n\(Self.line)\r\n")
                // Each line's echo comes back before the next is sent.
                while String(decoding: received, as: UTF8.self).ranges(of: Self.line).count < round {
                    let bytes = try await client.receiveSome()
                    try #require(!bytes.isEmpty, "the server closed the stream after \(round - 1) lines: \(String(decoding: received, as: UTF8.self))")
                    received += bytes
                }
            }
            try await client.send("0\r\n\r\n")
            while !String(decoding: received, as: UTF8.self).hasSuffix("\r\n0\r\n\r\n") {
                let bytes = try await client.receiveSome()
                try #require(!bytes.isEmpty, "the stream ended without its last chunk")
                received += bytes
            }
            let text = String(decoding: received, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200 "))
            #expect(text.ranges(of: Self.line).count == 7, "7 echoes: \(text)")
        }
    }

    /// 28 bytes a second, against the default 240 bytes/s after 5 s: 408 at about 5 s, whether
    /// or not the client asked to wait for `100 Continue` (and whether it waited for it).
    @Test(arguments: [nil, "sends at once", "waits for 100"])
    func aSlowPOST_IsCutAtFiveSeconds(expecting: String?) async throws {
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            let expect = expecting == nil ? "" : "Expect: 100-continue\r\n"
            // The server's clock starts with the head, so does this one (not after the interim
            // response, which a loaded machine can take a second to deliver).
            let started = ContinuousClock.now
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\(expect)\r\n")
            if expecting != nil {
                if expecting == "sends at once" { try await client.send(Array(repeating: UInt8(ascii: "a"), count: 7)) }
                let interim = String(decoding: try await client.receiveSome(), as: UTF8.self)
                #expect(interim == "HTTP/1.1 100 Continue\r\n\r\n", "\(interim)")
            }
            var answered = false
            while ContinuousClock.now - started < .seconds(12) {
                if try await client.hasBytesToRead() {
                    answered = true
                    break
                }
                try await client.send(Array(repeating: UInt8(ascii: "a"), count: 7))
                try await Task.sleep(for: .milliseconds(250))  // the slow client's pace
            }
            let elapsed = ContinuousClock.now - started
            #expect(answered, "still open after 12 s at 28 bytes/s")
            let response = String(decoding: try await client.receiveSome(), as: UTF8.self)
            #expect(response.hasPrefix("HTTP/1.1 408 "), "\(response)")
            #expect(elapsed > .seconds(4) && elapsed < .seconds(8), "cut after \(elapsed)")
        }
    }
}

/// A route's own minimum rate (``RequestBodyRate``) in place of the server's: stricter, or none.
@Suite(.timeLimit(.minutes(1))) struct RouteBodyRateTests {
    /// 10 bytes every 50 ms (200 bytes/s) against 1,000 bytes/s after 0.3 s.
    static let strict = MinimumDataRate(bytesPerSecond: 1_000, gracePeriod: .milliseconds(300))

    /// Trickles a body to `path` for at most `limit`; the status the server answered meanwhile, if any.
    func trickle(to path: String, on address: SocketAddress, for limit: Duration) async throws -> Int? {
        let client = try await TestClient.connect(to: address)
        try await client.send("POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
        let started = ContinuousClock.now
        while ContinuousClock.now - started < limit {
            if try await client.hasBytesToRead() { return try await client.readResponse().status }
            try await client.send(Array(repeating: UInt8(ascii: "a"), count: 10))
            try await Task.sleep(for: .milliseconds(50))  // the slow client's pace
        }
        return nil
    }

    @Test func aStricterRoute_Cuts_WhereTheServerHasNoMinimum() async throws {
        let server = makeTestServer { $0.limits.minRequestBodyRate = nil }
        try registerBasicRoutes(on: server)
        let echo: HTTPHandler = { request in
            for try await _ in request.body! {}
            return Response(status: .ok)
        }
        try server.register(method: .post, path: "/strict", minRequestBodyRate: .minimum(Self.strict), handler: echo)
        try await server.withRunning { address in
            let strict = try await self.trickle(to: "/strict", on: address, for: .seconds(5))
            let serverDefault = try await self.trickle(to: "/echo", on: address, for: .seconds(1))
            #expect(strict == 408)
            #expect(serverDefault == nil, "the server's default: no minimum")
        }
    }

    @Test func aRouteWithNoMinimum_IsNotCut_WhereTheServerHasOne() async throws {
        let server = makeTestServer { $0.limits.minRequestBodyRate = Self.strict }
        try registerBasicRoutes(on: server)
        try server.register(method: .post, path: "/lenient", minRequestBodyRate: .none) { request in
            for try await _ in request.body! {}
            return Response(status: .ok)
        }
        try await server.withRunning { address in
            let lenient = try await self.trickle(to: "/lenient", on: address, for: .seconds(1.5))
            let serverDefault = try await self.trickle(to: "/echo", on: address, for: .seconds(5))
            #expect(lenient == nil)
            #expect(serverDefault == 408, "the server's minimum")
        }
    }
}
