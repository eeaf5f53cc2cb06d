import HTTPTypes
import Testing
@testable import WhiskerHTTP

/// `Range: bytes=` parsed from strings (RFC 9110 §14.1.2), resolved against a length, and the
/// answer a response gives: 206, 416, or the whole 200 with `Accept-Ranges`.
@Suite struct ByteRangesTests {
    // MARK: Parsing

    @Test(arguments: [
        ("bytes=0-499", [ByteRangeSpec.closed(first: 0, last: 499)]),
        ("bytes=500-", [.from(first: 500)]),
        ("bytes=-500", [.suffix(count: 500)]),
        ("BYTES=1-1", [.closed(first: 1, last: 1)]),
        ("  bytes=0-0  ", [.closed(first: 0, last: 0)]),
        ("bytes=0-1, 5-", [.closed(first: 0, last: 1), .from(first: 5)]),
        ("bytes=0-1,,-3", [.closed(first: 0, last: 1), .suffix(count: 3)]),
    ])
    func wellFormedRanges_Parse(value: String, expected: [ByteRangeSpec]) {
        #expect(ByteRangeSpec.parse(value) == expected)
    }

    /// Each of these is not a `bytes` range set; the header is then ignored (the whole 200).
    @Test(arguments: [
        "", "bytes=", "bytes", "items=0-1", "bytes 0-1", "bytes=-", "bytes=1", "bytes=a-b", "bytes=5-1",
        "bytes=+1-2", "bytes=1-+2", "bytes=0x1-2", "bytes=1 -2", "bytes=-1-2", "bytes=99999999999999999999-",
        "bytes=,", "bytes=1-2;x", "bytes=１-2",
    ])
    func malformedRanges_AreNil(value: String) {
        #expect(ByteRangeSpec.parse(value) == nil)
    }

    @Test func resolving_ClampsToTheEnd_AndRefusesWhatSelectsNothing() {
        #expect(ByteRangeSpec.closed(first: 0, last: 499).resolve(length: 100) == 0...99)
        #expect(ByteRangeSpec.closed(first: 100, last: 200).resolve(length: 100) == nil)
        #expect(ByteRangeSpec.from(first: 99).resolve(length: 100) == 99...99)
        #expect(ByteRangeSpec.from(first: 100).resolve(length: 100) == nil)
        #expect(ByteRangeSpec.suffix(count: 10).resolve(length: 100) == 90...99)
        #expect(ByteRangeSpec.suffix(count: 1000).resolve(length: 100) == 0...99)
        #expect(ByteRangeSpec.suffix(count: 0).resolve(length: 100) == nil)
        #expect(ByteRangeSpec.suffix(count: 5).resolve(length: 0) == nil)
    }

    // MARK: Answers

