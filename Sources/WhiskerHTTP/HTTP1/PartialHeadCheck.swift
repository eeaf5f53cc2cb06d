/// Refuses a request head while it is still arriving, at the first byte that no valid head could
/// have there, instead of waiting for the end of the line: a TLS ClientHello sent to the cleartext
/// port (0x16 0x03 …), binary noise, or a line that has gone wrong is answered 400 at once, not
/// after the header timeout.
enum PartialHeadCheck {
    /// Checks the unfinished first line `line` (no LF yet) as a prefix of
    /// `method SP request-target SP HTTP/d.d CR`.
    static func requestLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPRejection) {
        var index = 0
        // method = 1*tchar
        while index < line.count, line[index] != .space {
            guard line[index].isTokenCharacter else { throw .badRequest("invalid character in the request method") }
            index += 1
        }
        guard index < line.count else { return }
        guard index > 0 else { throw .badRequest("request line starts with a space") }
        index += 1
        // request-target: visible ASCII but `#`, not empty
        let targetStart = index
        while index < line.count, line[index] != .space {
            guard line[index] > 0x20, line[index] < 0x7F else { throw .badRequest("invalid character in request target") }
            guard line[index] != UInt8(ascii: "#") else { throw RequestLine.fragmentRejection }
            index += 1
        }
        guard index < line.count else { return }
        guard index > targetStart else { throw .badRequest("empty request target") }
        index += 1
        // HTTP-version = "HTTP/" DIGIT "." DIGIT, then CR
        let version = Array("HTTP/0.0\r".utf8)
        var position = 0
        while index < line.count {
            guard position < version.count else { throw .badRequest("malformed HTTP version") }
            let byte = line[index], expected = version[position]
            let fits = expected == UInt8(ascii: "0") ? byte.isDigit : byte == expected
            guard fits else { throw .badRequest("malformed HTTP version") }
            index += 1
            position += 1
        }
    }

    /// Checks an unfinished field line `line` (no LF yet): a field name of token characters up to
    /// its colon. A line that is the blank line's CR, or that has its colon, is left to the full parse.
    static func fieldLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPRejection) {
        guard let first = line.first, first != .cr else { return }
        _ = try HeadParser.colonIndex(line)
    }
}
