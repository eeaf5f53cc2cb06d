public import HTTPTypes
public import WhiskerSockets

/// What the server knows about the request a handler is serving: the client and the peer, the
/// protocol, TLS and a request id. Read it anywhere in the handler's task (including inside a generated
/// `APIProtocol` method, which sees only the decoded input) with ``current``:
///
///     func getEmoji(_ input: Operations.getEmoji.Input) async throws -> Operations.getEmoji.Output {
///         if let context = RequestContext.current {
///             logger.info("emoji", metadata: ["peer": "\(context.peer)", "request-id": "\(context.requestID)"])
///         }
///         ...
///     }
///
/// It is a task-local value, so it also reaches child tasks the handler starts, and is `nil`
/// outside a request.
public struct RequestContext: Sendable, Equatable {
    /// The address at the other end of the connection: behind a reverse proxy, the proxy's.
    public let peer: SocketAddress
    /// The original client, as far as the server's trusted reverse proxies say
    /// (`configuration.reverseProxies`): the source of the connection's PROXY protocol header, or
    /// the rightmost untrusted address of `Forwarded` / `X-Forwarded-For` sent by a trusted proxy;
    /// else ``peer``. Its port is 0 when no hop said it (`X-Forwarded-For` carries none).
    public var client: SocketAddress { behindProxy?.value.client ?? peer }
    /// The scheme the client used, `http` or `https`: what a trusted proxy said
    /// (`Forwarded: proto=`, `X-Forwarded-Proto`, a PROXY v2 header's TLS details), else whether
    /// this connection is TLS.
    public var scheme: String { behindProxy?.value.scheme ?? (tls != nil ? "https" : "http") }
    /// What the connection started with before HTTP (WhiskerProxies' PROXY protocol header, which
    /// its `proxyHeader` reads).
    package var preamble: ConnectionPreamble? { behindProxy?.value.preamble }
    /// The protocol the request came over.
    public let httpVersion: HTTPVersion
    /// TLS details when the request came over HTTPS, else `nil`.
    public let tls: TLS?
    /// The request's id: the client's `X-Request-ID` when it sent a usable one (1 to 200 visible
    /// ASCII characters); otherwise, with ``WhiskerServer/Configuration/requestIDs`` on, a new
    /// random one (and the response carries it back in `X-Request-ID`), else `nil`.
    public let requestID: String?
    /// Who the request is, once authenticated (by OpenAPIWhisker's security schemes), else `nil`.
    public var principal: Principal? { get { authenticated?.value } set { authenticated = newValue.map(SharedValue.init) } }
    private var authenticated: SharedValue<Principal>?
    /// What trusted proxies said, boxed (`nil` without them): a context is copied into every
    /// handler task's frames, which stay small this way.
    private let behindProxy: SharedValue<BehindProxy>?

    private struct BehindProxy: Sendable, Equatable {
        var client: SocketAddress
        var scheme: String
        var preamble: ConnectionPreamble?
    }

    /// An HTTP version.
    public enum HTTPVersion: String, Sendable, Equatable {
        /// HTTP/1.0: no `Host` required, and the connection closes after the response unless the
        /// request asked for `Connection: keep-alive`.
        case http1_0 = "HTTP/1.0"
        /// HTTP/1.1 (RFC 9112), over TCP or TLS: persistent connections, chunked bodies.
        case http1_1 = "HTTP/1.1"
        /// HTTP/2 (RFC 9113), over TLS (ALPN `h2`) or cleartext (h2c): one stream of a multiplexed
        /// connection.
        case http2 = "HTTP/2"
    }

    /// The TLS side of a connection: its version and ALPN's choice.
    public typealias TLS = TLSDetails

    /// Creates a context (the server does; tests may make their own). `client` defaults to
    /// `peer`, `scheme` to `https` with `tls` and `http` without.
    public init(
        peer: SocketAddress, httpVersion: HTTPVersion, tls: TLS?, requestID: String?,
        client: SocketAddress? = nil, scheme: String? = nil
    ) {
        self.init(peer: peer, httpVersion: httpVersion, tls: tls, requestID: requestID, client: client, scheme: scheme, preamble: nil)
    }

    /// A context with what the connection started with before HTTP (the PROXY protocol header).
    package init(
        peer: SocketAddress, httpVersion: HTTPVersion, tls: TLS?, requestID: String?,
        client: SocketAddress?, scheme: String?, preamble: ConnectionPreamble?
    ) {
        self.peer = peer
        self.httpVersion = httpVersion
        self.tls = tls
        self.requestID = requestID
        if client == nil && scheme == nil && preamble == nil {
            behindProxy = nil
        } else {
            behindProxy = SharedValue(BehindProxy(client: client ?? peer, scheme: scheme ?? (tls != nil ? "https" : "http"), preamble: preamble))
        }
    }

    /// `X-Request-ID`, read from requests and set on responses.
    public static let requestIDField = HTTPField.Name.requestID

    /// The context of the request the current task serves, or `nil` outside one.
    @TaskLocal public static var current: RequestContext?

    /// The client's id if usable; else a new one (16 random bytes in hex) if `generate`, else `nil`.
    static func requestID(fromClient value: String?, generate: Bool) -> String? {
        if let value, !value.isEmpty, value.utf8.count <= 200,
            value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            return value
        }
        guard generate else { return nil }
        return (0..<2).map { _ in
            let hex = String(UInt64.random(in: .min ... .max), radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}

/// An immutable value behind a reference: for a large, rarely present part of a value that is
/// copied often (a request's context, a connection's origin), so the copies stay small.
package final class SharedValue<Value: Sendable & Equatable>: Sendable, Equatable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
    package static func == (lhs: SharedValue, rhs: SharedValue) -> Bool { lhs === rhs || lhs.value == rhs.value }
}
