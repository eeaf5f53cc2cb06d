#if Compression
import Testing
import WhiskerCore
import WhiskerSockets
import WhiskerTesting
@testable import WhiskerWebSocket

/// permessage-deflate through the real server: the negotiation in the 101, compressed echoes both
/// ways, small messages sent plain, the bomb closed with 1009, and a route with compression off.
@Suite(.timeLimit(.minutes(1))) struct PerMessageDeflateServerTests {
    private static func upgrade(extensions: String?) -> String {
        "GET /ws/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            + "Sec-WebSocket-Version: 13\r\n" + (extensions.map { "Sec-WebSocket-Extensions: \($0)\r\n" } ?? "") + "\r\n"
    }

    private func echoServer(compression: WebSocketCompression? = .default) throws -> WhiskerServer {
        let server = makeTestServer()
        try server.webSocket("/ws/echo", compression: compression) { socket in
            for try await message in socket.messages { try await socket.send(message) }
        }
        return server
    }

    /// The 101's head (lowercased) and the bytes after it.
    private func handshake(_ client: TestClient, extensions: String?) async throws -> (head: String, rest: [UInt8]) {
        try await client.send(Self.upgrade(extensions: extensions))
        var received: [UInt8] = []
        while true {
            let bytes = try await client.receiveSome()
            if bytes.isEmpty { break }
            received += bytes
            if let end = (0..<max(0, received.count - 3)).first(where: { Array(received[$0..<($0 + 4)]) == Array("\r\n\r\n".utf8) }) {
                return (String(decoding: received[..<end], as: UTF8.self).lowercased(), Array(received[(end + 4)...]))
            }
        }
        return (String(decoding: received, as: UTF8.self).lowercased(), [])
    }

    /// Server frames as (first byte, payload), until `count` came or the server closed.
    private func frames(_ client: TestClient, count: Int, startingWith initial: [UInt8]) async throws -> [(UInt8, [UInt8])] {
        var bytes = initial
        var result: [(UInt8, [UInt8])] = []
        while result.count < count {
            if bytes.count >= 2 {
                var length = Int(bytes[1] & 0x7F)
                var offset = 2
                if length == 126, bytes.count >= 4 { length = Int(bytes[2]) << 8 | Int(bytes[3]); offset = 4 }
                if length == 127, bytes.count >= 10 { length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }; offset = 10 }
                if length < 126 || offset > 2, bytes.count >= offset + length {
                    result.append((bytes[0], Array(bytes[offset..<(offset + length)])))
                    bytes.removeFirst(offset + length)
                    continue
                }
            }
            let more = try await client.receiveSome()
            if more.isEmpty { break }
            bytes += more
        }
        return result
    }

    @Test func theOffer_IsAccepted_AndMessagesAreCompressedBothWays_SmallOnesSentPlain() async throws {
        try await echoServer().withRunning { address in
            let client = try await TestClient.connect(to: address)
            let (head, rest) = try await handshake(client, extensions: "permessage-deflate; client_max_window_bits")
            #expect(head.hasPrefix("http/1.1 101 "), "\(head)")
            #expect(head.contains("\r\nsec-websocket-extensions: permessage-deflate; client_max_window_bits=12"), "\(head)")
            let deflater = ClientDeflater(windowBits: 12)
            let text = String(repeating: "a compressible message 🐱 ", count: 200)
            try await client.send(ClientFrame.make(0x1, deflater.compress(Array(text.utf8)), rsv: 4) + ClientFrame.text("tiny")
                + ClientFrame.make(0x1, deflater.compress(Array(text.utf8)), rsv: 4))
            let got = try await frames(client, count: 3, startingWith: rest)
            try #require(got.count == 3)
            #expect(got.map { $0.0 } == [0xC1, 0x81, 0xC1], "RSV1 on the compressed echoes, not on the 4-byte one")
            #expect(got[0].1.count < text.utf8.count / 10)
            #expect(got[1].1 == Array("tiny".utf8))
            #expect(clientInflate([got[0].1, got[2].1], windowBits: 12) == [Array(text.utf8), Array(text.utf8)])
            #expect(got[2].1.count < got[0].1.count, "the server keeps its window between messages")
        }
    }

    @Test func theBomb_IsClosedWith1009_AndTheTCPConnectionCloses() async throws {
        try await echoServer().withRunning { address in
            let client = try await TestClient.connect(to: address)
            let (head, rest) = try await handshake(client, extensions: "permessage-deflate")
            #expect(head.contains("\r\nsec-websocket-extensions: permessage-deflate\r\n") || head.hasSuffix("sec-websocket-extensions: permessage-deflate"), "\(head)")
            try? await client.send(ClientFrame.make(0x2, zerosBomb, rsv: 4))
            let got = try await frames(client, count: 1, startingWith: rest)
            #expect(got.first.map { $0.0 & 0x0F } == 0x8)
            #expect(got.first.map { UInt16($0.1[0]) << 8 | UInt16($0.1[1]) } == 1009)
            #expect(try await client.isClosedByServer())
        }
    }

    @Test func compressionOff_AnswersNoExtension_AndRSV1IsAProtocolError() async throws {
        try await echoServer(compression: nil).withRunning { address in
            let client = try await TestClient.connect(to: address)
            let (head, rest) = try await handshake(client, extensions: "permessage-deflate; client_max_window_bits")
            #expect(head.hasPrefix("http/1.1 101 ") && !head.contains("sec-websocket-extensions"), "\(head)")
            try await client.send(ClientFrame.make(0x1, ClientDeflater().compress(Array("hello".utf8)), rsv: 4))
            let got = try await frames(client, count: 1, startingWith: rest)
            #expect(got.first.map { UInt16($0.1[0]) << 8 | UInt16($0.1[1]) } == 1002)
        }
    }

    @Test func anOfferTheServerCannotHonour_IsDeclined_AndTheConnectionWorksUncompressed() async throws {
        try await echoServer().withRunning { address in
            let client = try await TestClient.connect(to: address)
            let (head, rest) = try await handshake(client, extensions: "permessage-deflate; server_max_window_bits=8")
            #expect(head.hasPrefix("http/1.1 101 ") && !head.contains("sec-websocket-extensions"), "\(head)")
            let text = String(repeating: "plain ", count: 100)
            try await client.send(ClientFrame.text(text))
            let got = try await frames(client, count: 1, startingWith: rest)
            #expect(got.first?.0 == 0x81)
            #expect(got.first?.1 == Array(text.utf8))
        }
    }
}
#endif
