public import HTTPTypes
public import WhiskerSockets

/// A protocol an HTTP/1.1 connection can be handed over to before any request is routed, which a
/// ``ServerFeature`` contributes (WhiskerHTTP2 contributes HTTP/2). It is asked three times:
/// 1. on a connection's first bytes (``firstBytes(_:on:)``): a preface that is its own (HTTP/2
///    with prior knowledge), or a TLS stream whose ALPN chose it, takes the connection over;
/// 2. on an HTTP/1.1 request without a body that carries `Upgrade` (``acceptsUpgrade(_:on:)``):
///    `Upgrade: h2c`. A protocol that a route should decide on (WebSocket) is a
///    ``ProtocolSwitch`` instead, after a handler's `101`;
/// 3. when the server refuses a connection at its limit (``refusal(_:reason:)``), so that its
///    clients are told in their own protocol.
///
/// The handovers of a server are asked in the order their features were added; the first that
/// claims the connection takes it. Immutable, shared by every connection; every call is on the
/// connection's queue.
public protocol ProtocolHandover: Sendable {
    /// The ALPN names it serves (`h2`), which TLS listeners offer next to `http/1.1`.
    var applicationProtocols: [String] { get }
    /// What a connection's first bytes (all of them read so far) say.
    func firstBytes(_ buffer: ReadBuffer, on connection: Connection) -> FirstBytesVerdict
    /// Whether `request` (HTTP/1.1, no body, with `Upgrade`) asks to continue in this protocol
    /// and may: `false` by default.
    func acceptsUpgrade(_ request: HTTPRequest, on connection: Connection) -> Bool
    /// The handler that serves the connection from now on (not started yet): after its first
    /// bytes (`upgrade` nil), or answering the upgrade request `upgrade` (its `101` is the
    /// handler's to write).
    func takeOver(_ connection: Connection, upgrade: HTTPRequest?) throws -> any ConnectionHandler
    /// What to send a client whose first bytes are `buffer` when the server refuses the
    /// connection for `reason`: ``RefusalAnswer/notMine`` by default (an HTTP/1.1 client gets 503).
    func refusal(_ buffer: ReadBuffer, reason: String) -> RefusalAnswer
}

extension ProtocolHandover {
    public func acceptsUpgrade(_ request: HTTPRequest, on connection: Connection) -> Bool { false }
    public func refusal(_ buffer: ReadBuffer, reason: String) -> RefusalAnswer { .notMine }
}

/// What a connection's first bytes say about its protocol.
public enum FirstBytesVerdict: Equatable, Sendable {
    /// Too few bytes to tell.
    case needMore
    /// Not this protocol's: ask the next handover, then go on with HTTP/1.1.
    case http1
    /// This protocol's: hand the connection over.
    case takeOver
    /// A client of this protocol that cannot be served: send `answer`, then close.
    case refuse(answer: [UInt8], reason: String)
}

/// How to refuse a connection, given its first bytes.
public enum RefusalAnswer: Equatable, Sendable {
    /// Too few bytes to tell.
    case needMore
    /// Not this protocol's client.
    case notMine
    /// This protocol's refusal.
    case answer([UInt8])
}

extension ServerContext {
    /// How the handovers refuse a client whose first bytes are `buffer`: the first that knows it,
    /// `needMore` while one cannot tell yet, else ``RefusalAnswer/notMine``.
    func refusal(_ buffer: ReadBuffer, reason: String) -> RefusalAnswer {
        for handover in handovers {
            let answer = handover.refusal(buffer, reason: reason)
            if answer != .notMine { return answer }
        }
        return .notMine
    }
}
