import HTTPTypes
import Testing
@testable import WhiskerCore

/// How responses are delimited (RFC 9112 section 6.3) and how their heads are written.
@Suite struct ResponseFramingTests {
    // MARK: ResponseFraming.decide

    /// RFC 9110 sections 15.2, 15.3.5 and 15.4.5: 1xx, 204 and 304 never have content, so they
    /// get neither a length nor chunking (a `Content-Length` would make a client wait for bytes).
    @Test(arguments: [HTTPResponse.Status.continue, .switchingProtocols, .earlyHints, .noContent, .notModified])
    func statusWithoutContent_HasNoBodyAndNoLength(status: HTTPResponse.Status) {
        for bodyLength in [nil, 0, 10] as [Int64?] {
            for isHTTP11 in [true, false] {
                let framing = ResponseFraming.decide(status: status, isHEAD: false, bodyLength: bodyLength, isHTTP11: isHTTP11, keepAlive: true)
                #expect(framing == ResponseFraming(contentLength: nil, chunked: false, sendsBody: false, keepAlive: true))
            }
        }
    }

    @Test func knownLength_IsSentAsContentLength() {
        let framing = ResponseFraming.decide(status: .ok, isHEAD: false, bodyLength: 42, isHTTP11: true, keepAlive: true)
        #expect(framing == ResponseFraming(contentLength: 42, chunked: false, sendsBody: true, keepAlive: true))
    }

    @Test func emptyBodyOfKnownLength_IsContentLengthZero() {
        let framing = ResponseFraming.decide(status: .ok, isHEAD: false, bodyLength: 0, isHTTP11: true, keepAlive: true)
        #expect(framing.contentLength == 0)
        #expect(!framing.chunked)
    }

    /// RFC 9110 section 9.3.2: HEAD gets the headers GET would, Content-Length included, and no body.
    @Test func head_KeepsContentLengthAndSendsNoBody() {
        let framing = ResponseFraming.decide(status: .ok, isHEAD: true, bodyLength: 1234, isHTTP11: true, keepAlive: true)
        #expect(framing == ResponseFraming(contentLength: 1234, chunked: false, sendsBody: false, keepAlive: true))
    }

    @Test func headOfUnknownLength_SendsNoBodyAndKeepsTheConnection() {
        let http11 = ResponseFraming.decide(status: .ok, isHEAD: true, bodyLength: nil, isHTTP11: true, keepAlive: true)
        #expect(!http11.sendsBody)
        #expect(http11.keepAlive)
        let http10 = ResponseFraming.decide(status: .ok, isHEAD: true, bodyLength: nil, isHTTP11: false, keepAlive: true)
        #expect(!http10.sendsBody)
        #expect(!http10.chunked)
        #expect(http10.keepAlive)  // no body bytes, so nothing needs the close to delimit it
    }

    @Test func unknownLengthOnHTTP11_IsChunked() {
        let framing = ResponseFraming.decide(status: .ok, isHEAD: false, bodyLength: nil, isHTTP11: true, keepAlive: true)
        #expect(framing == ResponseFraming(contentLength: nil, chunked: true, sendsBody: true, keepAlive: true))
    }

    /// HTTP/1.0 has no chunked coding: the body ends where the connection does.
    @Test func unknownLengthOnHTTP10_IsCloseDelimited() {
        let framing = ResponseFraming.decide(status: .ok, isHEAD: false, bodyLength: nil, isHTTP11: false, keepAlive: true)
        #expect(framing == ResponseFraming(contentLength: nil, chunked: false, sendsBody: true, keepAlive: false))
    }

    @Test func keepAliveFalse_IsKeptFalse() {
        let framing = ResponseFraming.decide(status: .ok, isHEAD: false, bodyLength: 3, isHTTP11: true, keepAlive: false)
        #expect(!framing.keepAlive)
        let chunked = ResponseFraming.decide(status: .ok, isHEAD: false, bodyLength: nil, isHTTP11: true, keepAlive: false)
        #expect(!chunked.keepAlive)
        #expect(chunked.chunked)
    }

    // MARK: ResponseHeadWriter.head

    @Test func head_WritesStatusLineFieldsDateAndLengthInOrder() {
        var fields = HTTPFields()
        fields[.contentType] = "text/plain"
        fields.append(HTTPField(name: HTTPField.Name("X-Request-ID")!, value: "abc"))
        let head = write(HTTPResponse(status: .ok, headerFields: fields), bodyLength: 5)
        #expect(head == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Request-ID: abc\r\n" + epochDateLine + "Content-Length: 5\r\n\r\n")
    }

