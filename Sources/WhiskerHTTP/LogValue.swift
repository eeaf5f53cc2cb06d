/// Text a client controls, made safe for a log line: a header value, a method, a request target,
/// a rejection's reason that quotes one. Unquoted, `Expect: x peer=1.2.3.4 status=200` would add
/// two fields to a `key=value` line (the issue-38 log forging); so every metadata value and message
/// part that may hold client text passes ``quoted(_:)`` (logfmt's rule), and a request target in a
/// message passes ``target(_:)``.
///
///     logger.info("rejected request", metadata: ["peer": "\(peer)", "reason": "\(LogValue.quoted(rejection.reason))"])
///     // reason="unsupported expectation \"x peer=1.2.3.4 status=200\""
package enum LogValue {
    /// `text` as one logfmt value: unchanged when it is a bare word (no space, `=`, `"`, `\`,
    /// control character or non-ASCII space); else wrapped in double quotes, with `"` and `\`
    /// escaped by a backslash and control characters as `\n`, `\r`, `\t` or `\xHH`. Empty text
    /// is `""`.
    package static func quoted(_ text: some StringProtocol) -> String {
        guard text.isEmpty || text.unicodeScalars.contains(where: needsQuotes) else { return String(text) }
        return "\"" + escaped(text) + "\""
    }

    /// A request target for a message such as the access log's `GET /path?query 200`: unchanged
    /// when it is an origin-form target (`/...`, or `*`) without space, quote, backslash or control
    /// character, so that the usual line stays as it was; anything else (an authority-form target
    /// `peer=1.2.3.4`, a space HTTP/2 let through) quoted as ``quoted(_:)`` does.
    package static func target(_ text: some StringProtocol) -> String {
        let bare = (text.first == "/" || text == "*") && !text.unicodeScalars.contains { $0 != "=" && needsQuotes($0) }
        return bare ? String(text) : "\"" + escaped(text) + "\""
    }

    private static func needsQuotes(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case " ", "=", "\"", "\\": true
        default: scalar.value < 0x20 || scalar.value == 0x7F || (scalar.value >= 0x80 && (scalar.properties.isWhitespace || scalar.value < 0xA0))
        }
    }

    private static func escaped(_ text: some StringProtocol) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (scalar.value >= 0x80 && scalar.value < 0xA0) {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\x" + (hex.count < 2 ? "0" : "") + hex
                } else if scalar.value >= 0x80 && scalar.properties.isWhitespace {
                    // A non-ASCII space (U+2028, U+00A0, ...) that a viewer may break a line at.
                    result += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
