import HTTPTypes

/// Parses one complete head (request line, fields, blank line) whose line endings were already
/// checked to be CRLF, and applies RFC 9112's framing rules.
package struct HeadParser {
    let limits: HTTP1ParserLimits

    func parse(_ head: UnsafeBufferPointer<UInt8>) throws(HTTPRejection) -> RequestHead {
        // Every line ends in CRLF; the last two bytes are the blank line's CRLF.
        guard let firstLF = HTTP1RequestParser.firstIndex(of: .lf, in: head, from: 0) else {
            throw .badRequest("incomplete request line")
        }
        let line = try RequestLine(UnsafeBufferPointer(rebasing: head[0..<(firstLF - 1)]))

        var fields = HTTPFields()
        var host: String?
        var hostCount = 0
        var contentLength: Int64?
        var transferEncodings: [Substring] = []
        var connectionClose = false
        var connectionKeepAlive = false
        var expectsContinue = false
        var count = 0

        var start = firstLF + 1
        while start < head.count - 2 {
            guard let lf = HTTP1RequestParser.firstIndex(of: .lf, in: head, from: start) else { break }
            let field = try Self.field(UnsafeBufferPointer(rebasing: head[start..<(lf - 1)]))
            start = lf + 1
            count += 1
            guard count <= limits.maxHeaderCount else {
                throw HTTPRejection(.requestHeaderFieldsTooLarge, "more than \(limits.maxHeaderCount) header fields")
            }
            // Told apart by length first: a `String` switch compares the name with every case.
            switch (field.name.canonicalName.utf8.count, field.name.canonicalName) {
            case (4, "host"):
                hostCount += 1
                guard Self.isValidHost(field.value) else { throw .badRequest("invalid Host \"\(field.value)\"") }
                host = field.value
                continue  // carried as the request's authority, as in HTTP/2
            case (14, "content-length"):
                for element in field.value.split(separator: ",", omittingEmptySubsequences: false) {
                    let value = try Self.contentLength(element.trimmingOWS())
                    if let contentLength, contentLength != value {
                        throw .badRequest("differing Content-Length values")
                    }
                    contentLength = value
                }
            case (17, "transfer-encoding"):
                transferEncodings += field.value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingOWS() }
            case (10, "connection"):
                for token in field.value.split(separator: ",") {
                    let token = token.trimmingOWS().lowercased()
                    if token == "close" { connectionClose = true }
                    if token == "keep-alive" { connectionKeepAlive = true }
                }
            case (6, "expect"):
                guard field.value.trimmingOWS().lowercased() == "100-continue" else {
                    throw HTTPRejection(.expectationFailed, "unsupported expectation \"\(field.value)\"")
                }
                expectsContinue = line.isHTTP11  // RFC 9110 section 10.1.1: ignored in HTTP/1.0
            default:
                break
            }
            fields.append(field)
        }

        if line.isHTTP11 {
            guard hostCount == 1 else {
                throw .badRequest(hostCount == 0 ? "missing Host header" : "more than one Host header")
            }
        } else if hostCount > 1 {
            throw .badRequest("more than one Host header")
        }

        let framing: BodyFraming
        if !transferEncodings.isEmpty {
            guard contentLength == nil else { throw .badRequest("both Content-Length and Transfer-Encoding present") }
            guard line.isHTTP11 else { throw .badRequest("Transfer-Encoding in an HTTP/1.0 request") }
            guard transferEncodings.last?.lowercased() == "chunked" else {
                throw .badRequest("Transfer-Encoding does not end in chunked")
            }
            guard transferEncodings.count == 1 else {
                if transferEncodings.dropLast().contains(where: { $0.lowercased() == "chunked" }) {
                    throw .badRequest("chunked applied more than once")
                }
                throw HTTPRejection(.notImplemented, "unsupported transfer coding \"\(transferEncodings[0])\"")
            }
            framing = .chunked
        } else if let contentLength, contentLength > 0 {
            framing = .length(contentLength)
        } else {
            framing = .none
        }
        if case .length(let length) = framing, let rejection = limits.bodyRejection(size: length, declared: true) {
            throw rejection
        }

        let keepAlive = line.isHTTP11 ? !connectionClose : (connectionKeepAlive && !connectionClose)
        let request = HTTPRequest(
            method: line.method,
            scheme: "http",
            authority: line.authority ?? host,
            path: line.path,
            headerFields: fields
        )
        return RequestHead(
            request: request,
            isHTTP11: line.isHTTP11,
            framing: framing,
            keepAlive: keepAlive,
            expectsContinue: expectsContinue && framing != .none
        )
    }

    /// `field-name ":" OWS field-value OWS`, with the name a token and the value free of
    /// NUL, CR, LF and other controls.
    static func field(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPRejection) -> HTTPField {
        guard !line.isEmpty else { throw .badRequest("empty field line") }
        guard let colon = try colonIndex(line) else { throw .badRequest("header field without a colon") }
        guard colon > 0 else { throw .badRequest("empty header field name") }
        var valueStart = colon + 1
        var valueEnd = line.count
        while valueStart < valueEnd, line[valueStart] == .space || line[valueStart] == .tab { valueStart += 1 }
        while valueEnd > valueStart, line[valueEnd - 1] == .space || line[valueEnd - 1] == .tab { valueEnd -= 1 }
        for index in valueStart..<valueEnd {
            let byte = line[index]
            guard byte.isFieldValueCharacter else {
                throw .badRequest(byte == 0 ? "NUL in header field value" : byte == .cr ? "CR in header field value" : "control character in header field value")
            }
        }
        let nameBytes = UnsafeBufferPointer(rebasing: line[0..<colon])
        guard let name = KnownRequestTokens.fieldName(nameBytes) ?? HTTPField.Name(String(decoding: nameBytes, as: UTF8.self)) else {
            throw .badRequest("invalid header field name")
        }
        return HTTPField(name: name, value: String(decoding: UnsafeBufferPointer(rebasing: line[valueStart..<valueEnd]), as: UTF8.self))
    }

    /// Where a field line's name ends (its colon), or `nil` when the line has none (yet): every
    /// byte before it must be a token character, and the line must not start with whitespace
    /// (obs-fold). Shared by the full parse and ``PartialHeadCheck`` on a line still arriving.
    static func colonIndex(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPRejection) -> Int? {
        if let first = line.first, first == .space || first == .tab { throw .badRequest("obsolete line folding (obs-fold) in header") }
        for index in line.indices {
            let byte = line[index]
            if byte == .colon { return index }
            guard byte.isTokenCharacter else {
                if byte == .space || byte == .tab { throw .badRequest("whitespace between header field name and colon") }
                throw .badRequest("invalid character in header field name")
            }
        }
        return nil
    }

    /// RFC 9112 section 3.2: `Host = uri-host [ ":" port ]`, where `uri-host` is an IP literal in
    /// brackets or a reg-name (unreserved, percent-encoded and sub-delimiter characters). A comma,
    /// although a sub-delimiter, is refused: it is what two Host lines joined into a list look like.
    /// An empty value is valid (a target without an authority).
    ///
    /// Read as contiguous bytes: through `Substring.UTF8View`'s indices it was about 55
    /// instructions a byte (`127.0.0.1:8080`: 830 a request, counted with cachegrind;
    /// in a debug build, reaching the contiguous bytes allocates twice a call, which the debug
    /// allocation budget counts; a release build does not allocate).
    package static func isValidHost(_ value: some StringProtocol) -> Bool {
        let text = Substring(value)
        if let valid = text.utf8.withContiguousStorageIfAvailable({ isValidHost(bytes: $0) }) { return valid }
        return Array(text.utf8).withUnsafeBufferPointer { isValidHost(bytes: $0) }
    }

    private static func isValidHost(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        if bytes.first == UInt8(ascii: "[") {
            index = 1
            while index < bytes.count && bytes[index] != UInt8(ascii: "]") {
                let byte = bytes[index]
                guard byte.isHexDigit || byte == .colon || byte == UInt8(ascii: ".") else { return false }
                index += 1
            }
            guard index < bytes.count, index > 1 else { return false }
            index += 1
        } else {
            while index < bytes.count && bytes[index] != .colon {
                guard bytes[index].isRegNameCharacter else { return false }
                index += 1
            }
        }
        guard index < bytes.count else { return true }
        guard bytes[index] == .colon else { return false }
        index += 1
        while index < bytes.count {
            guard bytes[index].isDigit else { return false }
            index += 1
        }
        return true
    }

    static func contentLength(_ text: Substring) throws(HTTPRejection) -> Int64 {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw .badRequest("invalid Content-Length \"\(text)\"")
        }
        guard let value = Int64(text) else { throw HTTPRejection(.contentTooLarge, "Content-Length \(text) is too large") }
        return value
    }
}

extension UInt8 {
    /// The value of an ASCII hex digit, either case.
    @inline(__always)
    package var hexValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// What a field value may hold (RFC 9110: field-vchar, obs-text, SP, HTAB), and so a quoted
    /// string and what its backslash may escape: never CR, LF, NUL or DEL.
    var isFieldValueCharacter: Bool {
        self == .tab || (self >= 0x20 && self != 0x7F)
    }

    /// RFC 9110 `tchar`.
    var isTokenCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }

    var isHexDigit: Bool {
        isDigit || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f")) || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }

    /// RFC 3986 `reg-name` characters (unreserved, `%`, sub-delims), without `,`.
    var isRegNameCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "%"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ";"), UInt8(ascii: "="):
            true
        default:
            false
        }
    }
}

extension StringProtocol {
    /// Drops optional whitespace (SP, HTAB) at both ends.
    package func trimmingOWS() -> Substring {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return Substring(slice)
    }
}
