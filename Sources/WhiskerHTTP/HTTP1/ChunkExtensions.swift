/// The extensions of a chunk-size line, checked against RFC 9112 §7.1.1 and then ignored:
///
///     chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
///     chunk-ext-name = token
///     chunk-ext-val  = token / quoted-string
///
/// Strictly, because a lenient reader and a strict one in front of it (or behind it) can disagree
/// on where the line ends: an unclosed quote, or a quoted string holding CR or LF, is how a second
/// request gets hidden inside an extension (request smuggling, the class of Kestrel's
/// CVE-2025-55315). Every such line is refused, with a reason for the log.
enum ChunkExtensions {
    /// The most extension bytes one request's chunk lines may carry in all (a body of one-byte
    /// chunks, each with a long extension, would cost far more to read than it delivers).
    static let maxTotalBytes = 16 * 1024

    /// Checks `line[start...]`, which follows the chunk size and its whitespace: empty, or
    /// extensions that start with ";".
    static func validate(_ line: UnsafeBufferPointer<UInt8>, from start: Int) throws(HTTPRejection) {
        var index = start
        func skipWhitespace() {
            while index < line.count, line[index] == .space || line[index] == .tab { index += 1 }
        }
        func token() throws(HTTPRejection) {
            let first = index
            while index < line.count, line[index].isTokenCharacter { index += 1 }
            guard index > first else { throw .badRequest("malformed chunk extension") }
        }
        while true {
            skipWhitespace()
            guard index < line.count else { return }
            guard line[index] == UInt8(ascii: ";") else { throw .badRequest("malformed chunk extension") }
            index += 1
            skipWhitespace()
            try token()
            skipWhitespace()
            guard index < line.count, line[index] == UInt8(ascii: "=") else { continue }
            index += 1
            skipWhitespace()
            if index < line.count, line[index] == UInt8(ascii: "\"") {
                index = try endOfQuotedString(line, from: index + 1)
            } else {
                try token()
            }
        }
    }

    /// The index after the closing quote of a quoted string whose content starts at `start`.
    private static func endOfQuotedString(_ line: UnsafeBufferPointer<UInt8>, from start: Int) throws(HTTPRejection) -> Int {
        var index = start
        while index < line.count {
            let byte = line[index]
            switch byte {
            case UInt8(ascii: "\""):
                return index + 1
            case UInt8(ascii: "\\"):
                // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                guard index + 1 < line.count, line[index + 1].isFieldValueCharacter else {
                    throw .badRequest("invalid escape in a chunk extension's quoted string")
                }
                index += 2
            default:
                guard byte.isFieldValueCharacter else { throw .badRequest("invalid character in a chunk extension's quoted string") }
                index += 1
            }
        }
        throw .badRequest("unclosed quoted string in chunk extension")
    }
}
