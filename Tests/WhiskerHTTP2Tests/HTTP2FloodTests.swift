import Testing
import WhiskerCore
import WhiskerTesting

/// Floods of frames that cost the server work without a request to show for it: PINGs and
/// SETTINGS that each need an acknowledgement, and CONTINUATION frames that never end a header
/// block (CVE-2024-27316 and its family; zero-length ones too, as found in Netty in 2026). Each
/// ends the connection with GOAWAY(ENHANCE_YOUR_CALM) that says why, before the close; memory stays
/// bounded, and the server serves the next client.
@Suite(.timeLimit(.minutes(1))) struct HTTP2FloodTests {
    enum Flood: String, CaseIterable, Sendable {
        case ping, settings, continuation, emptyContinuation

        var frames: [HTTP2Frame] {
            switch self {
            case .ping:
                (0..<5_000).map { HTTP2Frame(type: HTTP2Frame.Kind.ping, payload: Array(repeating: UInt8($0 & 0xff), count: 8)) }
            case .settings:
                (0..<5_000).map { _ in HTTP2Frame.settings([(id: 0x3, value: 100)]) }
            case .continuation, .emptyContinuation:
                // A HEADERS that never ends its block, then CONTINUATION after CONTINUATION.
                [HTTP2Frame.headers(streamID: 1, block: HPACK.request(path: "/hello"), endStream: true, endHeaders: false)]
                    + (0..<5_000).map { _ in
                        HTTP2Frame(type: HTTP2Frame.Kind.continuation, streamID: 1, payload: self == .emptyContinuation ? [] : HPACK.literal("x-filler", "v"))
                    }
            }
        }
    }

    @Test(arguments: Flood.allCases) func flood_EndsTheConnection_WithAGoAwaySayingWhy(flood: Flood) async throws {
        let server = makeHTTP2Server()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let socket = try await TestClient.connect(to: address)
            try await socket.send(HTTP2Frame.preface + HTTP2Frame.settings().bytes + flood.frames.flatMap(\.bytes))
            let reader = HTTP2FrameReader()
            try await reader.read(from: socket) { $0.isClosed }
            let goAway = try #require(reader.frames(ofType: HTTP2Frame.Kind.goAway).last, "a GOAWAY before the close")
            #expect(goAway.errorCode == 0xb, "ENHANCE_YOUR_CALM, not \(goAway.errorCode.map(String.init) ?? "none")")
            #expect(!goAway.payload.dropFirst(8).isEmpty, "debug data saying why")
            #expect(reader.status(1) == nil, "the flooded block was never a request")

            let next = try await TestClient.connect(to: address)
            let served = HTTP2FrameReader()
            try await next.send(HTTP2Frame.preface + HTTP2Frame.settings().bytes + HTTP2Frame.headers(streamID: 1, block: HPACK.request(path: "/hello"), endStream: true).bytes)
            try await served.read(from: next) { $0.body(1).count == 5 }
            #expect(served.status(1) == "200")
        }
    }
}
