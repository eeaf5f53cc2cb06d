/// A close status code (RFC 6455 7.4): why a WebSocket connection ends.
///
/// A struct over its number, so that any code a peer may send (the registered ones, and
/// 3000-4999 for libraries and applications) can be named, and new names added without
/// breaking a `switch`.
///
/// ```swift
/// try await socket.close(.normalClosure)
/// try await socket.close(WebSocketCloseCode(4001), reason: "session expired")
/// ```
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number on the wire.
    public let rawValue: UInt16

    /// The code `rawValue`.
    /// - Parameter rawValue: The number, as sent in the first two bytes of a close frame.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The code `rawValue` (unlabelled, for application codes: `WebSocketCloseCode(4001)`).
    /// - Parameter rawValue: The number, as sent in the first two bytes of a close frame.
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = WebSocketCloseCode(1000)
    /// 1001: the endpoint goes away (the server shuts down, the browser leaves the page).
    public static let goingAway = WebSocketCloseCode(1001)
    /// 1002: the peer broke the protocol (an unmasked client frame, a bad opcode, ...).
    public static let protocolError = WebSocketCloseCode(1002)
    /// 1003: a message of a type the endpoint does not accept (binary to a text-only endpoint).
    public static let unsupportedData = WebSocketCloseCode(1003)
    /// 1005: no code was in the close frame. Reported, never sent.
    public static let noStatusReceived = WebSocketCloseCode(1005)
    /// 1006: the connection ended without a close frame. Reported, never sent.
    public static let abnormalClosure = WebSocketCloseCode(1006)
    /// 1007: a text message (or a close reason) that is not UTF-8.
    public static let invalidFramePayloadData = WebSocketCloseCode(1007)
    /// 1008: a message that breaks the endpoint's policy (a flood of pings, say).
    public static let policyViolation = WebSocketCloseCode(1008)
    /// 1009: a frame or a message larger than the endpoint takes.
    public static let messageTooBig = WebSocketCloseCode(1009)
    /// 1010: the client expected an extension the server did not negotiate.
    public static let mandatoryExtension = WebSocketCloseCode(1010)
    /// 1011: the server met an unexpected condition (its handler threw).
    public static let internalError = WebSocketCloseCode(1011)

    /// Whether the code may appear in a close frame (RFC 6455 7.4.1-2, and the IANA registry):
    /// 1000-1003, 1007-1011 and 3000-4999. 1004 is reserved, 1005, 1006 and 1015 are never sent,
    /// and the rest of 0-2999 is unassigned or reserved.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }

    /// The number, and its name when it has one.
    public var description: String {
        let names: [UInt16: String] = [
            1000: "normal closure", 1001: "going away", 1002: "protocol error", 1003: "unsupported data",
            1005: "no status received", 1006: "abnormal closure", 1007: "invalid frame payload data",
            1008: "policy violation", 1009: "message too big", 1010: "mandatory extension", 1011: "internal error",
        ]
        return names[rawValue].map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
    }
}
