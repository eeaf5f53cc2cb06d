import Dispatch
import HTTPTypes
import Testing
@testable import WhiskerCore
@testable import WhiskerHTTP2
import WhiskerSockets
import WhiskerTesting

/// Connections that end in the middle of a batch of events. Each of these shapes aborted the
/// whole process (a read of an `unowned` back-reference to a connection that had already gone):
/// an answer given inline, or a session that ended, closed the stream while the rest of the
/// batch still named it. Each test ends by showing the server alive and serving.
@Suite(.timeLimit(.minutes(1))) struct HTTP2LifetimeTests {
    private func get(_ path: String, streamID: Int32) -> HTTP2Frame {
        HTTP2Frame.headers(streamID: streamID, block: HPACK.request(path: path), endStream: true)
    }

    /// A new connection that gets `/hello` over HTTP/2.
    private func expectServing(_ address: SocketAddress) async throws {
        let socket = try await TestClient.connect(to: address)
        let reader = HTTP2FrameReader()
        try await socket.send(HTTP2Frame.preface + HTTP2Frame.settings().bytes + get("/hello", streamID: 1).bytes)
        try await reader.read(from: socket) { $0.body(1).count == 5 }
        #expect(reader.status(1) == "200")
        try await socket.close()
    }

    /// h2spec http2/5.1.2 #1, its exact frames: SETTINGS_INITIAL_WINDOW_SIZE 0 (so no response
    /// body can leave and every stream stays open), then one HEADERS more than the advertised
    /// 100 concurrent streams, for a path with no route (h2spec's `-P /nothing`): each 404 is
    /// answered inline, in the batch. The 101st stream is refused (RST_STREAM REFUSED_STREAM).
    /// One of the inline answers found the session over and closed the connection, and the next
    /// HEADERS of the batch read the connection that had gone.
    @Test func concurrentStreamLimitExceeded_RefusesTheStream_AndTheServerLivesOn() async throws {
        let server = makeHTTP2Server()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            for _ in 0..<5 {
                let socket = try await TestClient.connect(to: address)
                var bytes = HTTP2Frame.preface + HTTP2Frame.settings([(id: 0x4, value: 0)]).bytes
                for index in 0...100 { bytes += get("/missing", streamID: Int32(1 + 2 * index)).bytes }
                try await socket.send(bytes)
                let reader = HTTP2FrameReader()
                try await reader.read(from: socket) { $0.resetCode(201) != nil }
                #expect(reader.resetCode(201) == 0x7, "REFUSED_STREAM")
                try await socket.close()
            }
            try await expectServing(address)
        }
    }

    /// Requests each cancelled at once (HEADERS, RST_STREAM CANCEL) in one write, then a half-close,
    /// answered inline. Four after SETTINGS ACK and GOAWAY(0): each inline answer finds the session
    /// over (GOAWAY both ways) and closes the connection while the next HEADERS of the batch is
    /// still to be handled (8 aborts in 10 before). 5,000 in a row: the connection may end (the
    /// reset rate limit), the process does not (3 in 5).
    @Test(arguments: [(goAwayFirst: true, pairs: 4, connections: 20), (goAwayFirst: false, pairs: 5_000, connections: 3)])
    func requestsAndResetsInOneWrite_TheServerLivesOn(goAwayFirst: Bool, pairs: Int, connections: Int) async throws {
        let server = makeHTTP2Server()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            for _ in 0..<connections {
                let socket = try await TestClient.connect(to: address)
                var bytes = HTTP2Frame.preface + HTTP2Frame.settings().bytes
                if goAwayFirst {
                    bytes += HTTP2Frame.settings(ack: true).bytes + HTTP2Frame(type: HTTP2Frame.Kind.goAway, payload: [0, 0, 0, 0, 0, 0, 0, 0]).bytes
                }
                for index in 0..<pairs {
                    let id = Int32(1 + 2 * index)
                    bytes += get("/hello", streamID: id).bytes
                    bytes += HTTP2Frame(type: HTTP2Frame.Kind.rstStream, streamID: id, payload: [0, 0, 0, 0x8]).bytes
                }
                try await socket.send(bytes)
                try await socket.shutdownWrite()
                _ = try await socket.readUntilClose()
            }
            try await expectServing(address)
        }
    }

    // MARK: Ownership

    /// What a test may know of a connection without keeping it alive.
    private final class WeakProbe: @unchecked Sendable {
        // `@unchecked Sendable`: written and read on the stream's queue only.
        weak var connection: Connection?
        weak var handler: (any ConnectionHandler)?
    }

    /// The connection and its handler hold each other while the stream is open (see
    /// ``Connection``); the close must break that, or every connection would leak. Over HTTP/1.1
    /// and HTTP/2, after requests were served: once the stream closes and the handlers' tasks end,
    /// both are gone.
    @Test(arguments: [false, true]) func closedConnection_IsReleased_WithItsHandler(http2: Bool) async throws {
        var router = Router<Route>()
        try router.register(Route(handler: { _ in Response(status: .ok, body: .init(string: "hello")) }, template: "/hello"), method: .get, path: "/hello")
        var configuration = WhiskerServer.Configuration()
        configuration.http2 = HTTP2Settings()
        let context = ServerContext(router: router, configuration: configuration)
        let stream = try MemoryByteStream()
        let probe = WeakProbe()
        stream.queue.async {
            let connection = Connection(stream: stream, context: context)
            probe.connection = connection
            connection.start()
        }
        if http2 {
            var bytes = HTTP2Frame.preface + HTTP2Frame.settings().bytes
            for id in [1, 3, 5] as [Int32] { bytes += get(id == 5 ? "/missing" : "/hello", streamID: id).bytes }
            stream.send(bytes)
            _ = await stream.received { output in
                let reader = HTTP2FrameReader()
                reader.receive(output)
                return reader.status(1) != nil && reader.status(3) != nil && reader.status(5) != nil
            }
        } else {
            stream.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /missing HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = await stream.received { String(decoding: $0, as: UTF8.self).contains("404") }
        }
        await withCheckedContinuation { continuation in
            stream.queue.async {
                probe.handler = probe.connection?.handler
                #expect(probe.handler != nil)
                continuation.resume()
            }
        }
        stream.sendEnd()
        _ = await stream.receivedUntilClose()
        // Tasks that answered may still be returning: look again after each turn of the queue.
        var released = false
        for _ in 0..<1_000 where !released {
            released = await withCheckedContinuation { continuation in
                stream.queue.async { continuation.resume(returning: probe.connection == nil && probe.handler == nil) }
            }
            if !released { await Task.yield() }
        }
        #expect(released, "the closed connection and its handler were released")
    }
}
