import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerTesting

/// Over h2c, as over HTTP/1.1 (`BidirectionalStreamTests` in WhiskerCoreTests): a stream whose
/// handler streams its answer while it reads the request at the client's pace (one ~26-byte line
/// a second both ways, swift-openapi-generator's bidirectional example) is not held to the minimum
/// request-body rate, with the server's defaults; a slow upload still is.
@Suite(.timeLimit(.minutes(1))) struct HTTP2BidirectionalStreamTests {
    static let line = Array((#"{"message":"hello","n":1}"# + "\n").utf8)  // 26 bytes

    @Test func aLineASecondBothWays_ForSevenSeconds_IsServedWithTheDefaults() async throws {
        let server = makeHTTP2Server()
        try registerChat(on: server)
        try await server.withRunning { address in
            let socket = try await TestClient.connect(to: address)
            let reader = HTTP2FrameReader()
            let head = HPACK.request(method: "POST", path: "/chat", fields: [("content-type", "application/jsonl")])
            try await socket.send(HTTP2Frame.preface + HTTP2Frame.settings().bytes + HTTP2Frame.headers(streamID: 1, block: head, endStream: false).bytes)
            for round in 1...7 {
                if round > 1 { try await Task.sleep(for: .seconds(1)) }  // the client's pace, not a synchronisation
                try await socket.send(HTTP2Frame.data(streamID: 1, bytes: Self.line, endStream: false).bytes)
                try await reader.read(from: socket) { $0.body(1).count >= round * Self.line.count || $0.resetCode(1) != nil }
                #expect(reader.resetCode(1) == nil, "the stream was reset after \(round - 1) lines")
                #expect(reader.body(1).count == round * Self.line.count)
            }
            try await socket.send(HTTP2Frame.data(streamID: 1, bytes: [], endStream: true).bytes)
            try await reader.read(from: socket) { reader in
                reader.frames.contains { $0.streamID == 1 && $0.has(HTTP2Frame.Flag.endStream) }
            }
            #expect(reader.status(1) == "200")
            #expect(reader.body(1) == Array(repeating: Self.line, count: 7).flatMap { $0 })
        }
    }
}
