// The HTTP/1.1 request parser with body framing, driven as HTTP1Connection drives it: `next(_:)`
// in a loop, heads, body chunks and ends, the next request after each end (keep-alive and
// pipelining), the router and the rejection response on what it yields.
//
// Input: byte 0 chooses the limits (small ones, so that 414, 431 and 413 are reached), bytes 1-2
// (little-endian) where the bytes are cut into two deliveries; the rest is the wire.
//
// Each input is parsed twice, in one delivery and in two, and both must agree: the same requests,
// the same bodies, and a rejection in both or neither. The second delivery is where the parser
// resumes a head half scanned and `PartialHeadCheck` refuses a line still arriving, so a check
// stricter than the full parse shows up as a disagreement. Every prefix of a request line or field
// line that the full parse accepts must also pass `PartialHeadCheck` on its own.

import FuzzSupport
import HTTPTypes
@testable import WhiskerCore
@testable import WhiskerHTTP
@testable import WhiskerHTTP2
import WhiskerSockets

/// What one way of delivering the bytes made of them.
private struct Transcript: Equatable {
    struct Request: Equatable {
        var head: String
        var body: [UInt8] = []
        var ended = false
    }

    var requests: [Request] = []
    var rejection: HTTPRejection?

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.requests == rhs.requests && (lhs.rejection == nil) == (rhs.rejection == nil)
    }
}

private let limitPresets: [WhiskerServer.Limits] = {
    var tiny = WhiskerServer.Limits()
    tiny.maxRequestLineLength = 40
    tiny.maxHeaderBytes = 160
    tiny.maxHeaderCount = 4
    tiny.maxRequestBodySize = 32
    var small = WhiskerServer.Limits()
    small.maxRequestLineLength = 200
    small.maxHeaderBytes = 600
    small.maxHeaderCount = 12
    small.maxRequestBodySize = 1000
    var unlimitedBody = tiny
    unlimitedBody.maxRequestBodySize = nil
    unlimitedBody.maxRequestLineLength = 300  // longer than the header block may be
    return [tiny, small, WhiskerServer.Limits(), unlimitedBody]
}()

private func describe(_ head: RequestHead) -> String {
    let request = head.request
    var text = "\(request.method.rawValue) \(request.scheme ?? "-") \(request.authority ?? "-") \(request.path ?? "-")"
    text += " 1.\(head.isHTTP11 ? 1 : 0) \(head.framing) keepAlive=\(head.keepAlive) continue=\(head.expectsContinue)"
    for field in request.headerFields { text += "\n\(field.name.rawName): \(field.value)" }
    return text
}

/// What HTTP1Connection does with a head before a handler runs: the h2c check and routing, and a
/// 404 or 405 written by the server itself.
private func serve(_ head: RequestHead) {
    // The core asks a handover only about an HTTP/1.1 request without a body (HTTP1Connection).
    if head.isHTTP11, head.framing == .none, let payload = HTTP2Upgrade.settingsPayload(head.request) {
        guard payload.count % 6 == 0 else { fuzzFailure("h2c upgrade accepted for \(describe(head))") }
    }
    let path = head.request.path ?? "/"
    let pathOnly = path[..<(path.firstIndex(of: "?") ?? path.endIndex)]
    switch FuzzRoutes.router.match(method: head.request.method, path: pathOnly) {
    case .found:
        break
    case .methodNotAllowed(let allowed):
        let response = ResponseHeadWriter.routeMiss(method: head.request.method, path: pathOnly, allowed: allowed, serverMethods: FuzzRoutes.router.methods)
            .response(to: head.request, requestID: nil)
        checkHTTP1Response(HTTP1Connection.closingResponseBytes(response))
    case .notFound:
        let response = ResponseHeadWriter.routeMiss(method: head.request.method, path: pathOnly, allowed: [], serverMethods: FuzzRoutes.router.methods)
            .response(to: head.request, requestID: nil)
        checkHTTP1Response(HTTP1Connection.closingResponseBytes(response))
    }
}

/// Runs the parser over what is buffered, as HTTP1Connection.driveOnce does; false once it rejected.
private func drain(_ parser: inout HTTP1RequestParser, _ buffer: inout ReadBuffer, into transcript: inout Transcript, serving: Bool) -> Bool {
    // Each event but `.end` consumes at least one byte, so this bounds a parser that stops moving.
    var budget = 2 * buffer.readableBytes + 4
    while true {
        budget -= 1
        if budget < 0 { fuzzFailure("the parser returns events without consuming bytes") }
        let event: HTTP1RequestParser.Event?
        do {
            event = try parser.next(&buffer)
        } catch {
            if serving { checkHTTP1Response(HTTP1Connection.closingResponseBytes(LocalAnswer.rejection(error).response(to: nil, requestID: nil))) }
            transcript.rejection = error
            return false
        }
        switch event {
        case nil:
            return true
        case .head(let head):
            if let last = transcript.requests.last, !last.ended { fuzzFailure("a head inside a request") }
            transcript.requests.append(.init(head: describe(head)))
            if serving { serve(head) }
        case .body(let chunk):
            guard let last = transcript.requests.last, !last.ended else { fuzzFailure("a body chunk outside a request") }
            if chunk.isEmpty { fuzzFailure("an empty body chunk") }
            transcript.requests[transcript.requests.count - 1].body += chunk
        case .end:
            guard let last = transcript.requests.last, !last.ended else { fuzzFailure("an end outside a request") }
            transcript.requests[transcript.requests.count - 1].ended = true
            if !parser.isAtRequestStart { fuzzFailure("after .end the parser is not at a request start") }
            buffer.releaseStorageIfEmpty()  // as finishExchange does between requests
        }
    }
}

