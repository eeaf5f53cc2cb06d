import Synchronization

/// Keeps credentials out of what Whisker logs. Nothing the server or the transport logs carries a
/// request's header values, but text that describes a request can reach a log line all the same:
/// an error's description (the OpenAPI runtime's `ServerError` holds the whole request head, every
/// header with its value), a query string (`?api_key=...`). Such text passes ``scrub(_:)`` first.
///
///     logger.error("handler failed", metadata: ["error": "\(LogRedaction.scrub("\(error)"))"])
package enum LogRedaction {
    /// What a credential's value is replaced with.
    package static let placeholder = "<redacted>"

    /// Whether a field or parameter of this name carries a credential: `Authorization`,
    /// `Proxy-Authorization`, `Cookie`, `Set-Cookie`, and names that look like keys, tokens,
    /// secrets, passwords or sessions (`X-API-Key`, `api_key`, `access_token`, `X-Auth-Token`).
    package static func isSensitive(_ name: some StringProtocol) -> Bool {
        let name = name.lowercased()
        if name == "authorization" || name == "proxy-authorization" || name == "cookie" || name == "set-cookie" { return true }
        return sensitiveParts.withLock { $0.contains { name.contains($0) } }
    }

    private static let sensitiveParts = Mutex(["api-key", "api_key", "apikey", "token", "secret", "password", "passwd", "session", "credential", "x-auth", "signature"])

    /// Treats these names (and names containing them) as sensitive too, from now on, process-wide: an OpenAPI document's `apiKey` parameters.
    package static func addSensitiveNames(_ names: some Sequence<String>) { sensitiveParts.withLock { $0 += names.map { $0.lowercased() }.filter { !$0.isEmpty && !$0.contains(":") && !$0.contains("=") } } }

    /// `text` with the value after every sensitive name (see ``isSensitive(_:)``) replaced by
    /// ``placeholder``, in the forms `name: value` (a header field as it is described) and
    /// `name=value` (a query or form parameter). A value ends at a line end, a quote, a bracket,
    /// `,` or `&`, and at `;` unless it is a cookie's (whose pairs `;` separates); over-redacting
    /// the rest of a line is preferred to leaving part of a credential.
    package static func scrub(_ text: String) -> String {
        guard mayHoldCredentials(text) else { return text }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index].isNameByte, index == 0 || !bytes[index - 1].isNameByte else {
                output.append(bytes[index])
                index += 1
                continue
            }
            var end = index
            while end < bytes.count, bytes[end].isNameByte { end += 1 }
            output += bytes[index..<end]
            let name = String(decoding: bytes[index..<end], as: UTF8.self)
            index = end
            var separator = index
            while separator < bytes.count, bytes[separator] == UInt8(ascii: " ") { separator += 1 }
            guard separator < bytes.count, bytes[separator] == UInt8(ascii: ":") || bytes[separator] == UInt8(ascii: "="), isSensitive(name) else { continue }
            separator += 1
            while separator < bytes.count, bytes[separator] == UInt8(ascii: " ") { separator += 1 }
            output += bytes[index..<separator]
            let isCookie = name.lowercased().hasSuffix("cookie")
            var valueEnd = separator
            while valueEnd < bytes.count, !bytes[valueEnd].endsValue(isCookie: isCookie) { valueEnd += 1 }
            if valueEnd > separator { output += placeholder.utf8 }
            index = valueEnd
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A request target for a log line: the path as it is, its query with credential-like
    /// parameters' values replaced (`/api/emoji?api_key=<redacted>&count=3`).
    package static func target(_ path: String) -> String {
        path.utf8.contains(UInt8(ascii: "?")) ? scrub(path) : path
    }

    /// A quick look for any sensitive name at all (most text has none): `:` or `=` must appear,
    /// and a telltale fragment of a sensitive name.
    private static func mayHoldCredentials(_ text: String) -> Bool {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "=") }) else { return false }
        let lowered = text.lowercased()
        return lowered.contains("auth") || lowered.contains("cookie") || sensitiveParts.withLock { $0.contains { lowered.contains($0) } }
    }
}

extension UInt8 {
    /// A byte of a field or parameter name as the scrubber reads one.
    fileprivate var isNameByte: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): true
        default: false
        }
    }

    fileprivate func endsValue(isCookie: Bool) -> Bool {
        switch self {
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "]"), UInt8(ascii: ")"), UInt8(ascii: ","), UInt8(ascii: "&"): true
        case UInt8(ascii: ";"): !isCookie
        default: false
        }
    }
}
