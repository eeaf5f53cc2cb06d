import HTTPTypes
import Logging
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerSockets
import WhiskerTesting
@testable import WhiskerWebSocket

/// WebSocket over real sockets: the upgrade through the core's public seam, the echo, the close
/// handshake, the server's shutdown, the idle timeout, the rules enforced on the wire, and an h2c
/// request beside a WebSocket upgrade on one port.
@Suite(.timeLimit(.minutes(1))) struct WebSocketServerTests {
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="
    static let upgrade = "GET /ws/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"

    /// A server with the echo at `/ws/echo` (text and binary as sent).
    private func echoServer(limits: WebSocketLimits = .default, _ configure: (inout WhiskerServer.Configuration) -> Void = { _ in }) throws -> WhiskerServer {
        let server = makeTestServer(configure)
        try registerBasicRoutes(on: server)
        try server.webSocket("/ws/echo", limits: limits) { socket in
            for try await message in socket.messages { try await socket.send(message) }
        }
        return server
    }

    /// Reads the 101's head, returns it and what came after it.
    private func handshake(_ client: TestClient, request: String = upgrade) async throws -> (head: String, rest: [UInt8]) {
        try await client.send(request)
        var received: [UInt8] = []
        while true {
            let bytes = try await client.receiveSome()
            if bytes.isEmpty { break }
            received += bytes
            if let end = find(received, Array("\r\n\r\n".utf8)) {
                return (String(decoding: received[..<end], as: UTF8.self), Array(received[(end + 4)...]))
            }
        }
        return (String(decoding: received, as: UTF8.self), [])
    }

    private func find(_ haystack: [UInt8], _ needle: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where Array(haystack[index..<(index + needle.count)]) == needle { return index }
        return nil
    }

    /// Server frames, unmasked: (opcode, payload) pairs read from `client` until `count` arrived
    /// or the server closed.
    private func frames(_ client: TestClient, count: Int, startingWith initial: [UInt8] = []) async throws -> [(UInt8, [UInt8])] {
        var bytes = initial
        var result: [(UInt8, [UInt8])] = []
        while result.count < count {
            while let (frame, used) = parse(bytes) {
                result.append(frame)
                bytes.removeFirst(used)
                if result.count == count { return result }
            }
            let more = try await client.receiveSome()
            if more.isEmpty { return result }
            bytes += more
        }
        return result
    }

    private func parse(_ bytes: [UInt8]) -> ((UInt8, [UInt8]), Int)? {
        guard bytes.count >= 2 else { return nil }
        #expect(bytes[1] & 0x80 == 0, "server frames are never masked")
        var length = Int(bytes[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3]); offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }; offset = 10
        }
        guard bytes.count >= offset + length else { return nil }
        return ((bytes[0] & 0x0F, Array(bytes[offset..<(offset + length)])), offset + length)
    }

    private func closeCode(_ frame: (UInt8, [UInt8])?) -> UInt16? {
        guard let frame, frame.0 == 0x8, frame.1.count >= 2 else { return nil }
        return UInt16(frame.1[0]) << 8 | UInt16(frame.1[1])
    }

    @Test func upgrade_AnswersOneHundredOneWithTheAcceptValue_AndEchoesTextBinaryAndFragments() async throws {
        try await echoServer().withRunning { address in
            let client = try await TestClient.connect(to: address)
            let (head, rest) = try await handshake(client)
            #expect(head.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"), "\(head)")
            #expect(head.lowercased().contains("\r\nsec-websocket-accept: s3pplmbitxaq9kygzzhzrbk+xoo="), "\(head)")
            #expect(head.lowercased().contains("\r\nupgrade: websocket"))
            #expect(head.lowercased().split(separator: "\r\n").filter { $0.hasPrefix("connection:") } == ["connection: upgrade"], "one Connection field: \(head)")
            try await client.send(ClientFrame.text("hello 🐱") + ClientFrame.binary([0, 1, 2, 255])
                + ClientFrame.text("frag", fin: false) + ClientFrame.ping([7]) + ClientFrame.continuation(Array("mented".utf8)))
            let got = try await frames(client, count: 4, startingWith: rest)
            // The pong is the server's own answer: it may overtake the echoes, which the handler sends.
            #expect(got.filter { $0.0 == 0xA }.map(\.1) == [[7]])
            let data = got.filter { $0.0 != 0xA }
            #expect(data.map(\.0) == [0x1, 0x2, 0x1])
            #expect(data.map(\.1) == [Array("hello 🐱".utf8), [0, 1, 2, 255], Array("fragmented".utf8)])
            // A message as large as the default limit (1 MiB) in one frame.
            let large = [UInt8](repeating: 0x5A, count: 1 << 20)
            try await client.send(ClientFrame.binary(large))
            let echoed = try await frames(client, count: 1)
            #expect(echoed.first?.1 == large)
        }
    }

    @Test func theClientsClose_IsEchoedWithItsCode_AndTheServerClosesTCP() async throws {
        try await echoServer().withRunning { address in
            let client = try await TestClient.connect(to: address)
            let (_, rest) = try await handshake(client)
            try await client.send(ClientFrame.close(4001, reason: Array("bye".utf8)))
            let got = try await frames(client, count: 1, startingWith: rest)
            #expect(closeCode(got.first) == 4001)
            #expect(try await client.isClosedByServer())
        }
    }

    @Test(arguments: [
        (ClientFrame.make(0x1, Array("x".utf8), masked: false), UInt16(1002)),
        (ClientFrame.make(0x1, [0xC0, 0x80]), UInt16(1007)),
        (ClientFrame.close(1005), UInt16(1002)),
        (ClientFrame.make(0x9, [UInt8](repeating: 0, count: 126)), UInt16(1002)),
        (Array(ClientFrame.binary([UInt8](repeating: 0, count: 2000)).prefix(8)), UInt16(1009)),
    ])
    func aBrokenRule_IsAnsweredWithItsCloseCode_AndTheConnectionCloses(frame: [UInt8], code: UInt16) async throws {
        let lines = LoggedLines()
        try await echoServer(limits: WebSocketLimits(maxFrameSize: 1000)) { $0.logger = .capturing(lines, label: "server", level: .info) }.withRunning { address in
            let client = try await TestClient.connect(to: address)
            let (_, rest) = try await handshake(client)
            try await client.send(frame)
            let got = try await frames(client, count: 1, startingWith: rest)
            #expect(closeCode(got.first) == code)
            #expect(try await client.isClosedByServer())
        }
        #expect(lines.all.contains { $0.0.contains("WebSocket failed with \(code)") }, "a readable line: \(lines.all.map(\.0))")
    }

    @Test func theUpgradeRequest_GoesThroughTheAccessLogAndTheRequestID_WhichTheHandlersLinesCarry() async throws {
        let lines = LoggedLines()
        let handlerLines = LoggedLines()
        let server = makeTestServer {
            $0.requestIDs = true
            $0.accessLog = .capturing(lines, label: "access")
            $0.logger = .capturing(handlerLines, label: "server")
        }
        try server.webSocket("/ws/echo") { socket in
            Logger.current.info("handler started")
            for try await message in socket.messages { try await socket.send(message) }
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            let (head, _) = try await handshake(client)
            #expect(head.lowercased().contains("\r\nx-request-id: "), "\(head)")
            try await client.send(ClientFrame.close(1000))
            _ = try await client.readUntilClose()
            let id = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("x-request-id:") }.map { String($0.dropFirst("x-request-id:".count)).trimmingPrefix(" ") }
            let line = handlerLines.all.first { $0.0 == "handler started" }
            #expect(line?.1["request_id"].map { "\($0)" } == id.map(String.init), "\(handlerLines.all)")
        }
        #expect(lines.all.map(\.0) == ["GET /ws/echo 101"])
    }

    @Test(arguments: [
        ("GET /ws/echo HTTP/1.1\r\nHost: x\r\n\r\n", 426),
        ("GET /ws/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 8\r\n\r\n", 426),
        ("GET /ws/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: c2hvcnQ=\r\nSec-WebSocket-Version: 13\r\n\r\n", 400),
        ("GET /ws/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: keep-alive\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n", 400),
    ])
    func aBadHandshake_GetsItsStatus_AndTheConnectionStaysHTTP(request: String, status: Int) async throws {
        try await echoServer().withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send(request)
            #expect(try await client.readResponse().status == status)
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
        }
    }

    @Test func shutdown_SendsGoingAway_AndEndsWhenThePeerAnswers() async throws {
        let server = try echoServer()
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            let (_, rest) = try await handshake(client)
            try await client.send(ClientFrame.text("before"))
            #expect(try await frames(client, count: 1, startingWith: rest).first?.1 == Array("before".utf8))
            let shutdown = Task { await server.shutdown() }
            let got = try await frames(client, count: 1)
            #expect(closeCode(got.first) == 1001)
            try await client.send(ClientFrame.close(1001))
            #expect(try await client.isClosedByServer())
            await shutdown.value
        }
    }

    @Test func anIdleConnection_IsClosedWithGoingAway() async throws {
        try await echoServer(limits: WebSocketLimits(idleTimeout: .milliseconds(200), closeTimeout: .milliseconds(200))).withRunning { address in
            let client = try await TestClient.connect(to: address)
            let (_, rest) = try await handshake(client)
            let got = try await frames(client, count: 1, startingWith: rest)
            #expect(closeCode(got.first) == 1001)
            // No answer from us: the close timeout ends the TCP connection.
            #expect(try await client.isClosedByServer())
        }
    }

    @Test func anActiveConnection_IsNotIdle() async throws {
        // A timeout long enough that a loaded machine's stall of a few seconds does not end it.
        try await echoServer(limits: WebSocketLimits(idleTimeout: .seconds(5))).withRunning { address in
            let client = try await TestClient.connect(to: address)
            var (_, rest) = try await handshake(client)
            // Round trips 200 ms apart, well inside the timeout, that last longer than it in all.
            for index in 0..<30 {
                try await client.send(ClientFrame.text("\(index)"))
                let clock = ContinuousClock()
                let start = clock.now
                let got = try await frames(client, count: 1, startingWith: rest)
                rest = []
                #expect(got.first?.1 == Array("\(index)".utf8))
                try await Task.sleep(until: start + .milliseconds(200))  // paces the client, not a synchronisation
            }
        }
    }

    @Test func aFloodOfPings_IsClosedWithPolicyViolation() async throws {
        try await echoServer(limits: WebSocketLimits(controlFrameBurst: 50, controlFramesPerSecond: 5)).withRunning { address in
            let client = try await TestClient.connect(to: address)
            let (_, rest) = try await handshake(client)
            try await client.send((0..<1000).flatMap { _ in ClientFrame.ping([1]) })
            var got = try await frames(client, count: 1000, startingWith: rest)
            let pongs = got.filter { $0.0 == 0xA }.count
            #expect(pongs >= 1 && pongs <= 50, "pongs coalesce and stop at the burst: \(pongs)")
            got.removeAll { $0.0 == 0xA }
            #expect(closeCode(got.first) == 1008)
        }
    }

    @Test func aPeerThatReads_GetsAPongForEachPing() async throws {
        try await echoServer(limits: WebSocketLimits(controlFrameBurst: 100_000, controlFramesPerSecond: 100_000)).withRunning { address in
            let client = try await TestClient.connect(to: address)
            var (_, rest) = try await handshake(client)
            // More pongs than the 64 KiB a non-reading peer may have waiting, each read as it comes:
            // the cap (WebSocketConnection.maxUnsentForPong) never touches a peer that reads.
            for index in 0..<(WebSocketConnection.maxUnsentForPong / 127 + 100) {
                try await client.send(ClientFrame.ping([UInt8](repeating: 0x70, count: 124) + [UInt8(index & 0xFF)]))
                let got = try await frames(client, count: 1, startingWith: rest)
                rest = []
                #expect(got.first?.0 == 0xA && got.first?.1.last == UInt8(index & 0xFF))
            }
        }
    }

    @Test func aHandlerThatThrows_ClosesWithInternalError() async throws {
        struct Failure: Error {}
        let server = makeTestServer()
        try server.webSocket("/ws/echo") { socket in
            _ = try await socket.messages.first { _ in true }
            throw Failure()
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            let (_, rest) = try await handshake(client)
            try await client.send(ClientFrame.text("boom"))
            #expect(closeCode(try await frames(client, count: 1, startingWith: rest).first) == 1011)
        }
    }

    @Test func aSlowHandler_StopsTheServerReading_AndGetsEveryMessageInOrder() async throws {
        let received = AsyncStream<String>.makeStream()
        let pausedWith = AsyncStream<Int>.makeStream()
        let server = makeTestServer()
        try server.webSocket("/ws/echo", limits: WebSocketLimits(maxBufferedMessages: 2)) { socket in
            // Takes nothing until the server has stopped reading for want of room.
            pausedWith.continuation.yield(await socket.readingPaused())
            pausedWith.continuation.finish()
            for try await message in socket.messages {
                if case .text(let text) = message { received.continuation.yield(text) }
                if case .text("last") = message { break }
            }
            received.continuation.finish()
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            _ = try await handshake(client)
            // 2 MiB of messages the handler does not take yet: the server holds two, and the rest
            // wait in the kernel's buffers (TCP flow control), not in the server's memory.
            let payload = String(repeating: "m", count: 64 * 1024)
            let sender = Task {
                for index in 0..<32 { try await client.send(ClientFrame.text("\(index) \(payload)")) }
                try await client.send(ClientFrame.text("last"))
            }
            var pauses: [Int] = []
            for await count in pausedWith.stream { pauses.append(count) }
            #expect(pauses == [2], "reading paused with the two messages the limit allows waiting")
            var texts: [String] = []
            for await text in received.stream { texts.append(text) }
            try await sender.value
            #expect(texts.count == 33)
            #expect(texts.dropLast().enumerated().allSatisfy { $0.element.hasPrefix("\($0.offset) ") })
        }
    }

    @Test func anH2CRequest_AndAWebSocketUpgrade_AreServedOnOnePort() async throws {
        try await echoServer { $0.http2 = HTTP2Settings() }.withRunning { address in
            // HTTP/2 with prior knowledge on one connection...
            let socket = try await TestClient.connect(to: address)
            let h2 = HTTP2TestClient()
            let id = h2.request(path: "/hello")
            let wsOverH2 = h2.request(path: "/ws/echo")
            try await h2.exchange(over: socket) { $0.closed[id] != nil && $0.closed[wsOverH2] != nil }
            #expect(h2.status(id) == "200")
            #expect(h2.status(wsOverH2) == "426", "no upgrade over HTTP/2")
            // ...and a WebSocket on another, same port.
            let client = try await TestClient.connect(to: address)
            let (head, rest) = try await handshake(client)
            #expect(head.hasPrefix("HTTP/1.1 101 "))
            try await client.send(ClientFrame.text("beside h2c"))
            #expect(try await frames(client, count: 1, startingWith: rest).first?.1 == Array("beside h2c".utf8))
        }
    }
}