/// Every prefix of a line the full parse accepts must pass the check made while it arrives.
private func checkPartialLines(_ wire: UnsafeBufferPointer<UInt8>, cut: Int) {
    // Every CRLF line of the input, wherever it is (a pipelined head, or a body): the property
    // belongs to the two functions, not to where the line stands. All prefixes of the first
    // lines, one chosen prefix of the others.
    var lineStart = 0
    var lineNumber = 0
    while lineNumber < 32, lineStart < wire.count, let lf = wire[lineStart...].firstIndex(of: .lf) {
        defer {
            lineStart = lf + 1
            lineNumber += 1
        }
        guard lf > lineStart, wire[lf - 1] == .cr, lf - 1 > lineStart else { continue }
        let line = UnsafeBufferPointer(rebasing: wire[lineStart..<(lf - 1)])
        // The line with its CR, as it arrives before its LF.
        let withCR = UnsafeBufferPointer(rebasing: wire[lineStart..<lf])
        let prefixes: [Int] = lineNumber < 4 && withCR.count <= 256 ? Array(0...withCR.count) : [cut % (withCR.count + 1), withCR.count]
        for isRequestLine in [true, false] {
            let accepted = isRequestLine ? (try? RequestLine(line)) != nil : (try? HeadParser.field(line)) != nil
            guard accepted else { continue }
            for length in prefixes {
                let prefix = UnsafeBufferPointer(rebasing: withCR[..<(withCR.startIndex + length)])
                do {
                    if isRequestLine { try PartialHeadCheck.requestLine(prefix) } else { try PartialHeadCheck.fieldLine(prefix) }
                } catch {
                    fuzzFailure("PartialHeadCheck refuses \(length) bytes of an accepted \(isRequestLine ? "request" : "field") line: \(error)")
                }
            }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP1Parser(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let limits = limitPresets[Int(input.byte() & 3)]
    let cutChoice = Int(input.uint16())
    let wire = input.rest()
    let cut = cutChoice % (wire.count + 1)

    // The HTTP/2 preface check the connection makes before its first request.
    let whole = ReadBuffer(wire)
    let firstPiece = ReadBuffer(wire[..<cut])
    switch (HTTP2Preface.match(firstPiece), HTTP2Preface.match(whole)) {
    case (.yes, let later) where later != .yes, (.no, let later) where later != .no, (.broken, let later) where later != .broken:
        fuzzFailure("HTTP2Preface.match changed its mind when more bytes came: \(later)")
    default:
        break
    }

    // One delivery.
    var parserA = HTTP1RequestParser(limits: limits)
    var bufferA = whole
    var transcriptA = Transcript()
    _ = drain(&parserA, &bufferA, into: &transcriptA, serving: true)

    // Two deliveries, as two reads from a socket.
    var parserB = HTTP1RequestParser(limits: limits)
    var bufferB = ReadBuffer(capacity: 64)
    var transcriptB = Transcript()
    bufferB.append(contentsOf: wire[..<cut])
    if drain(&parserB, &bufferB, into: &transcriptB, serving: false) {
        bufferB.append(contentsOf: wire[cut...])
        _ = drain(&parserB, &bufferB, into: &transcriptB, serving: false)
    }

    // A bad line is refused as soon as its bytes are there, however they were cut: a line that
    // arrived whole (with its LF) included (Regressions/FuzzHTTP1Parser/complete-bad-line-waits-for-the-head,
    // fixed in 2d9035e). That a line the full parse accepts is never refused early is checked
    // line by line below.
    // Trailers at exactly maxHeaderBytes once got 431 only when the blank line's CR arrived
    // alone (Regressions/FuzzHTTP1Parser/trailer-limit-depends-on-the-cut, fixed in 16590d1).
    if transcriptA != transcriptB {
        fuzzFailure("""
            one delivery and two (cut at \(cut)) disagree:
            one: \(transcriptA.requests.map(\.head)) body \(transcriptA.requests.map(\.body.count)) rejection \(String(describing: transcriptA.rejection))
            two: \(transcriptB.requests.map(\.head)) body \(transcriptB.requests.map(\.body.count)) rejection \(String(describing: transcriptB.rejection))
            """)
    }
    checkPartialLines(wire, cut: cutChoice)
    return 0
}