    private func request(_ method: HTTPRequest.Method = .get, _ fields: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: method, scheme: "http", authority: "x", path: "/clip", headerFields: fields)
    }

    private let ok = HTTPResponse(status: .ok, headerFields: [.eTag: "\"v1\"", .lastModified: "Sun, 22 Nov 2026 10:00:00 GMT"])

    @Test func oneRange_Gets206_OtherwiseTheWhole200() {
        #expect(RangeAnswer.decide(request(.get, [.range: "bytes=2-5"]), ok, length: 10) == .partial(2...5, of: 10))
        #expect(RangeAnswer.decide(request(.head, [.range: "bytes=-3"]), ok, length: 10) == .partial(7...9, of: 10), "HEAD mirrors GET")
        #expect(RangeAnswer.decide(request(.get, [.range: "bytes=20-"]), ok, length: 10) == .unsatisfiable(length: 10))
        #expect(RangeAnswer.decide(request(), ok, length: 10) == .whole(advertises: true))
        #expect(RangeAnswer.decide(request(.get, [.range: "bytes=0-1,4-5"]), ok, length: 10) == .whole(advertises: true), "several ranges: the whole")
        #expect(RangeAnswer.decide(request(.get, [.range: "bytes=x"]), ok, length: 10) == .whole(advertises: true), "malformed: ignored")
    }

    @Test func rangesApplyOnlyToA200OfKnownLengthWithoutContentEncoding() {
        let range: HTTPFields = [.range: "bytes=0-1"]
        #expect(RangeAnswer.decide(request(.post, range), ok, length: 10) == .whole(advertises: false))
        #expect(RangeAnswer.decide(request(.get, range), HTTPResponse(status: .notFound), length: 10) == .whole(advertises: false))
        #expect(RangeAnswer.decide(request(.get, range), ok, length: nil) == .whole(advertises: false))
        #expect(RangeAnswer.decide(request(.get, range), HTTPResponse(status: .ok, headerFields: [.contentEncoding: "gzip"]), length: 10) == .whole(advertises: false))
        #expect(RangeAnswer.decide(request(.get, range), HTTPResponse(status: .ok, headerFields: [.acceptRanges: "none"]), length: 10) == .whole(advertises: false))
        #expect(RangeAnswer.decide(request(.get, range), HTTPResponse(status: .partialContent, headerFields: [.contentRange: "bytes 0-1/10"]), length: 2) == .whole(advertises: false), "a handler's own 206 is left alone")
    }

    @Test func ifRange_ThatDoesNotMatch_GetsTheWhole200() {
        func answer(_ ifRange: String) -> RangeAnswer {
            RangeAnswer.decide(request(.get, [.range: "bytes=0-1", .ifRange: ifRange]), ok, length: 10)
        }
        #expect(answer("\"v1\"") == .partial(0...1, of: 10))
        #expect(answer("Sun, 22 Nov 2026 10:00:00 GMT") == .partial(0...1, of: 10))
        #expect(answer("\"v2\"") == .whole(advertises: true))
        #expect(answer("W/\"v1\"") == .whole(advertises: true), "a weak tag never matches (strong comparison)")
        #expect(answer("Sun, 22 Nov 2026 09:59:59 GMT") == .whole(advertises: true))
    }

    @Test func answeringRange_CutsBytesInMemory() {
        let response = Response(status: .ok, headerFields: [.contentType: "video/mp4"], body: .init(bytes: Array(0..<100)))
        let partial = response.answeringRange(of: request(.get, [.range: "bytes=10-19"]))
        #expect(partial.head.status == .partialContent)
        #expect(partial.head.headerFields[.contentRange] == "bytes 10-19/100")
        #expect(partial.head.headerFields[.contentType] == "video/mp4")
        guard case .bytes(let bytes) = partial.body.storage else { Issue.record("not in memory"); return }
        #expect(Array(bytes) == Array(10..<20))

        let refused = response.answeringRange(of: request(.get, [.range: "bytes=100-"]))
        #expect(refused.head.status == .rangeNotSatisfiable)
        #expect(refused.head.headerFields[.contentRange] == "bytes */100")

        let whole = response.answeringRange(of: request())
        #expect(whole.head.status == .ok && whole.head.headerFields[.acceptRanges] == "bytes")
    }

    @Test func answeringRange_CutsAStreamAsItFlows() async throws {
        let chunks: [[UInt8]] = [Array(0..<7), Array(7..<13), Array(13..<30)]
        let response = Response(status: .ok, body: ResponseBody(length: 30) { writer in
            for chunk in chunks { try await writer.write(chunk) }
        })
        let partial = response.answeringRange(of: request(.get, [.range: "bytes=5-14"]))
        guard case .stream(let length, let write) = partial.body.storage else { Issue.record("not streamed"); return }
        #expect(length == 10)
        let collected = CollectingSink()
        try await write(ResponseBodyWriter(sink: collected))
        #expect(await collected.bytes == Array(5...14), "the range, across chunk boundaries, and nothing after it")
        #expect(await collected.writes == 3, "the first chunk's tail, the second whole, the third's head")
    }
}

private actor CollectingSink: ResponseBodySink {
    var bytes: [UInt8] = []
    var writes = 0

    func writeBodyChunk(_ chunk: ArraySlice<UInt8>) async throws {
        bytes += chunk
        writes += 1
    }
}
