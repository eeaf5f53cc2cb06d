import HTTPTypes
import Synchronization
import Testing
import WhiskerCore
import WhiskerTesting

/// Streams the server resets because the client broke a stream's rules (MadeYouReset,
/// CVE-2025-8671): a WINDOW_UPDATE that overflows the stream's window, one with increment 0, DATA
/// after END_STREAM. Each reset must end its handler at once (its memory with it), and a client
/// that makes the server reset streams faster than the allowed rate loses the connection
/// (GOAWAY ENHANCE_YOUR_CALM), as one that resets them itself does (rapid reset, CVE-2023-44487).
@Suite(.timeLimit(.minutes(1))) struct HTTP2ResetTests {
    /// Handlers of an endless event stream: counts those started and those ended.
    private final class EventStreams: Sendable {
        let started = Atomic<Int>(0)
        let ended = Signal<Void>()

        var handler: HTTPHandler {
            { [self] _ in
                started.add(1, ordering: .relaxed)
                return Response(status: .ok, headerFields: [.contentType: "text/event-stream"], body: .init(length: nil) { [self] writer in
                    defer { ended.fire() }
                    while true {
                        try await writer.write(Array("data: tick\n\n".utf8))
                        try await Task.sleep(for: .milliseconds(50))
                    }
                })
            }
        }
    }

    /// A server whose `/events` are `streams`' handlers, and a connection to it with the preface sent.
    private func withEventStreams(_ body: @Sendable (EventStreams, TestClient) async throws -> Void) async throws {
        let streams = EventStreams()
        let server = makeHTTP2Server()
        try server.register(method: .get, path: "/events", handler: streams.handler)
        try await server.withRunning { address in
            let socket = try await TestClient.connect(to: address)
            try await socket.send(HTTP2Frame.preface + HTTP2Frame.settings().bytes)
            try await body(streams, socket)
        }
    }

    private func windowUpdate(streamID: Int32, increment: UInt32) -> HTTP2Frame {
        HTTP2Frame(type: HTTP2Frame.Kind.windowUpdate, streamID: streamID, payload: [UInt8(increment >> 24), UInt8(increment >> 16 & 0xff), UInt8(increment >> 8 & 0xff), UInt8(increment & 0xff)])
    }

    private func get(_ path: String, streamID: Int32) -> HTTP2Frame {
        HTTP2Frame.headers(streamID: streamID, block: HPACK.request(path: path), endStream: true)
    }

    /// Ways a client makes the server reset a stream right after opening it.
    enum Provocation: String, CaseIterable, Sendable {
        case windowOverflow, zeroIncrement, dataAfterEndStream

        func frames(_ id: Int32, _ test: HTTP2ResetTests) -> [HTTP2Frame] {
            switch self {
            case .windowOverflow: [test.windowUpdate(streamID: id, increment: 0x7fff_ffff)]
            case .zeroIncrement: [test.windowUpdate(streamID: id, increment: 0)]
            case .dataAfterEndStream: [HTTP2Frame.data(streamID: id, bytes: [1], endStream: false)]
            }
        }
    }

    /// 50 event streams opened, each provoked into a reset in the same write. A stream error (an
    /// overflowing window) resets the stream; nghttp2 takes the others for connection errors
    /// (GOAWAY). Either way every handler that started ends: 200 of 200 went on streaming to
    /// nobody for 10 s and more before, and streams reset before their handler started never
    /// ended at all.
    @Test(arguments: Provocation.allCases) func serverReset_EndsTheHandler(provocation: Provocation) async throws {
        try await withEventStreams { streams, socket in
            var bytes: [UInt8] = []
            let ids = (0..<50).map { Int32(1 + 2 * $0) }
            for id in ids { bytes += (get("/events", streamID: id).bytes + provocation.frames(id, self).flatMap(\.bytes)) }
            try await socket.send(bytes)
            let reader = HTTP2FrameReader()
            try await reader.read(from: socket) { reader in reader.isClosed || ids.allSatisfy { reader.resetCode($0) != nil } }
            if provocation == .windowOverflow {
                #expect(ids.allSatisfy { reader.resetCode($0) == 0x3 }, "FLOW_CONTROL_ERROR on every stream")
            } else {
                #expect(reader.frames(ofType: HTTP2Frame.Kind.goAway).last.map { $0.errorCode != 0 } == true, "a connection error")
            }
            let started = streams.started.load(ordering: .relaxed)
            #expect(started >= 1)
            for index in 0..<started {
                let ended: Void? = await streams.ended.wait()
                #expect(ended != nil, "handler \(index + 1) of \(started) ended after its stream was reset")
                if ended == nil { break }
            }
            try await socket.close()
        }
    }

    /// Who resets the streams: the client itself (rapid reset, CVE-2023-44487, counted by
    /// nghttp2), or the server because the client broke the stream's window (MadeYouReset).
    enum Resetter: String, CaseIterable, Sendable {
        case client, server
    }

    /// Thousands of streams opened and reset at once, 50 in flight at a time as an attacker under
    /// the concurrency limit does: past the allowed burst the connection ends with
    /// GOAWAY(ENHANCE_YOUR_CALM), so the client gets a bounded number of handler runs (50,000
    /// server resets before, on one connection, with no GOAWAY).
    @Test(arguments: Resetter.allCases) func resetsPastTheRate_EndTheConnection_WithEnhanceYourCalm(resetter: Resetter) async throws {
        try await withEventStreams { streams, socket in
            let reader = HTTP2FrameReader()
            var next: Int32 = 1
            var rounds = 0
            let started = ContinuousClock.now
            while !reader.isClosed, reader.frames(ofType: HTTP2Frame.Kind.goAway).isEmpty, rounds < 100 {
                rounds += 1
                var bytes: [UInt8] = []
                for _ in 0..<50 {
                    let reset = switch resetter {
                    case .client: HTTP2Frame(type: HTTP2Frame.Kind.rstStream, streamID: next, payload: [0, 0, 0, 0x8])
                    case .server: windowUpdate(streamID: next, increment: 0x7fff_ffff)
                    }
                    bytes += get("/events", streamID: next).bytes + reset.bytes
                    next += 2
                }
                do { try await socket.send(bytes) } catch { break }
                // The client's own resets are not answered: a PING after them marks the round's end.
                try await socket.send(HTTP2Frame(type: HTTP2Frame.Kind.ping, payload: Array(repeating: UInt8(rounds & 0xff), count: 8)).bytes)
                try await reader.read(from: socket) { reader in
                    reader.isClosed || !reader.frames(ofType: HTTP2Frame.Kind.goAway).isEmpty
                        || reader.frames(ofType: HTTP2Frame.Kind.ping).count >= rounds
                }
            }
            try await reader.read(from: socket) { $0.isClosed }
            let goAway = try #require(reader.frames(ofType: HTTP2Frame.Kind.goAway).last, "a GOAWAY before the close")
            #expect(goAway.errorCode == 0xb, "ENHANCE_YOUR_CALM")
            #expect(String(decoding: goAway.payload.dropFirst(8), as: UTF8.self).contains("reset by the \(resetter.rawValue)"), "the GOAWAY says why")
            // The burst (1,000) and its refill (33 a second) while the rounds lasted, which a loaded
            // machine stretches, and the 50 in flight of the last round.
            let seconds = Int((ContinuousClock.now - started).components.seconds) + 1
            let runs = streams.started.load(ordering: .relaxed)
            #expect(runs <= 1_100 + 33 * seconds, "handler runs are bounded by the allowed burst and its refill: \(runs) in \(seconds) s")
            #expect(rounds < 100, "the connection ended within 5,000 streams")
            #expect(reader.isClosed)
        }
    }
}
