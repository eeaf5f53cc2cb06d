import HTTPTypes
package import WhiskerSockets

/// A strict, incremental HTTP/1.1 request parser (RFC 9110, RFC 9112) that consumes bytes from a
/// ``ReadBuffer`` and does no I/O, so it is tested from strings.
///
/// Call ``next(_:)`` whenever bytes arrive; it returns one event at a time and `nil` when it needs
/// more bytes. A request is `.head`, then zero or more `.body` chunks, then `.end`. Anything that
/// leaves the message framing in doubt throws an ``HTTPRejection`` that closes the connection:
///
/// - `Content-Length` together with `Transfer-Encoding`, differing `Content-Length` values, a
///   `Transfer-Encoding` whose final coding is not `chunked` (400; other codings before
///   `chunked` get 501), `Transfer-Encoding` in HTTP/1.0, bad chunk sizes or chunk endings;
/// - obs-fold, whitespace between a field name and its colon, NUL/CR/control characters in
///   values, a missing or repeated `Host` in HTTP/1.1;
/// - a bare LF as a line ending. RFC 9112 section 2.2 lets a recipient accept one; Whisker does
///   not, because servers and proxies that disagree on line endings is a known smuggling vector.
///
/// Limits: a request line longer than the limit gets 414, a header block or field count over
/// the limit 431, a body over the limit 413, an unknown HTTP major version 505.
package struct HTTP1RequestParser: Sendable {
    /// One step of a request.
    package enum Event: Sendable {
        /// The head is complete and valid.
        case head(RequestHead)
        /// A piece of the body.
        case body(ArraySlice<UInt8>)
        /// The request is complete, including any trailers (which are validated and dropped).
        case end
    }

    private enum State: Sendable {
        /// Looking for the end of the head; `scanned` bytes have been checked already and
        /// `lineStart` is where the current line began.
        case head(scanned: Int, lineStart: Int)
        case fixedBody(remaining: Int64)
        case chunkSize
        case chunkData(remaining: Int64)
        case chunkDataEnd
        case trailers(count: Int, bytes: Int)
        case end
    }

    private var state: State = .head(scanned: 0, lineStart: 0)
    private var bodyBytes: Int64 = 0
    /// Chunk-extension bytes of the current request, against ``ChunkExtensions/maxTotalBytes``.
    private var extensionBytes = 0
    private let limits: HTTP1ParserLimits

    /// The longest chunk-size line, extensions included.
    static let maxChunkLineLength = 4096

    /// Creates a parser.
    /// - Parameter limits: The limits to enforce.
    package init(limits: HTTP1ParserLimits) {
        self.limits = limits
    }

    /// True between requests, when no byte of the next request has been consumed.
    package var isAtRequestStart: Bool {
        if case .head(0, 0) = state { return true }
        return false
    }

    /// True while the parser is inside a request body.
    package var isInBody: Bool {
        switch state {
        case .fixedBody, .chunkSize, .chunkData, .chunkDataEnd, .trailers: true
        case .head, .end: false
        }
    }

    /// Consumes bytes from the front of `buffer` and returns the next event, or `nil` if more
    /// bytes are needed.
    /// - Throws: ``HTTPRejection`` for a request that must be refused.
    package mutating func next(_ buffer: inout ReadBuffer) throws(HTTPRejection) -> Event? {
        switch state {
        case .head(let scanned, let lineStart):
            return try parseHead(&buffer, scanned: scanned, lineStart: lineStart)
        case .fixedBody(let remaining):
            guard let (bytes, left) = Self.takeBody(&buffer, remaining: remaining) else { return nil }
            state = left == 0 ? .end : .fixedBody(remaining: left)
            return .body(bytes)
        case .chunkSize:
            return try parseChunkSize(&buffer)
        case .chunkData(let remaining):
            guard let (bytes, left) = Self.takeBody(&buffer, remaining: remaining) else { return nil }
            state = left == 0 ? .chunkDataEnd : .chunkData(remaining: left)
            return .body(bytes)
        case .chunkDataEnd:
            guard buffer.readableBytes >= 2 else { return nil }
            let ok = buffer.withUnsafeReadableBytes { $0[0] == .cr && $0[1] == .lf }
            guard ok else { throw .badRequest("chunk data not followed by CRLF") }
            buffer.moveReaderIndex(forwardBy: 2)
            state = .chunkSize
            return try parseChunkSize(&buffer)
        case .trailers(let count, let bytes):
            return try parseTrailers(&buffer, count: count, bytes: bytes)
        case .end:
            state = .head(scanned: 0, lineStart: 0)
            return .end
        }
    }

    // MARK: Head

    private mutating func parseHead(_ buffer: inout ReadBuffer, scanned: Int, lineStart: Int) throws(HTTPRejection) -> Event? {
        // RFC 9112 section 2.2: ignore empty lines before a request line (some clients send CRLF after a body).
        if scanned == 0 {
            while buffer.readableBytes >= 2, buffer.withUnsafeReadableBytes({ $0[0] == .cr && $0[1] == .lf }) {
                buffer.moveReaderIndex(forwardBy: 2)
            }
            if buffer.readableBytes == 1, buffer.withUnsafeReadableBytes({ $0[0] == .cr }) { return nil }
        }
        let scan = try buffer.withUnsafeReadableBytes { (bytes) throws(HTTPRejection) -> HeadScan in
            try Self.scanForHeadEnd(bytes, from: scanned, lineStart: lineStart, limits: limits)
        }
        switch scan {
        case .needMore(let scanned, let lineStart):
            state = .head(scanned: scanned, lineStart: lineStart)
            return nil
        case .complete(let length):
            let head = try buffer.withUnsafeReadableBytes { (bytes) throws(HTTPRejection) -> RequestHead in
                try HeadParser(limits: limits).parse(UnsafeBufferPointer(rebasing: bytes[0..<length]))
            }
            buffer.moveReaderIndex(forwardBy: length)
            bodyBytes = 0
            extensionBytes = 0
            switch head.framing {
            case .none: state = .end
            case .length(let length): state = length == 0 ? .end : .fixedBody(remaining: length)
            case .chunked: state = .chunkSize
            }
            return .head(head)
        }
    }

    private enum HeadScan {
        case needMore(scanned: Int, lineStart: Int)
        /// The head, through its final CRLF CRLF, is `length` bytes.
        case complete(length: Int)
    }

    /// Finds the blank line that ends the head, checking every line ending is CRLF and the limits.
    private static func scanForHeadEnd(_ bytes: UnsafeBufferPointer<UInt8>, from scanned: Int, lineStart: Int, limits: HTTP1ParserLimits) throws(HTTPRejection) -> HeadScan {
        let firstNewLine = lineStart
        var lineStart = lineStart
        var index = scanned
        while let lf = firstIndex(of: .lf, in: bytes, from: index) {
            guard lf > 0, bytes[lf - 1] == .cr else { throw .badRequest("bare LF line ending (only CRLF is accepted)") }
            if lineStart == 0 && lf + 1 > limits.maxRequestLineLength + 2 {
                throw HTTPRejection(.uriTooLong, "request line longer than \(limits.maxRequestLineLength) bytes")
            }
            if lf + 1 > limits.maxHeaderBytes {
                throw HTTPRejection(.requestHeaderFieldsTooLarge, "header block larger than \(limits.maxHeaderBytes) bytes")
            }
            if lf - 1 == lineStart && lineStart > 0 { return .complete(length: lf + 1) }
            lineStart = lf + 1
            index = lf + 1
        }
        if lineStart == 0 && bytes.count > limits.maxRequestLineLength + 2 {
            throw HTTPRejection(.uriTooLong, "request line longer than \(limits.maxRequestLineLength) bytes")
        }
        if bytes.count > limits.maxHeaderBytes {
            throw HTTPRejection(.requestHeaderFieldsTooLarge, "header block larger than \(limits.maxHeaderBytes) bytes")
        }
        // The head is not complete: the lines that are get their full check now (a bad request
        // line followed by nothing must not wait for a blank line that never comes), and the line
        // still arriving is refused if no valid head could continue it. A head that arrives whole
        // skips this: HeadParser checks it once.
        var completeLine = firstNewLine
        while completeLine < lineStart, let lf = firstIndex(of: .lf, in: bytes, from: completeLine) {
            let line = UnsafeBufferPointer(rebasing: bytes[completeLine..<(lf - 1)])
            if completeLine == 0 { _ = try RequestLine(line) } else { _ = try HeadParser.field(line) }
            completeLine = lf + 1
        }
        let partial = UnsafeBufferPointer(rebasing: bytes[lineStart...])
        if lineStart == 0 { try PartialHeadCheck.requestLine(partial) } else { try PartialHeadCheck.fieldLine(partial) }
        return .needMore(scanned: bytes.count, lineStart: lineStart)
    }

    // MARK: Chunked body

    private mutating func parseChunkSize(_ buffer: inout ReadBuffer) throws(HTTPRejection) -> Event? {
        let parsed = try buffer.withUnsafeReadableBytes { (bytes) throws(HTTPRejection) -> (size: Int64, length: Int, extensions: Int)? in
            guard let lf = Self.firstIndex(of: .lf, in: bytes, from: 0) else {
                if bytes.count > Self.maxChunkLineLength { throw .badRequest("chunk size line too long") }
                return nil
            }
            guard lf > 0, bytes[lf - 1] == .cr else { throw .badRequest("bare LF after chunk size") }
            guard lf <= Self.maxChunkLineLength else { throw .badRequest("chunk size line too long") }
            let (size, extensions) = try Self.chunkSize(UnsafeBufferPointer(rebasing: bytes[0..<(lf - 1)]))
            return (size, lf + 1, extensions)
        }
        guard let parsed else { return nil }
        extensionBytes += parsed.extensions
        if extensionBytes > ChunkExtensions.maxTotalBytes { throw .badRequest("chunk extensions longer than \(ChunkExtensions.maxTotalBytes) bytes in all") }
        buffer.moveReaderIndex(forwardBy: parsed.length)
        if parsed.size == 0 {
            state = .trailers(count: 0, bytes: 0)
            return try parseTrailers(&buffer, count: 0, bytes: 0)
        }
        bodyBytes += parsed.size
        if let rejection = limits.bodyRejection(size: bodyBytes, declared: false) {
            throw rejection
        }
        state = .chunkData(remaining: parsed.size)
        return try next(&buffer)
    }

    /// `chunk-size [ BWS ";" chunk-ext ]`: hex digits, then optional extensions, which are checked
    /// (``ChunkExtensions``) and ignored. Returns the size and how many bytes the extensions took.
    private static func chunkSize(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPRejection) -> (Int64, Int) {
        var size: Int64 = 0
        var index = 0
        var significantDigits = 0
        while index < line.count, let digit = line[index].hexValue {
            if size > 0 || digit > 0 { significantDigits += 1 }
            guard significantDigits < 16 else { throw .badRequest("chunk size too large") }
            size = size << 4 | Int64(digit)
            index += 1
        }
        guard index > 0 else { throw .badRequest("invalid chunk size") }
        let digits = index
        while index < line.count, line[index] == .space || line[index] == .tab { index += 1 }
        guard index == line.count || line[index] == UInt8(ascii: ";") else { throw .badRequest("invalid chunk size") }
        try ChunkExtensions.validate(line, from: index)
        return (size, line.count - digits)
    }

    private mutating func parseTrailers(_ buffer: inout ReadBuffer, count: Int, bytes: Int) throws(HTTPRejection) -> Event? {
        var count = count
        var total = bytes
        while true {
            let line = try buffer.withUnsafeReadableBytes { (bytes) throws(HTTPRejection) -> Int? in
                guard let lf = Self.firstIndex(of: .lf, in: bytes, from: 0) else {
                    // A lone CR may be the blank line's, which is not counted once complete.
                    let pending = bytes.count == 1 && bytes[0] == .cr ? 0 : bytes.count
                    if total + pending > limits.maxHeaderBytes {
                        throw HTTPRejection(.requestHeaderFieldsTooLarge, "trailer section too large")
                    }
                    return nil
                }
                guard lf > 0, bytes[lf - 1] == .cr else { throw .badRequest("bare LF line ending in trailers") }
                if lf > 1 { _ = try HeadParser.field(UnsafeBufferPointer(rebasing: bytes[0..<(lf - 1)])) }
                return lf + 1
            }
            guard let line else {
                state = .trailers(count: count, bytes: total)
                return nil
            }
            buffer.moveReaderIndex(forwardBy: line)
            if line == 2 {
                state = .head(scanned: 0, lineStart: 0)
                return .end
            }
            count += 1
            total += line
            if count > limits.maxHeaderCount { throw HTTPRejection(.requestHeaderFieldsTooLarge, "too many trailer fields") }
            if total > limits.maxHeaderBytes { throw HTTPRejection(.requestHeaderFieldsTooLarge, "trailer section too large") }
        }
    }

    // MARK: Helpers

    /// Takes up to `remaining` body bytes from the buffer: the bytes and how many are still to come,
    /// or `nil` when the buffer is empty.
    private static func takeBody(_ buffer: inout ReadBuffer, remaining: Int64) -> (ArraySlice<UInt8>, Int64)? {
        let available = buffer.readableBytes
        guard available > 0 else { return nil }
        let count = Int(min(Int64(available), remaining))
        return (buffer.readBytes(count), remaining - Int64(count))
    }

    @inline(__always)
    static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
        return UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) - base
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension UInt8 {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let colon = UInt8(ascii: ":")
    static let comma = UInt8(ascii: ",")
}
