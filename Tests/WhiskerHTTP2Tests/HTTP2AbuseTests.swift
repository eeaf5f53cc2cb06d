import HTTPTypes
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerTesting

/// HTTP/2 as a hostile client drives it, with exact frames written by hand: header blocks that
/// decode far past their size on the wire, streams left open or starved of window, authorities
/// that HTTP/1.1 would refuse, and response bodies that break their own Content-Length. Each
/// crashed the server, pinned it or grew its memory before it was fixed.
@Suite struct HTTP2AbuseTests {
    /// A connection with the preface and empty SETTINGS sent, and a reader for what comes back.
    private func connect(to address: SocketAddress, settings: [(id: UInt16, value: UInt32)] = []) async throws -> (TestClient, HTTP2FrameReader) {
        let socket = try await TestClient.connect(to: address)
        try await socket.send(HTTP2Frame.preface + HTTP2Frame.settings(settings).bytes)
        return (socket, HTTP2FrameReader())
    }

    private func send(_ frames: [HTTP2Frame], over socket: TestClient) async throws {
        try await socket.send(frames.flatMap(\.bytes))
    }

    private func get(_ path: String, streamID: Int32) -> HTTP2Frame {
        HTTP2Frame.headers(streamID: streamID, block: HPACK.request(path: path), endStream: true)
    }

    /// Stream 1's response and then a `GET /hello` on stream 3, which shows the connection (and
    /// the process) still serving.
    private func expectServedOn(_ socket: TestClient, _ reader: HTTP2FrameReader) async throws {
        try await send([get("/hello", streamID: 3)], over: socket)
        try await reader.read(from: socket) { $0.body(3).count == 5 }
        #expect(reader.status(3) == "200")
    }

    // MARK: Header lists (HPACK expansion)

