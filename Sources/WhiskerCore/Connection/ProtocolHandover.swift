import WhiskerSockets

/// A protocol an HTTP/1.1 connection can hand itself over to: how a module such as WhiskerHTTP2
/// plugs into the core, which knows only HTTP/1.1. It is consulted three times:
/// 1. on a connection's first bytes (``firstBytes(_:on:servesOnlyThisProtocol:)``): a preface
///    that is its own (HTTP/2 with prior knowledge), or a TLS stream whose ALPN chose it, takes
///    the connection over;
/// 2. on every HTTP/1.1 request head on a listener that allows it (``ListenerRole/acceptsUpgrade``,
///    ``acceptsUpgrade(_:on:)``): `Upgrade: h2c`;
/// 3. when the server refuses a connection at its limit (``refusal(_:reason:)``), so that its
///    clients are told in their own protocol.
///
/// Installed with `configuration.protocolHandover` (WhiskerHTTP2 sets it from
/// `configuration.http2`). Immutable, shared by every connection.
package protocol ProtocolHandover: Sendable {
    /// The ALPN names it serves (`h2`), which TLS listeners offer next to `http/1.1`.
    var applicationProtocols: [String] { get }
    /// Whether listeners that do not decide for themselves (``WhiskerServer/Listener/acceptsH2CUpgrade``
    /// `nil`) accept the upgrade, on a server that trusts no reverse proxy.
    var upgradesByDefault: Bool { get }
    /// Checked when the server starts: a configuration it cannot serve throws, naming the setting.
    func validate() throws(WhiskerServerError)
    /// What a connection's first bytes (all of them read so far) say; `servesOnlyThisProtocol`
    /// when the connection's listener serves nothing else (``WhiskerServer/Listener/servesOnlyHTTP2``).
    func firstBytes(_ buffer: ReadBuffer, on stream: any ByteStream, servesOnlyThisProtocol: Bool) -> FirstBytesVerdict
    /// Whether the request `head` asks to continue in this protocol and may.
    func acceptsUpgrade(_ head: RequestHead, on stream: any ByteStream) -> Bool
    /// The handler that serves the connection from now on (not started yet): after its first
    /// bytes (`upgrade` nil), or answering the upgrade request `upgrade`.
    func takeOver(_ connection: Connection, upgrade: RequestHead?) throws -> any ConnectionHandler
    /// What to send a client whose first bytes are `buffer` when the server refuses the
    /// connection for `reason`; `nil` while too few bytes arrived to tell, and
    /// ``RefusalAnswer/notMine`` for an HTTP/1.1 client (which gets 503).
    func refusal(_ buffer: ReadBuffer, reason: String) -> RefusalAnswer
}

/// What a connection's first bytes say about its protocol.
package enum FirstBytesVerdict: Equatable {
    /// Too few bytes to tell.
    case needMore
    /// HTTP/1.1: go on parsing.
    case http1
    /// The other protocol's: hand the connection over.
    case takeOver
    /// A client of the other protocol that cannot be served: send `answer`, then close.
    case refuse(answer: [UInt8], reason: String)
}

/// How to refuse a connection, given its first bytes.
package enum RefusalAnswer: Equatable {
    /// Too few bytes to tell.
    case needMore
    /// Not this protocol's client.
    case notMine
    /// This protocol's refusal.
    case answer([UInt8])
}
