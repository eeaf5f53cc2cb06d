import WhiskerCore
import WhiskerSockets
import HTTPTypes

/// `Upgrade: h2c` (RFC 7540 §3.2): a cleartext HTTP/1.1 request that asks to continue in HTTP/2,
/// with its settings in `HTTP2-Settings`. The server answers 101, and the request becomes
/// stream 1 of the new HTTP/2 connection.
///
/// Only a request without a body is upgraded (as nghttp2's own server does); one with a body is
/// served over HTTP/1.1, which the RFC allows. RFC 9113 deprecates the mechanism; it is kept for
/// clients that still use it (`curl --http2` on `http://`), off unless a listener accepts it
/// (`Listener.acceptsH2CUpgrade`, `Configuration.acceptsH2CUpgrade`): through a proxy that relays
/// `Upgrade`, a 101 is a tunnel past the proxy (h2c smuggling).
enum HTTP2Upgrade {
    static let switchingProtocols = Array("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n".utf8)
    private static let settingsField = HTTPField.Name("HTTP2-Settings")!

    /// The decoded SETTINGS payload if `request` (HTTP/1.1, without a body: the core asks only
    /// about those) asks for a valid h2c upgrade, else `nil`.
    static func settingsPayload(_ request: HTTPRequest) -> [UInt8]? {
        let fields = request.headerFields
        guard fields[values: .upgrade].contains(where: { $0.split(separator: ",").contains { $0.trimmed().lowercased() == "h2c" } }),
            connectionTokens(fields).isSuperset(of: ["upgrade", "http2-settings"]),
            let encoded = fields[values: settingsField].first, fields[values: settingsField].count == 1
        else { return nil }
        return base64URLDecoded(encoded)
    }

    private static func connectionTokens(_ fields: HTTPFields) -> Set<String> {
        Set(fields[values: .connection].flatMap { $0.split(separator: ",").map { $0.trimmed().lowercased() } })
    }

    /// Decodes base64url without padding (RFC 4648 §5), as `HTTP2-Settings` is; `nil` if malformed.
    static func base64URLDecoded(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for character in text.utf8 {
            let value: UInt8
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = character - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = character - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            case UInt8(ascii: "="): continue
            default: return nil
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // A SETTINGS payload is a whole number of 6-byte entries.
        return bytes.count % 6 == 0 ? bytes : nil
    }
}

extension Substring {
    fileprivate func trimmed() -> Substring {
        var result = self
        while result.first == " " || result.first == "\t" { result.removeFirst() }
        while result.last == " " || result.last == "\t" { result.removeLast() }
        return result
    }
}
