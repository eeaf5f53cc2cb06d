public import HTTPTypes
import WhiskerHTTP

/// The opening handshake (RFC 6455 4.2), I/O-free: whether a request head asks for a WebSocket
/// the way the RFC requires, and the fields of the `101 Switching Protocols` that accepts it.
public enum WebSocketHandshake {
    /// The GUID the accept value is derived with (RFC 6455 1.3).
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// What to answer a request on a WebSocket route.
    public enum Verdict: Sendable, Equatable {
        /// Switch protocols: `101` with these fields (`Upgrade`, `Connection`, `Sec-WebSocket-Accept`).
        case accept(HTTPFields)
        /// Refuse with `status` (400, 403 or 426) and these fields; `reason` says why, for the
        /// log and the problem details.
        case reject(HTTPResponse.Status, HTTPFields, reason: String)
    }

    /// Checks `request` against RFC 6455 4.2.1: `GET`, `Upgrade: websocket`, `Connection`
    /// naming `upgrade` (a token list, any case), `Sec-WebSocket-Version: 13` (else 426 naming
    /// 13, 4.4), a `Sec-WebSocket-Key` that is the base64 of 16 bytes (else 400).
    /// - Parameters:
    ///   - request: The request head.
    ///   - allowsOrigin: Decides on the `Origin` field (`nil` when absent); refused: 403.
    /// - Returns: The verdict.
    public static func verdict(for request: HTTPRequest, allowsOrigin: ((String?) -> Bool)? = nil) -> Verdict {
        let fields = request.headerFields
        guard request.method == .get else {
            return .reject(.methodNotAllowed, [.allow: "GET"], reason: "a WebSocket handshake must be a GET")
        }
        guard tokens(fields[values: .upgrade]).contains("websocket") else {
            return .reject(.upgradeRequired, [.upgrade: "websocket", .connection: "Upgrade"], reason: "this route speaks WebSocket only: the request has no `Upgrade: websocket`")
        }
        guard tokens(fields[values: .connection]).contains("upgrade") else {
            return .reject(.badRequest, [:], reason: "`Connection` does not name `upgrade`")
        }
        let versions = fields[values: .secWebSocketVersion]
        guard versions.count == 1, versions[0].trimmed == "13" else {
            return .reject(.upgradeRequired, [.secWebSocketVersion: "13"], reason: "`Sec-WebSocket-Version` is not 13")
        }
        let keys = fields[values: .secWebSocketKey]
        guard keys.count == 1, let decoded = Base64.decode(keys[0].trimmed), decoded.count == 16 else {
            return .reject(.badRequest, [:], reason: "`Sec-WebSocket-Key` is not the base64 of 16 bytes")
        }
        if let allowsOrigin, !allowsOrigin(fields[.origin]) {
            return .reject(.forbidden, [:], reason: "the origin \(fields[.origin] ?? "(none)") is not allowed")
        }
        return .accept([
            .upgrade: "websocket",
            .connection: "Upgrade",
            .secWebSocketAccept: acceptValue(for: keys[0].trimmed),
        ])
    }

    /// `Sec-WebSocket-Accept` for `key`: base64(SHA-1(key + GUID)).
    /// - Parameter key: The client's `Sec-WebSocket-Key`, as sent.
    /// - Returns: The accept value.
    public static func acceptValue(for key: String) -> String {
        Base64.encode(SHA1.hash(Array((key + guid).utf8)))
    }

    /// The lowercased tokens of comma-separated field values.
    private static func tokens(_ values: [String]) -> Set<String> {
        var result = Set<String>()
        for value in values {
            for token in value.split(separator: ",") { result.insert(String(token).trimmed.lowercased()) }
        }
        return result
    }
}

extension String {
    fileprivate var trimmed: String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view.removeFirst() }
        while let last = view.last, last == " " || last == "\t" { view.removeLast() }
        return String(view)
    }
}
