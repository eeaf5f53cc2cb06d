import Dispatch
import HTTPTypes
import Testing
@testable import WhiskerCore
@testable import WhiskerHTTP2
import WhiskerSockets
import WhiskerTesting

/// An HTTP/2 connection from exact frames over a ``MemoryByteStream``: the connection starts as
/// HTTP/1.1, the handover takes it on the preface, and what the server writes for what it read is
/// the whole of the test. No socket, no listener.
@Suite(.timeLimit(.minutes(1))) struct HTTP2ConnectionTests {
    /// A connection with `/hello` over a fresh in-memory stream, with HTTP/2 on, started on its
    /// queue; the connection is returned bound to that queue, for what the registry would call.
    private func connect(_ configure: (inout WhiskerServer.Configuration) -> Void = { _ in }) throws -> (MemoryByteStream, QueueBound<Connection>) {
        var router = Router<Route>()
        try router.register(Route(handler: { _ in Response(status: .ok, body: .init(string: "hello")) }, template: "/hello"), method: .get, path: "/hello")
        var configuration = WhiskerServer.Configuration()
        configuration.http2 = HTTP2Settings()
        configure(&configuration)
        let context = ServerContext(router: router, configuration: configuration)
        let stream = try MemoryByteStream()
        let connection = QueueBound(Connection(stream: stream, context: context), queue: stream.queue)
        connection.run { $0.start() }
        return (stream, connection)
    }

    /// The frames in `bytes`, decoded (header blocks too).
    private func frames(_ bytes: [UInt8]) -> HTTP2FrameReader {
        let reader = HTTP2FrameReader()
        reader.receive(bytes)
        return reader
    }

    @Test func priorKnowledge_IsHandedOver_AndAnswersOneStream() async throws {
        let (stream, _) = try connect()
        stream.send(HTTP2Frame.preface + HTTP2Frame.settings().bytes
            + HTTP2Frame.headers(streamID: 1, block: HPACK.request(path: "/hello"), endStream: true).bytes)
        let output = await stream.received { [self] in frames($0).frames.contains { $0.streamID == 1 && $0.has(HTTP2Frame.Flag.endStream) } }
        let reader = frames(output)
        #expect(reader.frames.first?.type == HTTP2Frame.Kind.settings, "the server's preface comes first")
        #expect(reader.status(1) == "200")
        #expect(reader.body(1) == Array("hello".utf8))
        #expect(reader.headers[1]?.filter { $0.name == "date" }.count == 1)
    }

    @Test func pipelinedStreamsInOneRead_AreAllAnswered() async throws {
        let (stream, _) = try connect()
        var bytes = HTTP2Frame.preface + HTTP2Frame.settings().bytes
        for id in [1, 3, 5] as [Int32] {
            bytes += HTTP2Frame.headers(streamID: id, block: HPACK.request(path: id == 5 ? "/missing" : "/hello"), endStream: true).bytes
        }
        stream.send(bytes)
        let output = await stream.received { [self] data in
            let ended = Set(frames(data).frames.filter { $0.has(HTTP2Frame.Flag.endStream) && $0.type != HTTP2Frame.Kind.settings }.map(\.streamID))
            return ended.isSuperset(of: [1, 3, 5])
        }
        let reader = frames(output)
        #expect(reader.status(1) == "200" && reader.status(3) == "200")
        #expect(reader.status(5) == "404")
    }

    @Test func sixteenStreamsInOneRead_AreAnsweredInOneWrite() async throws {
        let (stream, _) = try connect()
        var bytes = HTTP2Frame.preface + HTTP2Frame.settings().bytes
        let ids = (0..<16).map { Int32(2 * $0 + 1) }
        for id in ids { bytes += HTTP2Frame.headers(streamID: id, block: HPACK.request(path: "/hello"), endStream: true).bytes }
        stream.send(bytes)
        let output = await stream.received { [self] data in
            Set(frames(data).frames.filter { $0.has(HTTP2Frame.Flag.endStream) && $0.type == HTTP2Frame.Kind.data }.map(\.streamID)).count == 16
        }
        let reader = frames(output)
        #expect(ids.allSatisfy { reader.status($0) == "200" && reader.body($0) == Array("hello".utf8) })
        // The server's SETTINGS, its ACK of the client's and sixteen responses: one write, not one per response.
        let writes = await stream.writeCountNow()
        #expect(writes == 1)
    }

    @Test func shutdown_SendsTheNoticeThenTheFinalGoAway_AndCloses() async throws {
        let (stream, connection) = try connect()
        stream.send(HTTP2Frame.preface + HTTP2Frame.settings().bytes)
        _ = await stream.received { [self] in frames($0).frames.contains { $0.type == HTTP2Frame.Kind.settings } }
        // What the registry does on a graceful shutdown.
        connection.run { $0.beginShutdown() }
        let output = await stream.receivedUntilClose()
        let goAways = frames(output).frames(ofType: HTTP2Frame.Kind.goAway)
        #expect(goAways.count == 2, "a notice (last stream 2^31-1), then the final GOAWAY")
        #expect(goAways.first?.lastStreamID == Int32.max)
        #expect(goAways.last?.lastStreamID == 0)
    }
}