    @Test func head_StatusLineUsesCodeAndReasonPhrase() {
        #expect(write(HTTPResponse(status: .notFound), bodyLength: 0).hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        #expect(write(HTTPResponse(status: .init(code: 299, reasonPhrase: "Fine")), bodyLength: 0).hasPrefix("HTTP/1.1 299 Fine\r\n"))
        // HTTP/1.0 requests are answered with the server's own version (RFC 9110 section 6.2).
        #expect(write(HTTPResponse(status: .ok), bodyLength: 0, isHTTP11: false, keepAlive: false).hasPrefix("HTTP/1.1 200 OK\r\n"))
    }

    /// Generated code may already set `content-length`; the server owns the framing fields, so
    /// the handler's are dropped and each is sent exactly once (two Content-Length fields are a
    /// response-splitting hazard and clients reject them).
    @Test func head_StripsHandlerSetFramingConnectionAndDateFields() {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields.append(HTTPField(name: HTTPField.Name("content-length")!, value: "999"))
        fields[.transferEncoding] = "chunked"
        fields[.connection] = "keep-alive"
        fields[.date] = "Mon, 01 Jan 2001 00:00:00 GMT"
        fields[HTTPField.Name("Keep-Alive")!] = "timeout=5"
        fields[HTTPField.Name("Proxy-Connection")!] = "keep-alive"
        let head = write(HTTPResponse(status: .ok, headerFields: fields), bodyLength: 2)
        #expect(head == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + epochDateLine + "Content-Length: 2\r\n\r\n")
    }

    /// `Upgrade` stays on HTTP/1.1 (a handler's 426 names what to upgrade to); HTTP/2 drops it
    /// with the other connection-specific fields (RFC 9113 §8.2.2).
    @Test func serverOwnedFields_AreTheSameForBothProtocols_ButUpgrade() {
        for name in [HTTPField.Name.contentLength, .transferEncoding, .connection, .date, HTTPField.Name("Keep-Alive")!, HTTPField.Name("proxy-connection")!] {
            #expect(ServerOwnedFields.contains(name, http2: false) && ServerOwnedFields.contains(name, http2: true), "\(name)")
        }
        #expect(!ServerOwnedFields.contains(.upgrade, http2: false))
        #expect(ServerOwnedFields.contains(.upgrade, http2: true))
        #expect(!ServerOwnedFields.contains(.contentType, http2: true))
        // Names of an owned field's length that are the handler's (the lengths pick what to compare).
        for name: HTTPField.Name in [.eTag, .vary, .trailer, .setCookie, .contentLocation, .contentLanguage, HTTPField.Name("X-Content-Length")!] {
            #expect(!ServerOwnedFields.contains(name, http2: false) && !ServerOwnedFields.contains(name, http2: true), "\(name)")
        }
        let head = write(HTTPResponse(status: .upgradeRequired, headerFields: [.upgrade: "TLS/1.3"]), bodyLength: 0)
        #expect(lines(of: head, named: "upgrade") == ["Upgrade: TLS/1.3"])
    }

    @Test func head_NeverSendsAFramingFieldTwice() {
        var fields = HTTPFields()
        fields[.contentLength] = "7"
        fields[.transferEncoding] = "chunked"
        fields[.connection] = "close"
        fields[.date] = "Mon, 01 Jan 2001 00:00:00 GMT"
        let response = HTTPResponse(status: .ok, headerFields: fields)
        for (bodyLength, isHTTP11, keepAlive) in [(7, true, false), (nil, true, false), (nil, false, true), (7, false, true)] as [(Int64?, Bool, Bool)] {
            let head = write(response, bodyLength: bodyLength, isHTTP11: isHTTP11, keepAlive: keepAlive)
            #expect(lines(of: head, named: "content-length").count <= 1)
            #expect(lines(of: head, named: "transfer-encoding").count <= 1)
            #expect(lines(of: head, named: "connection").count <= 1)
            #expect(lines(of: head, named: "date") == ["Date: Thu, 01 Jan 1970 00:00:00 GMT"])
            // Never both framings at once (RFC 9112 section 6.1).
            #expect(lines(of: head, named: "content-length").isEmpty || lines(of: head, named: "transfer-encoding").isEmpty)
        }
    }

