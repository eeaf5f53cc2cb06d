import CNGHTTP2
import HTTPTypes
import Testing
import WhiskerCore
import WhiskerTesting
@testable import WhiskerHTTP2

@Suite struct HTTP2SessionTests {
    @Test func request_ArrivesAsOneEvent_WithItsPseudoHeaders() throws {
        let client = HTTP2TestClient()
        let server = try HTTP2Session(settings: HTTP2Settings())
        let id = client.request(path: "/api/emoji?count=3")
        let events = try exchange(client, server)
        let requests = events.compactMap { event -> HTTP2RequestFields? in
            if case .request(id, let fields, true) = event { fields } else { nil }
        }
        #expect(requests.count == 1)
        #expect(requests.first?.path == "/api/emoji?count=3")
        #expect(requests.first?.method == "GET")
    }

    /// The session builds a request's fields as nghttp2 decodes them: pseudo-header fields apart,
    /// `host` apart (checked against `:authority`), every other field in `HTTPFields`, in order,
    /// values longer than a small string's 15 bytes whole.
    @Test func requestFields_AreBuiltFromTheDecodedBytes_HostApart() throws {
        let client = HTTP2TestClient()
        let server = try HTTP2Session(settings: HTTP2Settings())
        let agent = "a-user-agent-longer-than-fifteen-bytes/1.0"
        let id = client.request(path: "/pets?limit=2", headers: [("user-agent", agent), ("host", "localhost"), ("accept", "*/*"), ("x-b", "2")])
        let events = try exchange(client, server)
        let fields = try #require(events.compactMap { event -> HTTP2RequestFields? in
            if case .request(id, let fields, true) = event { fields } else { nil }
        }.first)
        #expect(fields.method == "GET" && fields.scheme == "http" && fields.authority == "localhost" && fields.path == "/pets?limit=2")
        #expect(fields.host == "localhost" && !fields.hasSecondHost)
        #expect(fields.headerFields.map(\.name.canonicalName) == ["user-agent", "accept", "x-b"])
        #expect(fields.headerFields[.userAgent] == agent)
        var known: String?
        let request = try #require(try HTTP2RequestHead.parse(fields, validAuthority: &known))
        #expect(request.method == .get && request.path == "/pets?limit=2" && request.authority == "localhost")
        #expect(request.headerFields.count == 3 && request.headerFields[.accept] == "*/*")
    }

    /// A second `host` is refused (400) as HTTP/1.1 refuses a second Host line; one `host`
    /// stands in for a missing `:authority`.
    @Test func requestHead_SecondHostIsRefused_OneHostIsTheAuthority() throws {
        var known: String?
        var twice = HTTP2RequestFields()
        var once = HTTP2RequestFields()
        for (name, value) in [(":method", "GET"), (":scheme", "http"), (":path", "/"), ("host", "example.com")] {
            twice.append(name, value)
            once.append(name, value)
        }
        twice.append("host", "example.com")
        #expect(throws: HTTPRejection.badRequest("more than one Host header")) { try HTTP2RequestHead.parse(twice, validAuthority: &known) }
        let request = try #require(try HTTP2RequestHead.parse(once, validAuthority: &known))
        #expect(request.authority == "example.com" && request.headerFields.isEmpty)
        // No `:method` (or one that is no token): not a request, the stream is reset.
        var noMethod = HTTP2RequestFields()
        noMethod.append(":path", "/")
        #expect(try HTTP2RequestHead.parse(noMethod, validAuthority: &known) == nil)
        var badMethod = once
        badMethod.append(":method", "G T")
        #expect(try HTTP2RequestHead.parse(badMethod, validAuthority: &known) == nil)
    }

    /// A connection remembers the last `:authority` it found valid and compares the next with it
    /// rather than checking it again; one that differs is checked (and refused when invalid) as
    /// the first was, and does not replace the remembered one.
    @Test func requestHead_AuthorityCheckedOnceAConnection_AnotherOneCheckedAgain() throws {
        func fields(authority: String) -> HTTP2RequestFields {
            var fields = HTTP2RequestFields()
            for (name, value) in [(":method", "GET"), (":scheme", "https"), (":authority", authority), (":path", "/a")] { fields.append(name, value) }
            return fields
        }
        var known: String?
        #expect(try HTTP2RequestHead.parse(fields(authority: "example.com:8443"), validAuthority: &known)?.authority == "example.com:8443")
        #expect(known == "example.com:8443")
        #expect(throws: HTTPRejection.badRequest("invalid :authority \"user@example.com\"")) {
            try HTTP2RequestHead.parse(fields(authority: "user@example.com"), validAuthority: &known)
        }
        #expect(known == "example.com:8443")
        #expect(try HTTP2RequestHead.parse(fields(authority: "example.com:8443"), validAuthority: &known) != nil)
        #expect(try HTTP2RequestHead.parse(fields(authority: "other.example"), validAuthority: &known) != nil)
        #expect(known == "other.example")
    }

    @Test func responseBody_FarPastTheInitialWindow_ArrivesWhole_AndChunksCompleteAsFramed() throws {
        let client = HTTP2TestClient()
        let server = try HTTP2Session(settings: HTTP2Settings())
        let id = client.request(path: "/clip")
        _ = try exchange(client, server)
        let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try server.respond(streamID: id, status: 200, fields: [("content-type", "video/mp4")], hasBody: true)
        var completed = 0
        for start in stride(from: 0, to: body.count, by: 60_000) {
            server.send(streamID: id, bytes: body[start..<min(start + 60_000, body.count)], endStream: false) { completed += 1 }
        }
        server.send(streamID: id, bytes: [], endStream: true, completion: nil)
        _ = try exchange(client, server, rounds: 200)
        #expect(client.status(id) == "200")
        #expect(client.bodies[id] == body, "300 KB through a 65,535-byte initial window, as the client opened it")
        #expect(completed == 5)
        #expect(client.closed[id] == 0)
    }

    @Test func responseHeads_BuiltInTheSessionsReusedList_CarryOnlyTheirOwnFields() throws {
        let client = HTTP2TestClient()
        let server = try HTTP2Session(settings: HTTP2Settings())
        let first = client.request(path: "/a")
        let second = client.request(path: "/b")
        _ = try exchange(client, server)
        try server.respond(streamID: first, hasBody: false) { headers in
            headers.append(":status", "200")
            headers.append("content-type", "text/plain")
            headers.append("etag", "\"first\"")
        }
        try server.respond(streamID: second, hasBody: true) { headers in
            headers.append(":status", "404")
        }
        server.send(streamID: second, bytes: Array("gone".utf8)[...], endStream: true, completion: nil)
        _ = try exchange(client, server)
        #expect(client.headers[first]?.map { "\($0.0): \($0.1)" } == [":status: 200", "content-type: text/plain", "etag: \"first\""])
        #expect(client.headers[second]?.map { "\($0.0): \($0.1)" } == [":status: 404"], "nothing left over from the head built before")
        #expect(client.bodies[second] == Array("gone".utf8))
        #expect(client.closed[first] == 0 && client.closed[second] == 0)
    }

    @Test func requestBody_IsHeldToTheStreamWindow_UntilConsumed() throws {
        var settings = HTTP2Settings()
        settings.initialStreamWindowSize = 64 * 1024
        let client = HTTP2TestClient()
        let server = try HTTP2Session(settings: settings)
        let upload = [UInt8](repeating: 0x41, count: 300_000)
        let id = client.request(method: "PUT", path: "/upload", body: upload)
        func received(_ events: [HTTP2Session.Event]) -> Int {
            events.reduce(0) { total, event in if case .data(id, let bytes) = event { total + bytes.count } else { total } }
        }
        var total = received(try exchange(client, server))
        #expect(total > 0 && total <= 64 * 1024, "without consume the client may send one window: \(total)")
        var ended = false
        for _ in 0..<100 where !ended {
            server.consume(streamID: id, count: total)
            let events = try exchange(client, server)
            let more = received(events)
            ended = events.contains { if case .endStream(id) = $0 { true } else { false } }
            #expect(more <= 64 * 1024)
            total += more
            server.consume(streamID: id, count: more)
        }
        #expect(ended)
    }

    @Test func clientReset_ClosesTheStream_WithItsErrorCode() throws {
        let client = HTTP2TestClient()
        let server = try HTTP2Session(settings: HTTP2Settings())
        let id = client.request(path: "/slow")
        _ = try exchange(client, server)
        client.cancel(id)
        let events = try exchange(client, server)
        #expect(events.contains { if case .streamClosed(id, UInt32(NGHTTP2_CANCEL.rawValue)) = $0 { true } else { false } })
    }

    @Test func goAway_ReachesTheClient() throws {
        let client = HTTP2TestClient()
        let server = try HTTP2Session(settings: HTTP2Settings())
        client.request(path: "/")
        _ = try exchange(client, server)
        server.goAway()
        _ = try exchange(client, server)
        #expect(client.goAwayReceived)
    }

    @Test func bytesThatAreNotAPreface_AreAConnectionError() throws {
        let server = try HTTP2Session(settings: HTTP2Settings())
        let garbage = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        #expect(throws: HTTP2Error.self) { try garbage.withUnsafeBytes { try server.receive($0) } }
    }

    @Test func tooManyConcurrentStreams_AreRefused() throws {
        var settings = HTTP2Settings()
        settings.maxConcurrentStreams = 2
        let client = HTTP2TestClient()
        let server = try HTTP2Session(settings: settings)
        _ = try exchange(client, server)  // the client learns the limit
        let ids = (0..<4).map { _ in client.request(path: "/") }
        let events = try exchange(client, server)
        let started = events.filter { if case .request = $0 { true } else { false } }.count
        #expect(started == 2, "nghttp2 client queues past the peer's limit; the server sees at most 2")
        #expect(ids.count == 4)
    }
}
