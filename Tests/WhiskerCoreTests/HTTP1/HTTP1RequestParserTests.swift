import HTTPTypes
import Testing
@testable import WhiskerCore
import WhiskerSockets

/// Tier 1: the HTTP/1.1 request parser fed exact wire bytes from strings. Each rejection says
/// why the odd input matters; most of them are request-smuggling or desync vectors, where a
/// lenient server and a proxy in front of it would disagree on where a request ends.
@Suite struct HTTP1RequestParserTests {
    // MARK: Accepted requests

    @Test func simpleGet_ParsesMethodPathAuthorityAndNoBody() throws {
        let requests = try parse("GET /pets?limit=2&tag=a%20b HTTP/1.1\r\nHost: example.com\r\n\r\n")
        let request = try #require(requests.only)
        #expect(request.head.request.method == .get)
        #expect(request.head.request.scheme == "http")
        #expect(request.head.request.authority == "example.com")
        #expect(request.head.request.path == "/pets?limit=2&tag=a%20b")
        #expect(request.head.isHTTP11)
        #expect(request.head.framing == .none)
        #expect(request.head.keepAlive)
        #expect(!request.head.expectsContinue)
        #expect(request.body.isEmpty)
        #expect(request.ended)
    }

    @Test func headerValues_HaveOptionalWhitespaceTrimmedAndKeepInnerWhitespace() throws {
        let requests = try parse(
            "GET / HTTP/1.1\r\nHost: x\r\nX-Spaces:   a  b \t \r\nX-Tight:c\r\nX-Empty:\r\nX-Tab: one\ttwo\r\n\r\n"
        )
        let fields = try #require(requests.only).head.request.headerFields
        #expect(fields[field("X-Spaces")] == "a  b")
        #expect(fields[field("X-Tight")] == "c")
        #expect(fields[field("X-Empty")] == "")
        #expect(fields[field("X-Tab")] == "one\ttwo")
    }

    @Test func repeatedFieldNames_AreAllKeptInOrder() throws {
        let requests = try parse("GET / HTTP/1.1\r\nHost: x\r\nAccept: a/b\r\naccept: c/d\r\n\r\n")
        let fields = try #require(requests.only).head.request.headerFields
        #expect(fields[values: .accept] == ["a/b", "c/d"])
    }

    @Test func fieldNames_AreCaseInsensitive() throws {
        let requests = try parse("POST / HTTP/1.1\r\nhOsT: x\r\ncontent-LENGTH: 2\r\n\r\nab")
        let request = try #require(requests.only)
        #expect(request.head.request.authority == "x")
        #expect(request.head.framing == .length(2))
        #expect(request.body == Array("ab".utf8))
    }