    /// Sends a header block on stream 1 (split into CONTINUATIONs as needed) and expects 431,
    /// then a served request on the same connection.
    private func expect431(for block: [UInt8], frameCount: Int) async throws {
        let server = makeHTTP2Server()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let (socket, reader) = try await connect(to: address)
            let frames = HTTP2Frame.headerBlock(streamID: 1, block: block, endStream: true)
            #expect(frames.count == frameCount)
            try await send(frames, over: socket)
            try await reader.read(from: socket) { $0.status(1) != nil }
            #expect(reader.status(1) == "431")
            try await expectServedOn(socket, reader)
        }
    }

    /// 65,600 one-byte references to one dynamic-table entry: 66 KB on the wire in HEADERS and
    /// four CONTINUATIONs. HTTPFields traps past 65,535 fields, so this killed the process; then
    /// each field was validated and counted to the end (431). Now decoding stops 25 % past the
    /// 100-field limit and the connection ends (GOAWAY ENHANCE_YOUR_CALM); the server serves on.
    @Test func manyOneByteFields_EndTheConnection_AndTheServerServesOn() async throws {
        let block = HPACK.request(path: "/hello") + HPACK.literalIndexed("a", "b") + Array(repeating: HPACK.indexed(62)[0], count: 65_600)
        let server = makeHTTP2Server()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let (socket, reader) = try await connect(to: address)
            let frames = HTTP2Frame.headerBlock(streamID: 1, block: block, endStream: true)
            #expect(frames.count == 5)
            try await send(frames, over: socket)
            try await reader.read(from: socket) { _ in false }  // until the server closes
            #expect(reader.frames(ofType: HTTP2Frame.Kind.goAway).last?.errorCode == 11, "ENHANCE_YOUR_CALM")
            #expect(reader.status(1) == nil)
            let (next, nextReader) = try await connect(to: address)
            try await expectServedOn(next, nextReader)
        }
    }

    /// 21 references to a 4,000-byte entry: 4 KB on the wire, 89 KB decoded, past the 80 KiB
    /// header list the server announces but within a quarter of it: a near miss, answered 431
    /// (a 16 KB frame of them decodes to 65 MB and ends the connection: HTTP2HeaderBudgetTests).
    @Test func headerListDecodingPastTheLimit_Gets431() async throws {
        let block = HPACK.request(path: "/hello") + HPACK.literalIndexed("x-big", String(repeating: "v", count: 4000))
            + Array(repeating: HPACK.indexed(62)[0], count: 21)
        try await expect431(for: block, frameCount: 1)
    }

    /// The same field-count limit as HTTP/1.1 (``WhiskerServer/Limits/maxHeaderCount``, 100):
    /// 100 fields are served, 101 get 431.
    @Test func fieldCount_IsLimitedAsInHTTP1() async throws {
        let server = makeHTTP2Server()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let (socket, reader) = try await connect(to: address)
            func fields(_ count: Int) -> [(String, String)] { (1...count).map { ("x-field-\($0)", "v") } }
            try await send([
                .headers(streamID: 1, block: HPACK.request(path: "/hello", fields: fields(100)), endStream: true),
                .headers(streamID: 3, block: HPACK.request(path: "/hello", fields: fields(101)), endStream: true),
            ], over: socket)
            try await reader.read(from: socket) { $0.status(1) != nil && $0.status(3) != nil }
            #expect(reader.status(1) == "200")
            #expect(reader.status(3) == "431")
        }
    }

    // MARK: Stream identifiers

    /// h2spec 5.1.1 #2: HEADERS on stream 5, then on stream 3 (lower, never opened): a connection
    /// error, GOAWAY(PROTOCOL_ERROR) naming stream 5, then the connection closes. Before, stream 3
    /// was served.
    @Test func streamIDLowerThanAnEarlierOne_IsAConnectionError() async throws {
        let server = makeHTTP2Server()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let (socket, reader) = try await connect(to: address)
            try await send([get("/hello", streamID: 5), get("/hello", streamID: 3)], over: socket)
            try await reader.read(from: socket) { _ in false }  // until the server closes
            let goAway = try #require(reader.frames(ofType: HTTP2Frame.Kind.goAway).last)
            #expect(goAway.errorCode == 1, "PROTOCOL_ERROR")
            #expect(goAway.lastStreamID == 5, "the last stream processed")
            #expect(reader.status(3) == nil)
            #expect(reader.isClosed)
        }
    }

    // MARK: Streams that would stay open

    /// HEADERS without END_STREAM and then nothing: the handler waits for a body that does not
    /// come. After the request-body timeout: 408, and the stream is reset (NO_ERROR) because the
    /// request side is still open.
    @Test func headersWithoutABody_Get408_AfterTheBodyTimeout() async throws {
        let server = makeHTTP2Server { $0.timeouts.requestBody = .seconds(1) }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let (socket, reader) = try await connect(to: address)
            try await send([.headers(streamID: 1, block: HPACK.request(method: "POST", path: "/echo"), endStream: false)], over: socket)
            try await reader.read(from: socket) { $0.resetCode(1) != nil }
            #expect(reader.status(1) == "408")
            #expect(reader.resetCode(1) == 0)
            try await expectServedOn(socket, reader)
        }
    }

    /// A response complete before its request body is: the stream stays open and the body is
    /// read and dropped (as HTTP/1.1 drains it), until it stalls for the request-body timeout;
    /// then RST_STREAM(NO_ERROR) right after the response's END_STREAM (RFC 9113 §8.1).
    /// A body trickled in 10-byte DATA frames every 50 ms (200 bytes/s) against a minimum of
    /// 1,000 bytes/s after 0.3 s: 408 on the stream long before the 30 s stall timeout, and the
    /// connection serves on.
    @Test func slowBody_Gets408_AfterTheGracePeriod() async throws {
        let server = makeHTTP2Server {
            $0.limits.minRequestBodyRate = MinimumDataRate(bytesPerSecond: 1_000, gracePeriod: .milliseconds(300))
        }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let (socket, reader) = try await connect(to: address)
            let head = HPACK.request(method: "POST", path: "/echo", fields: [("content-length", "100000")])
            try await send([.headers(streamID: 1, block: head, endStream: false)], over: socket)
            let started = ContinuousClock.now
            for _ in 0..<100 {
                try await send([.data(streamID: 1, bytes: Array(repeating: 0x61, count: 10), endStream: false)], over: socket)
                if try await socket.hasBytesToRead() {
                    reader.receive(try await socket.receiveSome())
                    if reader.status(1) != nil { break }
                }
                try await Task.sleep(for: .milliseconds(50))  // the slow client's pace, not a synchronisation
            }
            #expect(reader.status(1) == "408")
            #expect(ContinuousClock.now - started < .seconds(5))
            try await expectServedOn(socket, reader)
        }
    }

    @Test func responseBeforeTheBodyEnds_DrainsIt_ThenStopsItWhenItStalls() async throws {
        let server = makeHTTP2Server { $0.timeouts.requestBody = .milliseconds(500) }
        try server.register(method: .post, path: "/ignore") { _ in Response(status: .ok, body: .init(string: "ignored")) }
        try await server.withRunning { address in
            let (socket, reader) = try await connect(to: address)
            // Before sending: the server cannot see the body's last bytes earlier than this, however
            // late this task resumes after the send on a loaded machine.
            let start = ContinuousClock.now
            try await send([
                .headers(streamID: 1, block: HPACK.request(method: "POST", path: "/ignore"), endStream: false),
                .data(streamID: 1, bytes: Array(repeating: 7, count: 1000), endStream: false),
            ], over: socket)
            try await reader.read(from: socket) { $0.resetCode(1) != nil }
            #expect(ContinuousClock.now - start >= .milliseconds(400), "not before the body stalled")
            #expect(reader.status(1) == "200")
            #expect(reader.body(1) == Array("ignored".utf8))
            let stream1 = reader.frames.filter { $0.streamID == 1 }
            #expect(stream1.last?.type == HTTP2Frame.Kind.rstStream && stream1.last?.errorCode == 0)
            #expect(stream1.dropLast().last?.has(HTTP2Frame.Flag.endStream) == true, "the reset follows the response's END_STREAM")
        }
    }

    /// A client that goes on sending after the early response is asked to stop (NO_ERROR) once
    /// more than 256 KiB were dropped; before that, the window it sends into is given back.
    @Test func responseBeforeTheBodyEnds_StopsABodyPastTheDrainAllowance() async throws {
        let server = makeHTTP2Server()
        try registerBasicRoutes(on: server)
        try server.register(method: .post, path: "/ignore") { _ in Response(status: .ok, body: .init(string: "ignored")) }
        try await server.withRunning { address in
            let (socket, reader) = try await connect(to: address)
            let chunk = [UInt8](repeating: 7, count: 16_000)
            try await send([.headers(streamID: 1, block: HPACK.request(method: "POST", path: "/ignore"), endStream: false)]
                + Array(repeating: .data(streamID: 1, bytes: chunk, endStream: false), count: 12), over: socket)
            // 192 KB in: the stream's window is given back as they are dropped.
            try await reader.read(from: socket) { reader in reader.frames.contains { $0.type == HTTP2Frame.Kind.windowUpdate && $0.streamID == 1 } }
            #expect(reader.resetCode(1) == nil, "still draining")
            try await send(Array(repeating: .data(streamID: 1, bytes: chunk, endStream: false), count: 6), over: socket)
            try await reader.read(from: socket) { $0.resetCode(1) != nil }
            #expect(reader.resetCode(1) == 0)
            try await expectServedOn(socket, reader)
        }
    }

    /// h2spec 6.9 #2, 5.1 #8 and others send HEADERS, then (in another write) a bad frame on the
    /// stream. A handler that answered at once used to reset the stream right away, so the bad
    /// frame met a closed stream and was ignored, and h2spec failed depending on how its writes
    /// arrived. Draining keeps the stream open: the frame gets its error.
    @Test func badFrameAfterAnEarlyResponse_GetsItsError() async throws {
        let server = makeHTTP2Server()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let (socket, reader) = try await connect(to: address)
            try await send([.headers(streamID: 1, block: HPACK.request(path: "/hello"), endStream: false)], over: socket)
            try await reader.read(from: socket) { $0.body(1).count == 5 }
            let zeroIncrement = HTTP2Frame(type: HTTP2Frame.Kind.windowUpdate, streamID: 1, payload: [0, 0, 0, 0])
            try await send([zeroIncrement], over: socket)
            try await reader.read(from: socket) { $0.resetCode(1) != nil || !$0.frames(ofType: HTTP2Frame.Kind.goAway).isEmpty }
            let goAway = reader.frames(ofType: HTTP2Frame.Kind.goAway).first
            #expect(reader.resetCode(1) == 1 || goAway?.errorCode == 1, "PROTOCOL_ERROR, as a stream or connection error")
        }
    }

    /// Uploads to a handler that never reads them, through a 64 KiB connection window: each
    /// stream's unread bytes go back to the connection when it closes, so the upload after them
    /// still gets through (with the window leaked, it would wait forever).
    @Test func unreadBodies_GiveTheirWindowBack() async throws {
        let server = makeHTTP2Server {
            $0.http2?.initialStreamWindowSize = 65_535
            $0.http2?.connectionWindowSize = 65_535
        }
        try registerBasicRoutes(on: server)
        try server.register(method: .post, path: "/ignore") { _ in Response(status: .ok, body: .init(string: "ignored")) }
        try await server.withRunning { address in
            let socket = try await TestClient.connect(to: address)
            let h2 = HTTP2TestClient()
            for _ in 0..<3 {
                let ignored = h2.request(method: "POST", path: "/ignore", body: [UInt8](repeating: 1, count: 200_000))
                try await h2.exchange(over: socket) { $0.closed[ignored] != nil }
                #expect(h2.status(ignored) == "200")
                #expect(h2.closed[ignored] == 0, "drained to its end: closed without an error")
            }
            let upload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            let echoed = h2.request(method: "POST", path: "/echo", body: upload)
            try await h2.exchange(over: socket) { $0.closed[echoed] != nil }
            #expect(h2.bodies[echoed] == upload)
        }
    }

    /// A client that announces a stream window of 0 and never opens it: the response cannot be
    /// sent, and after the write timeout the stream is reset (CANCEL) instead of held forever.
    @Test func zeroWindow_ResetsTheStream_AfterTheWriteTimeout() async throws {
        let server = makeHTTP2Server { $0.timeouts.write = .seconds(1) }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let (socket, reader) = try await connect(to: address, settings: [(id: 0x4, value: 0)])  // INITIAL_WINDOW_SIZE
            try await send([get("/hello", streamID: 1)], over: socket)
            try await reader.read(from: socket) { $0.resetCode(1) != nil }
            #expect(reader.status(1) == "200")
            #expect(reader.body(1).isEmpty)
            #expect(reader.resetCode(1) == 8)
        }
    }

    /// `Upgrade: h2c` answered with 101, then no preface: the upgraded request's response is
    /// held for the preface, and the connection closes after the request-header timeout.
    @Test func upgradeWithoutAPreface_IsClosed_AfterTheHeaderTimeout() async throws {
        let server = makeHTTP2Server {
            $0.timeouts.requestHeader = .seconds(1)
            $0.acceptsH2CUpgrade = true
        }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let socket = try await TestClient.connect(to: address)
            try await socket.send(
                "GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                    + "HTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n")
            var received: [UInt8] = []
            while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") { received += try await socket.receiveSome() }
            #expect(String(decoding: received, as: UTF8.self).hasPrefix("HTTP/1.1 101"))
            #expect(try await socket.isClosedByServer())
        }
    }

    // MARK: Authority

    /// `:authority` and `host` get the checks HTTP/1.1's Host gets; a host that names another
    /// authority than `:authority` is malformed (RFC 9113 §8.3.1). What nghttp2 already refuses
    /// (characters no authority has) is reset with PROTOCOL_ERROR before it reaches the server:
    /// `refusedBy` says which answer each case gets.
    @Test(arguments: [
        (authority: "user@example.com", host: nil, refusedBy: "400"),
        (authority: "a,b", host: nil, refusedBy: "400"),
        (authority: "example.com:80:80", host: nil, refusedBy: "400"),
        (authority: nil, host: "user@example.com", refusedBy: "400"),
        (authority: "example.com", host: "other.example", refusedBy: "400"),
        (authority: "example.com/evil", host: nil, refusedBy: "nghttp2"),
        (authority: nil, host: "exa mple.com", refusedBy: "nghttp2"),
    ] as [(authority: String?, host: String?, refusedBy: String)])
    func invalidAuthority_IsRefused(authority: String?, host: String?, refusedBy: String) async throws {
        let server = makeHTTP2Server()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let (socket, reader) = try await connect(to: address)
            let block = HPACK.request(path: "/hello", authority: authority, fields: host.map { [("host", $0)] } ?? [])
            try await send([.headers(streamID: 1, block: block, endStream: true)], over: socket)
            try await reader.read(from: socket) { $0.status(1) != nil || $0.resetCode(1) != nil }
            if refusedBy == "400" {
                #expect(reader.status(1) == "400")
            } else {
                #expect(reader.status(1) == nil)
                #expect(reader.resetCode(1) == 1, "PROTOCOL_ERROR")
            }
            try await expectServedOn(socket, reader)
        }
    }

    @Test func hostWithoutAuthority_IsTheRequestsAuthority() async throws {
        let server = makeHTTP2Server()
        try server.register(method: .get, path: "/authority") { request in
            Response(status: .ok, body: .init(string: request.head.authority ?? "none"))
        }
        try await server.withRunning { address in
            let (socket, reader) = try await connect(to: address)
            try await send([
                .headers(streamID: 1, block: HPACK.request(path: "/authority", authority: nil, fields: [("host", "example.com:8080")]), endStream: true),
                .headers(streamID: 3, block: HPACK.request(path: "/authority", authority: "Example.com", fields: [("host", "example.COM")]), endStream: true),
            ], over: socket)
            try await reader.read(from: socket) { $0.body(1).count == 16 && $0.body(3).count == 11 }
            #expect(reader.body(1) == Array("example.com:8080".utf8))
            #expect(reader.body(3) == Array("Example.com".utf8), "the same authority in another case is not a conflict")
        }
    }

    // MARK: Response bodies against their Content-Length

    /// A streamed body longer or shorter than the Content-Length its head declared is reset
    /// (INTERNAL_ERROR) by the server, as HTTP/1.1 closes the connection; the extra bytes never leave.
    @Test func streamedBodyBreakingItsContentLength_IsResetByTheServer() async throws {
        let server = makeHTTP2Server()
        try server.register(method: .get, path: "/long") { _ in
            Response(status: .ok, body: ResponseBody(length: 10) { writer in
                try await writer.write(Array(repeating: UInt8(ascii: "a"), count: 6))
                try await writer.write(Array(repeating: UInt8(ascii: "b"), count: 6))
            })
        }
        try server.register(method: .get, path: "/short") { _ in
            Response(status: .ok, body: ResponseBody(length: 10) { writer in
                try await writer.write(Array(repeating: UInt8(ascii: "a"), count: 5))
            })
        }
        try await server.withRunning { address in
            let (socket, reader) = try await connect(to: address)
            try await send([get("/long", streamID: 1), get("/short", streamID: 3)], over: socket)
            try await reader.read(from: socket) { $0.resetCode(1) != nil && $0.resetCode(3) != nil }
            #expect(reader.resetCode(1) == 2)
            #expect(reader.resetCode(3) == 2)
            #expect(reader.body(1).count <= 10)
            #expect(reader.body(3).count == 5)
            #expect(!reader.frames.contains { $0.type == HTTP2Frame.Kind.data && $0.has(HTTP2Frame.Flag.endStream) }, "neither body looks complete")
        }
    }
}