    @Test func head_KeepsRepeatedHandlerFieldsAsSeparateLines() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .setCookie, value: "a=1"))
        fields.append(HTTPField(name: .setCookie, value: "b=2"))
        let head = write(HTTPResponse(status: .ok, headerFields: fields), bodyLength: 0)
        #expect(lines(of: head, named: "set-cookie") == ["Set-Cookie: a=1", "Set-Cookie: b=2"])
    }

    /// A handler value with CR LF must not split the head into an extra, attacker-chosen field
    /// (response splitting); HTTPTypes legalizes values and the writer must not undo that.
    @Test func head_HandlerValueWithCRLF_CannotInjectAField() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .location, value: "/next\r\nSet-Cookie: evil=1"))
        let head = write(HTTPResponse(status: .found, headerFields: fields), bodyLength: 0)
        #expect(lines(of: head, named: "set-cookie").isEmpty)
        #expect(lines(of: head, named: "location").count == 1)
        #expect(!head.dropLast(4).contains("\r\n\r\n"))
    }

    @Test func head_UnknownLengthOnHTTP11_SendsTransferEncodingChunked() {
        let head = write(HTTPResponse(status: .ok), bodyLength: nil)
        #expect(head == "HTTP/1.1 200 OK\r\n" + epochDateLine + "Transfer-Encoding: chunked\r\n\r\n")
    }

    @Test func head_UnknownLengthOnHTTP10_SendsConnectionCloseAndNoFraming() {
        let head = write(HTTPResponse(status: .ok), bodyLength: nil, isHTTP11: false, keepAlive: true)
        #expect(head == "HTTP/1.1 200 OK\r\n" + epochDateLine + "Connection: close\r\n\r\n")
    }

    @Test func head_HTTP11KeepAlive_SendsNoConnectionField() {
        let head = write(HTTPResponse(status: .ok), bodyLength: 1)
        #expect(lines(of: head, named: "connection").isEmpty)
    }

    @Test func head_HTTP11Close_SendsConnectionClose() {
        let head = write(HTTPResponse(status: .ok), bodyLength: 1, keepAlive: false)
        #expect(head == "HTTP/1.1 200 OK\r\n" + epochDateLine + "Content-Length: 1\r\nConnection: close\r\n\r\n")
    }

    /// An HTTP/1.0 client closes unless the server confirms keep-alive explicitly.
    @Test func head_HTTP10KeepAlive_SendsConnectionKeepAlive() {
        let head = write(HTTPResponse(status: .ok), bodyLength: 1, isHTTP11: false, keepAlive: true)
        #expect(head == "HTTP/1.1 200 OK\r\n" + epochDateLine + "Content-Length: 1\r\nConnection: keep-alive\r\n\r\n")
    }

    @Test func head_HTTP10Close_SendsConnectionClose() {
        let head = write(HTTPResponse(status: .ok), bodyLength: 1, isHTTP11: false, keepAlive: false)
        #expect(lines(of: head, named: "connection") == ["Connection: close"])
    }

    @Test func head_NoContent_HasNoLengthEvenIfTheHandlerSetOne() {
        var fields = HTTPFields()
        fields[.contentLength] = "0"
        let head = write(HTTPResponse(status: .noContent, headerFields: fields), bodyLength: 0)
        #expect(head == "HTTP/1.1 204 No Content\r\n" + epochDateLine + "\r\n")
    }

    @Test func head_ForHead_CarriesTheGetLength() {
        let head = write(HTTPResponse(status: .ok), bodyLength: 1234, isHEAD: true)
        #expect(lines(of: head, named: "content-length") == ["Content-Length: 1234"])
    }

    @Test func head_WithTheCachedDateLine_HasExactlyOneDate() {
        var fields = HTTPFields()
        fields[.date] = "stale"
        let response = HTTPResponse(status: .ok, headerFields: fields)
        let framing = ResponseFraming.decide(status: .ok, isHEAD: false, bodyLength: 0, isHTTP11: true, keepAlive: true)
        let head = String(decoding: ResponseHeadWriter.head(response, framing: framing, isHTTP11: true, dateLine: DateCache.shared.headerLine()), as: UTF8.self)
        let dates = lines(of: head, named: "date")
        #expect(dates.count == 1)
        #expect(dates.first?.hasSuffix(" GMT") == true)
        #expect(head.hasSuffix("\r\n\r\n"))
    }
}

// MARK: Helpers

private let epochDateLine = "Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n"

/// The head written for `response`, with framing decided from the other arguments and the epoch as date.
private func write(_ response: HTTPResponse, bodyLength: Int64?, isHEAD: Bool = false, isHTTP11: Bool = true, keepAlive: Bool = true) -> String {
    let framing = ResponseFraming.decide(status: response.status, isHEAD: isHEAD, bodyLength: bodyLength, isHTTP11: isHTTP11, keepAlive: keepAlive)
    let bytes = ResponseHeadWriter.head(response, framing: framing, isHTTP11: isHTTP11, dateLine: Array(epochDateLine.utf8))
    return String(decoding: bytes, as: UTF8.self)
}

/// The field lines of `head` whose name is `name` (case-insensitive), without their CRLF.
private func lines(of head: String, named name: String) -> [Substring] {
    head.split(separator: "\r\n", omittingEmptySubsequences: true).dropFirst().filter { line in
        line.lowercased().hasPrefix(name.lowercased() + ":")
    }
}