    /// The parser reuses HTTPTypes' values for common methods and field names spelled the usual
    /// way; a field keeps the spelling it arrived with, and other spellings take the general path.
    @Test func commonNamesAndMethods_KeepTheirSpellingWhateverPathParsesThem() throws {
        let requests = try parse(
            "GET / HTTP/1.1\r\nHost: x\r\nAccept: a/b\r\naccept-encoding: gzip\r\nUSER-AGENT: u\r\nUser-agent: v\r\nX-Own: w\r\n\r\n"
                + "DELETE /d HTTP/1.1\r\nHost: x\r\n\r\n"
                + "get /g HTTP/1.1\r\nHost: x\r\n\r\n"
                + "PURGE /p HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        try #require(requests.count == 4)
        let fields = requests[0].head.request.headerFields
        #expect(fields.map(\.name.rawName) == ["Accept", "accept-encoding", "USER-AGENT", "User-agent", "X-Own"])
        #expect(fields.map(\.name.canonicalName) == ["accept", "accept-encoding", "user-agent", "user-agent", "x-own"])
        #expect(fields[values: .userAgent] == ["u", "v"])
        #expect(requests.map(\.head.request.method.rawValue) == ["GET", "DELETE", "get", "PURGE"], "methods are case-sensitive")
        #expect(requests[1].head.request.method == .delete)
    }

    @Test func http10Request_NeedsNoHostAndDefaultsToClose() throws {
        let requests = try parse("GET /old HTTP/1.0\r\n\r\n")
        let head = try #require(requests.only).head
        #expect(!head.isHTTP11)
        #expect(head.request.authority == nil)
        #expect(head.request.path == "/old")
        #expect(!head.keepAlive)
    }

    @Test func hostHeader_BecomesAuthorityAndIsNotAHeaderField() throws {
        let requests = try parse("GET / HTTP/1.1\r\nHost: example.com:8080\r\nAccept: */*\r\n\r\n")
        let request = try #require(requests.only).head.request
        #expect(request.authority == "example.com:8080")
        #expect(request.headerFields[field("Host")] == nil)
        #expect(!request.headerFields.contains { $0.name.canonicalName == "host" })
        #expect(request.headerFields.count == 1)
    }

    @Test func absoluteFormTarget_AuthorityFromTargetWinsOverHost() throws {
        let requests = try parse("GET http://example.com:8080/a/b?x=1 HTTP/1.1\r\nHost: other.example\r\n\r\n")
        let request = try #require(requests.only).head.request
        #expect(request.authority == "example.com:8080")
        #expect(request.path == "/a/b?x=1")
    }

    @Test func absoluteFormTargetWithoutPath_HasPathSlash() throws {
        let plain = try parse("GET HTTP://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n")
        #expect(try #require(plain.only).head.request.path == "/")
        let query = try parse("GET https://example.com?q=1 HTTP/1.1\r\nHost: example.com\r\n\r\n")
        #expect(try #require(query.only).head.request.path == "/?q=1")
        #expect(try #require(query.only).head.request.authority == "example.com")
    }

    @Test func optionsAsterisk_IsAccepted() throws {
        let requests = try parse("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
        let request = try #require(requests.only).head.request
        #expect(request.method == .options)
        #expect(request.path == "*")
    }

    @Test func pipelinedRequestsInOneBuffer_AreParsedInOrder() throws {
        var parser = HTTP1RequestParser()
        var buffer = ReadBuffer(Array((
            "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
                + "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nde\r\n0\r\n\r\n"
                + "GET /d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        ).utf8))
        let requests = try drain(&parser, &buffer)
        #expect(requests.map(\.head.request.path) == ["/a", "/b", "/c", "/d"])
        #expect(requests.map { String(decoding: $0.body, as: UTF8.self) } == ["", "abc", "de", ""])
        #expect(requests.map(\.head.keepAlive) == [true, true, true, false])
        #expect(requests.map(\.ended) == [true, true, true, true])
        #expect(buffer.readableBytes == 0)
        #expect(parser.isAtRequestStart)
    }

    @Test func pipelinedRequest_StopsAtTheEndOfTheFirstAndLeavesTheRest() throws {
        var parser = HTTP1RequestParser()
        var buffer = ReadBuffer(Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HT".utf8))
        let requests = try drain(&parser, &buffer)
        #expect(requests.map(\.head.request.path) == ["/a"])
        #expect(!parser.isAtRequestStart)  // the next request has begun: its bytes are scanned, not yet consumed
        buffer.append(contentsOf: "TP/1.1\r\nHost: x\r\n\r\n".utf8)
        let more = try drain(&parser, &buffer)
        #expect(more.map(\.head.request.path) == ["/b"])
    }

    /// A request that trickles in one byte per read must parse exactly as when it arrives whole:
    /// every state of the parser has to resume at every byte boundary.
    @Test(arguments: [
        "GET /a?b=c HTTP/1.1\r\nHost: x\r\nX-A:  1 \r\n\r\n",
        "\r\n\r\nGET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\nhello world",
        "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;ext=\"v\"\r\nhello\r\nA\r\n, world!!!\r\n0\r\nX-Trailer: t\r\nX-Other: o\r\n\r\n",
        "GET /1 HTTP/1.1\r\nHost: x\r\n\r\nPOST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok\r\nGET /3 HTTP/1.1\r\nHost: x\r\n\r\n",
    ])
    func requestFedOneByteAtATime_ParsesTheSameAsWhole(wire: String) throws {
        let whole = try parse(wire)
        var parser = HTTP1RequestParser()
        var buffer = ReadBuffer()
        var trickled: [ParsedRequest] = []
        for byte in wire.utf8 {
            buffer.append(contentsOf: CollectionOfOne(byte))
            try drain(&parser, &buffer, into: &trickled)
        }
        #expect(!whole.isEmpty)
        #expect(trickled == whole)
        #expect(parser.isAtRequestStart)
    }

    /// RFC 9112 section 2.2: a server SHOULD ignore at least one empty line before the request
    /// line (clients sometimes send an extra CRLF after a POST body).
    @Test func leadingEmptyLines_AreSkipped() throws {
        let requests = try parse("\r\n\r\n\r\nGET /x HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try #require(requests.only).head.request.path == "/x")
    }

    @Test func contentLengthBody_IsDeliveredAndThenEnds() throws {
        let requests = try parse("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        let request = try #require(requests.only)
        #expect(request.head.framing == .length(5))
        #expect(request.body == Array("hello".utf8))
        #expect(request.ended)
    }

    @Test func contentLengthBody_ArrivingInPieces_IsDeliveredAsItArrives() throws {
        var parser = HTTP1RequestParser()
        var buffer = ReadBuffer(Array("PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\nabc".utf8))
        guard case .head(let head)? = try parser.next(&buffer) else { Issue.record("expected the head"); return }
        #expect(head.framing == .length(6))
        #expect(parser.isInBody)
        guard case .body(let first)? = try parser.next(&buffer) else { Issue.record("expected a body chunk"); return }
        #expect(Array(first) == Array("abc".utf8))
        #expect(try parser.next(&buffer) == nil)
        buffer.append(contentsOf: "defGET".utf8)
        guard case .body(let second)? = try parser.next(&buffer) else { Issue.record("expected a body chunk"); return }
        #expect(Array(second) == Array("def".utf8))
        guard case .end? = try parser.next(&buffer) else { Issue.record("expected the end"); return }
        #expect(!parser.isInBody)
        #expect(buffer.readableBytes == 3)  // the next request's bytes are left alone
    }

    /// Chunk extensions are ignored and trailers are validated but dropped (RFC 9112 section 7.1).
    @Test func chunkedBody_WithExtensionsAndTrailers_DeliversDataAndDropsTrailers() throws {
        let requests = try parse(
            "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n"
                + "6 ; ext;quoted=\"a b\"\r\n world\r\n"
                + "0\r\nX-Trailer: yes\r\nX-Checksum: abc\r\n\r\n"
                + "GET /next HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        #expect(requests.count == 2)
        let chunked = try #require(requests.first)
        #expect(chunked.head.framing == .chunked)
        #expect(chunked.body == Array("hello world".utf8))
        #expect(chunked.ended)
        #expect(chunked.head.request.headerFields[field("X-Trailer")] == nil)
        #expect(requests.last?.head.request.path == "/next")
    }

    /// Found by FuzzHTTP1Parser: trailers of exactly `maxHeaderBytes` were accepted when the final
    /// CRLF came in one read and refused (431) when its CR came alone, which was counted against
    /// the limit while the LF was awaited. The answer must not depend on how the bytes are cut.
    @Test func trailersAtTheLimit_AreAcceptedHoweverTheBytesAreCut() throws {
        var limits = WhiskerServer.Limits()
        limits.maxHeaderBytes = 1024
        let head = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
        let line = "X-A: " + String(repeating: "a", count: 512 - 7) + "\r\n"  // 512 bytes
        let wire = Array((head + line + line + "\r\n").utf8)
        #expect(try parse(String(decoding: wire, as: UTF8.self), limits: limits).only?.ended == true)
        for cut in [wire.count - 2, wire.count - 1] {
            var parser = HTTP1RequestParser(limits: limits)
            var buffer = ReadBuffer(wire[..<cut])
            var requests = try drain(&parser, &buffer)
            buffer.append(contentsOf: wire[cut...])
            try drain(&parser, &buffer, into: &requests)
            #expect(requests.only?.ended == true, "cut at \(cut) of \(wire.count)")
        }
        #expect(throws: HTTPRejection.self, "one byte more is refused") {
            try parse(head + line + "X" + line + "\r\n", limits: limits)
        }
    }

    @Test func chunkedBody_WithUppercaseHexAndCodingName_IsAccepted() throws {
        let data = String(repeating: "z", count: 26)
        let requests = try parse(
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n1A\r\n\(data)\r\n0\r\n\r\n"
        )
        let request = try #require(requests.only)
        #expect(request.head.framing == .chunked)
        #expect(request.body == Array(data.utf8))
    }

    /// Leading zeros do not make a chunk size "too large": only significant digits count toward
    /// the 64-bit limit.
    @Test func chunkSize_WithManyLeadingZeros_IsAccepted() throws {
        let requests = try parse(chunkedRequest("00000000000000000005\r\nhello\r\n0\r\n\r\n"))
        #expect(requests.only?.body == Array("hello".utf8))
    }

    /// The runtime treats "no body" (`nil`) differently from an empty body, and RFC 9110 says a
    /// zero Content-Length means no content, so `Content-Length: 0` is framed as no body.
    @Test func contentLengthZero_IsFramedAsNone() throws {
        let requests = try parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(requests.count == 2)
        #expect(requests.first?.head.framing == BodyFraming.none)
        #expect(requests.first?.body.isEmpty == true)
        #expect(requests.first?.ended == true)
    }

    @Test func keepAlive_DefaultsToTrueOnHTTP11() throws {
        #expect(try parse("GET / HTTP/1.1\r\nHost: x\r\n\r\n").only?.head.keepAlive == true)
    }

    @Test func keepAlive_IsFalseWithConnectionCloseOnHTTP11() throws {
        #expect(try parse("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").only?.head.keepAlive == false)
        #expect(try parse("GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, CLOSE\r\n\r\n").only?.head.keepAlive == false)
    }

    @Test func keepAlive_OnHTTP10_OnlyWithConnectionKeepAlive() throws {
        #expect(try parse("GET / HTTP/1.0\r\n\r\n").only?.head.keepAlive == false)
        #expect(try parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").only?.head.keepAlive == true)
        #expect(try parse("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n").only?.head.keepAlive == false)
    }

    @Test func expect100Continue_IsReportedForHTTP11WithABody() throws {
        let requests = try parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-Continue\r\n\r\nabc")
        let request = try #require(requests.only)
        #expect(request.head.expectsContinue)
        #expect(request.body == Array("abc".utf8))
    }

    @Test func expect100Continue_WithoutABody_IsNotReported() throws {
        let requests = try parse("GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n")
        #expect(try #require(requests.only).head.expectsContinue == false)
    }

    /// RFC 9110 section 10.1.1: a server MUST ignore a 100-continue expectation in an HTTP/1.0 request.
    @Test func expect100Continue_OnHTTP10_IsIgnored() throws {
        let requests = try parse("POST / HTTP/1.0\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\nabc")
        let request = try #require(requests.only)
        #expect(!request.head.expectsContinue)
        #expect(request.body == Array("abc".utf8))
    }

    /// RFC 9110 section 10.1.1: an expectation the server does not understand gets 417.
    @Test func otherExpectation_Rejected417() {
        let rejection = rejection("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 200-ok\r\n\r\nabc")
        #expect(rejection?.status == .expectationFailed)
    }

    @Test func identicalDuplicateContentLength_IsAccepted() throws {
        // RFC 9112 section 6.3: a list of identical values may be taken as that one value.
        let list = try parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5\r\n\r\nhello")
        #expect(try #require(list.only).head.framing == .length(5))
        #expect(try #require(list.only).body == Array("hello".utf8))
        let lines = try parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello")
        #expect(try #require(lines.only).head.framing == .length(5))
    }

    @Test func tabInFieldValue_IsAccepted() throws {
        let requests = try parse("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\tb\r\n\r\n")
        #expect(try #require(requests.only).head.request.headerFields[field("X-A")] == "a\tb")
    }

    @Test func requestLineExactlyAtTheLimit_IsAccepted() throws {
        var limits = WhiskerServer.Limits()
        limits.maxRequestLineLength = 32
        let line = "GET /" + String(repeating: "a", count: 32 - 14) + " HTTP/1.1"
        #expect(line.utf8.count == 32)
        let requests = try parse(line + "\r\nHost: x\r\n\r\n", limits: limits)
        #expect(requests.count == 1)
    }

    @Test func fieldCountExactlyAtTheLimit_IsAccepted() throws {
        var limits = WhiskerServer.Limits()
        limits.maxHeaderCount = 3
        #expect(try parse("GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\n\r\n", limits: limits).count == 1)
    }

    @Test func bodyExactlyAtTheLimit_IsAccepted() throws {
        var limits = WhiskerServer.Limits()
        limits.maxRequestBodySize = 10
        #expect(try parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789", limits: limits).only?.body.count == 10)
        let chunked = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n5\r\n56789\r\n0\r\n\r\n"
        #expect(try parse(chunked, limits: limits).only?.body.count == 10)
    }

    // MARK: Rejections: message framing (smuggling)

    /// RFC 9112 section 6.1: both headers is the classic CL.TE / TE.CL smuggling setup; a proxy
    /// that honours one and a server that honours the other see different request boundaries.
    @Test func contentLengthAndTransferEncodingTogether_Rejected400() {
        let rejection = rejection("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        #expect(rejection?.status == .badRequest)
        #expect(rejection?.closesConnection == true)
        // Order does not matter, nor does a zero length.
        #expect(status("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n0\r\n\r\n") == 400)
    }

    /// RFC 9112 section 6.3: differing lengths mean two parties may pick different ones.
    @Test func differingDuplicateContentLength_Rejected400() {
        #expect(status("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!") == 400)
        #expect(status("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 6\r\n\r\nhello!") == 400)
        #expect(rejection("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 6\r\n\r\nhello!")?.closesConnection == true)
    }

    /// Content-Length is `1*DIGIT`. Parsers that accept a sign, hex, or spaces (`strtol`-style)
    /// read a different length from those that do not.
    @Test(arguments: ["abc", "-5", "+5", "0x5", "5 5", "5;", "", ", 5", "1e3", "５"])
    func nonNumericContentLength_Rejected400(value: String) {
        #expect(status("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \(value)\r\n\r\nhello") == 400)
    }

    /// A length that does not fit in 64 bits cannot be honoured; it is over any body limit.
    @Test func contentLengthOverflowingInt64_IsRejected413() {
        #expect(status("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n") == 413)
    }

    /// RFC 9112 section 6.3: if chunked is not the final coding the length is unknowable for a
    /// request; a server that guesses (reads to close) desyncs from the proxy.
    @Test(arguments: ["gzip", "chunked, gzip", "identity", "chunked;q=1", "chunkedx"])
    func transferEncodingNotEndingInChunked_Rejected400(value: String) {
        let rejection = rejection("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \(value)\r\n\r\n0\r\n\r\n")
        #expect(rejection?.status == .badRequest)
        #expect(rejection?.closesConnection == true)
    }

    /// RFC 9112 section 6.1: a transfer coding the server does not implement gets 501; the
    /// framing is still known (it ends in chunked), but the content cannot be decoded.
    @Test func gzipThenChunked_Rejected501() {
        let rejection = rejection("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n")
        #expect(rejection?.status == .notImplemented)
        #expect(rejection?.closesConnection == true)
    }

    /// RFC 9112 section 6.1: chunked MUST NOT be applied more than once; some parsers unwrap one
    /// layer and some two.
    @Test func chunkedTwice_Rejected400() {
        #expect(status("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n") == 400)
        #expect(status("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") == 400)
    }

    /// RFC 9112 section 6.1: Transfer-Encoding in HTTP/1.0 is faulty framing (1.0 intermediaries
    /// do not know chunked and would forward the body as raw bytes).
    @Test func transferEncodingInHTTP10_Rejected400() {
        let rejection = rejection("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        #expect(rejection?.status == .badRequest)
        #expect(rejection?.closesConnection == true)
    }

    /// RFC 9112 section 5.2: obs-fold is deprecated; a folded line is a continuation to some
    /// parsers and a new (nameless) field to others, e.g. a hidden second Transfer-Encoding.
    @Test func obsFold_Rejected400() {
        #expect(status("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n\tb\r\n\r\n") == 400)
        // Whitespace before the first field (RFC 9112 section 2.2) is the same trap.
        #expect(status("GET / HTTP/1.1\r\n Host: x\r\n\r\n") == 400)
    }

    /// RFC 9112 section 5.1: `Transfer-Encoding : chunked` is ignored by some parsers and honoured
    /// by others, which is exactly a TE.CL desync; the server MUST reject it with 400.
    @Test func whitespaceBeforeColon_Rejected400() {
        #expect(status("GET / HTTP/1.1\r\nHost : x\r\n\r\n") == 400)
        #expect(status("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding\t: chunked\r\n\r\n0\r\n\r\n") == 400)
    }

    /// Field names are tokens; anything else is a parser differential waiting to happen.
    @Test func invalidFieldNames_Rejected400() {
        #expect(status("GET / HTTP/1.1\r\nHost: x\r\nX@A: b\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: x\r\n: b\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n") == 400)
    }

    /// RFC 9110 section 5.5: NUL, CR and LF in a value can split it into two fields downstream
    /// (header injection) or truncate it in C code; other controls are not field-vchars.
    @Test(arguments: ["a\u{0}b", "a\rb", "a\u{7F}b", "a\u{1}b", "a\u{1B}b", "\u{0}"])
    func controlCharacterInFieldValue_Rejected400(value: String) {
        let rejection = rejection("GET / HTTP/1.1\r\nHost: x\r\nX-A: \(value)\r\n\r\n")
        #expect(rejection?.status == .badRequest)
    }

    /// RFC 9112 section 3.2: a server MUST answer 400 to an HTTP/1.1 request without Host, or
    /// with more than one (which Host would routing and a cache key use?).
    @Test func missingHostInHTTP11_Rejected400() {
        #expect(status("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n") == 400)
    }

    /// RFC 9112 section 3.2: absolute-form carries an authority, but Host is still required in 1.1.
    @Test func absoluteFormWithoutHostInHTTP11_Rejected400() {
        #expect(status("GET http://example.com/ HTTP/1.1\r\n\r\n") == 400)
    }

    /// RFC 9112 section 3.2: a server MUST answer 400 to a Host with an invalid field value
    /// (`uri-host [ ":" port ]`). A Host with a path, userinfo or space is how cache-poisoning
    /// and password-reset-link attacks smuggle a second host or path past a proxy's checks.
    @Test(arguments: ["exa mple.com", "example.com/evil", "user@example.com", "example.com:port", "example.com?x", "a,b",
                      "example.com:80:80", "[::1", "[]", "[::1]x", "[::1]:8o", "[::g]", "\u{e9}.example"])
    func hostWithInvalidValue_Rejected400(host: String) {
        #expect(status("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n") == 400)
    }

    /// Fail-fast: a head is refused at the first byte no valid head could have there, before its
    /// line ends, so a TLS ClientHello on the cleartext port or noise gets 400 at once instead of
    /// waiting for the header timeout.
    @Test(arguments: [
        "\u{16}\u{03}\u{01}\u{02}\u{00}",  // a TLS ClientHello's first bytes
        "GE(T", " GET", "GET  /", "GET /a\u{01}", "GET / http", "GET / HTTP/1.1x", "GET / HTTP/x",
        "GET / HTTP/1.1\r\nHost: x\r\nBad Name", "GET / HTTP/1.1\r\nHost: x\r\n Folded", "GET / HTTP/1.1\r\nX\u{7F}",
    ])
    func partialHeadThatCannotBecomeValid_IsRefusedBeforeItsLineEnds(wire: String) {
        #expect(rejection(wire)?.status.code == 400, "refused without waiting for CRLF")
    }

    /// Found by FuzzHTTP1Parser: a bad line that is complete (its CRLF arrived with it) waited
    /// for the head's blank line, which a client sending garbage never sends. Complete lines of an
    /// unfinished head now get the full check at once.
    @Test(arguments: [
        "\u{F7}\u{06}\u{00}\r\r\n", "GET /a HTTP/1.1 x\r\n", "GET * HTTP/1.1\r\n", "GET /#x HTTP/1.1\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nNo colon here\r\n", "GET / HTTP/1.1\r\nHost: x\r\nX: a\u{00}b\r\n",
    ])
    func completeBadLineOfAnUnfinishedHead_IsRefusedAtOnce(wire: String) {
        #expect(rejection(wire)?.status.code == 400, "refused without waiting for the blank line")
    }

    @Test(arguments: ["G", "GET", "GET ", "GET /pets?x=1", "GET / ", "GET / HTT", "GET / HTTP/1.", "GET / HTTP/1.1\r",
                      "PRI * HTTP/2.0\r", "GET / HTTP/1.1\r\nHo", "GET / HTTP/1.1\r\nHost: a b", "GET / HTTP/1.1\r\nHost: x\r\n\r"])
    func partialHeadThatCanStillBeValid_WaitsForMore(wire: String) {
        #expect(rejection(wire) == nil)
    }

    /// The authority of an absolute-form target stands in for Host (RFC 9112 section 3.2.2), so it
    /// gets Host's checks: `http://user@victim.example/` or a list would otherwise reach handlers
    /// and logs as the request's authority.
    @Test(arguments: ["user@example.com", "a,b", "exa%mple.com:port", "example.com:80:80", "[::1"])
    func absoluteFormWithInvalidAuthority_Rejected400(authority: String) {
        #expect(status("GET http://\(authority)/ HTTP/1.1\r\nHost: example.com\r\n\r\n") == 400)
    }

    @Test(arguments: ["example.com", "example.com:8080", "127.0.0.1:1", "[::1]:8080", "[::1]", "xn--caf-dma.example", "example.com:", ""])
    func hostWithValidValue_IsAccepted(host: String) throws {
        #expect(try parse("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n").only?.head.request.authority == host)
    }

    @Test func twoHostHeaders_Rejected400() {
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n") == 400)
    }

    /// Documented decision: only CRLF ends a line. RFC 9112 section 2.2 allows accepting a bare
    /// LF, but a proxy that splits on LF and a server that does not (or the reverse) disagree on
    /// where fields and requests end.
    @Test func bareLFLineEndingsInHead_Rejected400() {
        #expect(status("GET / HTTP/1.1\nHost: x\n\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: x\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: x\r\n\n") == 400)
        #expect(status("\nGET / HTTP/1.1\r\nHost: x\r\n\r\n") == 400)
        #expect(rejection("GET / HTTP/1.1\nHost: x\n\n")?.closesConnection == true)
    }

    /// The same decision inside a chunked body: `5\nhello` must not be read as a chunk.
    @Test func bareLFAfterChunkSize_Rejected400() {
        #expect(status(chunkedRequest("5\nhello\r\n0\r\n\r\n")) == 400)
        #expect(status(chunkedRequest("5\r\nhello\r\n0\n\r\n")) == 400)
        #expect(status(chunkedRequest("5\r\nhello\r\n0\r\nX-T: a\n\r\n")) == 400)
        #expect(status(chunkedRequest("5\r\nhello\r\n0\r\n\n")) == 400)
    }

    /// Chunk sizes are `1*HEXDIG`. Non-hex sizes, signs and `0x` prefixes are read differently by
    /// different parsers, and a size that overflows wraps to a small number in some of them
    /// (a classic smuggling trick), so 16 or more hex digits are refused outright.
    @Test(arguments: ["xyz", "", ";ext", "-5", "+5", "0x5", "5g", "FFFFFFFFFFFFFFFF", "10000000000000005", "ffffffffffffffffffff"])
    func badChunkSize_Rejected400(size: String) {
        let rejection = rejection(chunkedRequest("\(size)\r\nhello\r\n0\r\n\r\n"))
        #expect(rejection?.status == .badRequest)
        #expect(rejection?.closesConnection == true)
    }

    /// Chunk extensions may not carry control characters (they would hide a line ending).
    @Test func controlCharacterInChunkExtension_Rejected400() {
        #expect(status(chunkedRequest("5;a=\u{0}\r\nhello\r\n0\r\n\r\n")) == 400)
        #expect(status(chunkedRequest("5;a=\rb\r\nhello\r\n0\r\n\r\n")) == 400)
    }

    /// Chunk extensions follow RFC 9112 §7.1.1 strictly: a reader that is lenient about where a
    /// quoted string ends can be made to see a second request inside an extension (the class of
    /// Kestrel's CVE-2025-55315). Each of these lines is a 400 that closes the connection.
    @Test(arguments: [
        "5;a=\"xy\r\nhello\r\n0\r\n\r\n",  // unclosed quote
        "5;a=\"x\ry\"\r\nhello\r\n0\r\n\r\n",  // CR inside a quoted string
        "5;a=\"x\r\ny\"\r\nhello\r\n0\r\n\r\n",  // CRLF inside a quoted string
        "5;a=\"x\\\r\"\r\nhello\r\n0\r\n\r\n",  // an escaped CR
        "5;a=xy\nhello\r\n0\r\n\r\n",  // bare LF ending the chunk line
        "5;\r\nhello\r\n0\r\n\r\n",  // no name
        "5;=v\r\nhello\r\n0\r\n\r\n",  // no name before "="
        "5;a=\r\nhello\r\n0\r\n\r\n",  // no value after "="
        "5;a b\r\nhello\r\n0\r\n\r\n",  // two tokens without ";"
        "5;a=\"q\"x\r\nhello\r\n0\r\n\r\n",  // bytes after a quoted string
        "5;a=x y\r\nhello\r\n0\r\n\r\n",  // a value with a space in a token
        "5;a=\"x\u{7F}\"\r\nhello\r\n0\r\n\r\n",  // DEL in a quoted string
    ])
    func malformedChunkExtension_Rejected400(body: String) {
        let rejection = rejection(chunkedRequest(body))
        #expect(rejection?.status == .badRequest)
        #expect(rejection?.closesConnection == true)
    }

    /// Well-formed extensions are read past, however they are spelled.
    @Test func wellFormedChunkExtensions_AreIgnored() throws {
        for line in ["5;a", "5 ;a", "5; a = b", "5;a=b;c;d=\"q \\\" \\\\ x\"", "5;a=\"\"", "5\t;\ta=\"\u{E9}\""] {
            let requests = try parse("POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\(line)\r\nhello\r\n0\r\n\r\n")
            #expect(requests.first?.body == Array("hello".utf8), "\(line)")
        }
    }

    /// A request hidden in an extension is never parsed out of it: the line is refused whole.
    @Test func requestHiddenInAChunkExtension_IsNeverParsed() {
        let wire = "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "2;a=\"\r\nGET /admin HTTP/1.1\r\nHost: x\r\n\r\n\"\r\nhi\r\n0\r\n\r\n"
        var parser = HTTP1RequestParser()
        var buffer = ReadBuffer()
        buffer.append(contentsOf: Array(wire.utf8))
        var heads: [String] = []
        var rejected = false
        while true {
            do {
                guard let event = try parser.next(&buffer) else { break }
                if case .head(let head) = event { heads.append(head.request.path ?? "") }
            } catch {
                rejected = error.status == .badRequest
                break
            }
        }
        #expect(heads == ["/c"])
        #expect(rejected)
    }

    /// One line's extensions are bounded by the line (4 KiB: a 100 KB extension is refused before
    /// it is all read), and a request's extensions in all by ``ChunkExtensions/maxTotalBytes``:
    /// one-byte chunks with long extensions cost far more to read than they deliver.
    @Test func chunkExtensionLength_IsBoundedPerLineAndPerRequest() {
        let long = String(repeating: "x", count: 100_000)
        #expect(rejection(chunkedRequest("1;a=\(long)\r\nh\r\n0\r\n\r\n"))?.reason == "chunk size line too long")
        let extensionLine = "1;a=" + String(repeating: "y", count: 3_000)
        let manyChunks = String(repeating: "\(extensionLine)\r\nh\r\n", count: 6) + "0\r\n\r\n"
        #expect(rejection(chunkedRequest(manyChunks))?.reason.contains("chunk extensions longer than") == true)
        let fewer = String(repeating: "\(extensionLine)\r\nh\r\n", count: 5) + "0\r\n\r\n"
        #expect(rejection(chunkedRequest(fewer)) == nil, "15 KB of extensions in all are read past")
    }

    /// The chunk data must be followed by exactly CRLF; otherwise the declared size was wrong and
    /// the "next chunk size" is attacker-chosen body bytes.
    @Test func missingCRLFAfterChunkData_Rejected400() {
        #expect(status(chunkedRequest("5\r\nhelloXY0\r\n\r\n")) == 400)
        #expect(status(chunkedRequest("5\r\nhello!\r\n0\r\n\r\n")) == 400)
        #expect(status(chunkedRequest("5\r\nhello\n0\r\n\r\n")) == 400)
    }

    /// Trailers are dropped, but they are validated like header fields first.
    @Test func invalidTrailerField_Rejected400() {
        #expect(status(chunkedRequest("0\r\nX-T: a\u{0}\r\n\r\n")) == 400)
        #expect(status(chunkedRequest("0\r\nX-T: a\r\n folded\r\n\r\n")) == 400)
        #expect(status(chunkedRequest("0\r\nX-T : a\r\n\r\n")) == 400)
    }

    @Test func tooManyTrailerFields_Rejected431() {
        var limits = WhiskerServer.Limits()
        limits.maxHeaderCount = 2
        #expect(status(chunkedRequest("0\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n"), limits: limits) == 431)
    }

    // MARK: Rejections: limits

    @Test func requestLineOverTheLimit_Rejected414() {
        var limits = WhiskerServer.Limits()
        limits.maxRequestLineLength = 32
        let line = "GET /" + String(repeating: "a", count: 33 - 14) + " HTTP/1.1"
        #expect(line.utf8.count == 33)
        #expect(status(line + "\r\nHost: x\r\n\r\n", limits: limits) == 414)
    }

    /// A client must not be able to make the server buffer an endless request line.
    @Test func requestLineOverTheLimitBeforeItsEnd_Rejected414WithoutWaiting() {
        var limits = WhiskerServer.Limits()
        limits.maxRequestLineLength = 32
        #expect(status("GET /" + String(repeating: "a", count: 100), limits: limits) == 414)
    }

    @Test func headerBlockOverTheLimit_Rejected431() {
        var limits = WhiskerServer.Limits()
        limits.maxHeaderBytes = 64
        let head = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "b", count: 60) + "\r\n\r\n"
        #expect(status(head, limits: limits) == 431)
        // An unfinished header block is refused as soon as it is too big.
        #expect(status("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "b", count: 60), limits: limits) == 431)
    }

    @Test func tooManyHeaderFields_Rejected431() {
        var limits = WhiskerServer.Limits()
        limits.maxHeaderCount = 3
        #expect(status("GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits) == 431)
    }

    /// The limit is enforced from the head, before any body byte is read.
    @Test func bodyOverTheLimitByContentLength_Rejected413BeforeTheBody() {
        var limits = WhiskerServer.Limits()
        limits.maxRequestBodySize = 10
        #expect(status("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n", limits: limits) == 413)
    }

    @Test func bodyOverTheLimitByChunkedTotal_Rejected413() {
        var limits = WhiskerServer.Limits()
        limits.maxRequestBodySize = 10
        #expect(status(chunkedRequest("6\r\nabcdef\r\n6\r\nghijkl\r\n0\r\n\r\n"), limits: limits) == 413)
        // One huge declared chunk is refused from its size line alone.
        #expect(status(chunkedRequest("FFFFFFF\r\n"), limits: limits) == 413)
    }

    // MARK: Rejections: request line

    @Test(arguments: ["HTTP/2.0", "HTTP/3.1", "HTTP/0.9"])
    func unsupportedHTTPVersion_Rejected505(version: String) {
        #expect(status("GET / \(version)\r\nHost: x\r\n\r\n") == 505)
    }

    /// RFC 9110 section 6.2: a recipient SHOULD process a higher minor version of a major version
    /// it implements as the highest minor version it supports, and the parser's doc comment
    /// promises 505 only for an unknown *major* version.
    @Test func higherMinorVersionOfHTTP1_IsTreatedAsHTTP11() throws {
        let requests = try parse("GET / HTTP/1.2\r\nHost: x\r\n\r\n")
        #expect(requests.only?.head.isHTTP11 == true)
    }

    /// HTTP-version is case-sensitive `HTTP/DIGIT.DIGIT` (RFC 9112 section 2.3).
    @Test(arguments: ["HTTP/1", "http/1.1", "HTTP/1.1 ", "HTTP/a.b", "HTTP/10.0", "HTTP/1.1x", "HTTP1.1", ""])
    func malformedHTTPVersion_Rejected400(version: String) {
        #expect(status("GET / \(version)\r\nHost: x\r\n\r\n") == 400)
    }

    @Test(arguments: ["G(ET", "GE\"T", "GET@", "G\u{0}T", "GÉT"])
    func invalidMethodCharacters_Rejected400(method: String) {
        #expect(status("\(method) / HTTP/1.1\r\nHost: x\r\n\r\n") == 400)
    }

    @Test func emptyMethod_Rejected400() {
        #expect(status(" / HTTP/1.1\r\nHost: x\r\n\r\n") == 400)
    }

    @Test func emptyTarget_Rejected400() {
        #expect(status("GET  HTTP/1.1\r\nHost: x\r\n\r\n") == 400)
    }

    /// A space in the target shifts the request line's fields (some parsers take the last space
    /// as the version separator); controls and raw non-ASCII bytes must be percent-encoded.
    @Test(arguments: ["/a b", "/a\tb", "/a\u{1}b", "/a\u{7F}b", "/caf\u{E9}"])
    func targetWithSpaceOrControlCharacter_Rejected400(target: String) {
        #expect(status("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n") == 400)
    }

    /// RFC 9112 section 3.2.4: the asterisk-form is only for a server-wide OPTIONS.
    @Test func asteriskFormWithGet_Rejected400() {
        #expect(status("GET * HTTP/1.1\r\nHost: x\r\n\r\n") == 400)
    }

    /// Authority-form is only for CONNECT, which a server (not a proxy) does not support, and a
    /// relative path without a slash is no form at all.
    @Test func unsupportedTargetForms_Rejected400() {
        #expect(status("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n") == 400)
        #expect(status("GET pets HTTP/1.1\r\nHost: x\r\n\r\n") == 400)
        #expect(status("GET http:// HTTP/1.1\r\nHost: x\r\n\r\n") == 400)
    }
}

// MARK: Helpers

/// One request as the parser's events describe it.
private struct ParsedRequest: Equatable {
    var head: RequestHead
    var body: [UInt8] = []
    var ended = false

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.head.request == rhs.head.request && lhs.head.isHTTP11 == rhs.head.isHTTP11
            && lhs.head.framing == rhs.head.framing && lhs.head.keepAlive == rhs.head.keepAlive
            && lhs.head.expectsContinue == rhs.head.expectsContinue && lhs.body == rhs.body && lhs.ended == rhs.ended
    }
}

extension Array {
    /// The single element, or `nil` when there are none or several.
    fileprivate var only: Element? { count == 1 ? first : nil }
}

private func field(_ name: String) -> HTTPField.Name { HTTPField.Name(name)! }

private func chunkedRequest(_ body: String) -> String {
    "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + body
}

/// Parses everything in `wire` in one go.
private func parse(_ wire: String, limits: WhiskerServer.Limits = .init()) throws(HTTPRejection) -> [ParsedRequest] {
    var parser = HTTP1RequestParser(limits: limits)
    var buffer = ReadBuffer(Array(wire.utf8))
    return try drain(&parser, &buffer)
}

/// Runs the parser until it needs more bytes, folding its events into requests.
private func drain(_ parser: inout HTTP1RequestParser, _ buffer: inout ReadBuffer) throws(HTTPRejection) -> [ParsedRequest] {
    var requests: [ParsedRequest] = []
    try drain(&parser, &buffer, into: &requests)
    return requests
}

/// Runs the parser until it needs more bytes; body and end events continue the last request in
/// `requests`, so one request can span several calls.
private func drain(_ parser: inout HTTP1RequestParser, _ buffer: inout ReadBuffer, into requests: inout [ParsedRequest]) throws(HTTPRejection) {
    while let event = try parser.next(&buffer) {
        switch event {
        case .head(let head):
            requests.append(ParsedRequest(head: head))
        case .body(let bytes):
            guard requests.last?.ended == false else { Issue.record("a body chunk outside a request"); continue }
            requests[requests.count - 1].body += bytes
        case .end:
            guard requests.last?.ended == false else { Issue.record("an end outside a request"); continue }
            requests[requests.count - 1].ended = true
        }
    }
}

/// The rejection the parser throws for `wire` fed whole, or `nil` if it is accepted.
private func rejection(_ wire: String, limits: WhiskerServer.Limits = .init()) -> HTTPRejection? {
    var parser = HTTP1RequestParser(limits: limits)
    var buffer = ReadBuffer(Array(wire.utf8))
    do {
        while try parser.next(&buffer) != nil {}
        return nil
    } catch {
        return error
    }
}

/// The status code of the rejection for `wire`, or `nil` if it is accepted.
private func status(_ wire: String, limits: WhiskerServer.Limits = .init()) -> Int? {
    rejection(wire, limits: limits)?.status.code
}
