import Dispatch
import HTTPTypes
import Testing
@testable import WhiskerCore
import WhiskerTesting

/// `HTTP1Connection` driven from exact bytes over a ``MemoryByteStream``: no sockets, no listener,
/// so what the connection writes for what it read is the whole of the test.
@Suite(.timeLimit(.minutes(1))) struct HTTP1ConnectionTests {
    /// A connection with `/hello` and `/echo` routes over a fresh in-memory stream, started on its queue.
    private func connect(_ configure: (inout WhiskerServer.Configuration) -> Void = { _ in }) throws -> MemoryByteStream {
        var router = Router<Route>()
        try router.register(Route(handler: { _ in Response(status: .ok, body: .init(string: "hello")) }, template: "/hello"), method: .get, path: "/hello")
        try router.register(Route(handler: { request in
            var bytes: [UInt8] = []
            if let body = request.body { for try await chunk in body { bytes += chunk } }
            return Response(status: .ok, body: .init(bytes: bytes))
        }, template: "/echo"), method: .post, path: "/echo")
        var configuration = WhiskerServer.Configuration()
        configure(&configuration)
        let context = ServerContext(router: router, configuration: configuration)
        let stream = try MemoryByteStream()
        stream.queue.async {
            let connection = Connection(stream: stream, context: context)
            // The stream's close handler holds the connection until it closes.
            connection.start()
        }
        return stream
    }

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The status lines in `output`, in order (a body without a line end runs into the next
    /// response's status line, so they are found by their text, not by line starts).
    private static func statusLines(_ output: String) -> [String] {
        output.split(separator: "HTTP/1.1 ", omittingEmptySubsequences: false).dropFirst().map { "HTTP/1.1 " + ($0.split(separator: "\r\n").first ?? "") }
    }

    @Test func pipelinedRequests_AreAnsweredInOrder_InOneRead() async throws {
        let stream = try connect()
        stream.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
        let output = text(await stream.received { Self.statusLines(String(decoding: $0, as: UTF8.self)).count == 3 })
        #expect(Self.statusLines(output) == ["HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 404 Not Found"])
        #expect(output.firstRange(of: "abc")!.lowerBound < output.firstRange(of: "hello")!.lowerBound)
    }

    @Test func sixteenPipelinedRequestsInOneRead_AreAnsweredInOneWrite() async throws {
        let stream = try connect()
        stream.send(String(repeating: "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n", count: 16))
        let output = text(await stream.received { Self.statusLines(String(decoding: $0, as: UTF8.self)).count == 16 })
        #expect(Self.statusLines(output) == Array(repeating: "HTTP/1.1 200 OK", count: 16))
        let writes = await stream.writeCountNow()
        #expect(writes == 1, "what one read brought is answered in one write, not one per response")
        // A lone request afterwards is answered in a write of its own, at once.
        stream.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = await stream.received { Self.statusLines(String(decoding: $0, as: UTF8.self)).count == 17 }
        let writesAfter = await stream.writeCountNow()
        #expect(writesAfter == 2)
    }

    @Test func answerOfAHandlerThatWaited_LeavesAtOnce() async throws {
        let stream = try connect()
        // The body comes in a later read: /echo's handler waits for it, and answers outside any read turn.
        stream.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n")
        stream.send("abc")
        let output = text(await stream.received { String(decoding: $0, as: UTF8.self).hasSuffix("abc") })
        #expect(output.hasPrefix("HTTP/1.1 200 OK\r\n"))
        let writes = await stream.writeCountNow()
        #expect(writes == 1)
    }

    @Test func headArrivingOneByteAtATime_IsParsedOnce() async throws {
        let stream = try connect()
        for byte in "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n".utf8 { stream.send([byte]) }
        let output = text(await stream.received { String(decoding: $0, as: UTF8.self).hasSuffix("hello") })
        #expect(output.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(Self.statusLines(output).count == 1)
    }

    @Test func peerClosingMidHead_ClosesWithoutAnAnswer() async throws {
        let stream = try connect()
        stream.send("GET /hello HT")
        stream.sendEnd()
        #expect(await stream.receivedUntilClose().isEmpty)
    }

    @Test func clientThatStopsReading_IsClosedAtTheWriteTimeout() async throws {
        let stream = try connect { $0.timeouts.write = .milliseconds(200) }
        stream.blockWrites()
        stream.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        let start = ContinuousClock.now
        #expect(await stream.receivedUntilClose().isEmpty, "the held response never went out")
        #expect(ContinuousClock.now - start >= .milliseconds(150))
    }

    @Test func idleKeepAlive_IsClosedQuietlyAtTheIdleTimeout() async throws {
        let stream = try connect { $0.timeouts.idle = .milliseconds(200) }
        stream.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        let output = text(await stream.receivedUntilClose())
        #expect(output.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(output.hasSuffix("hello"), "nothing written after the response: a quiet close")
    }
}
