import HTTPTypes
public import WhiskerCore
public import WhiskerSockets

extension WhiskerServer {
    /// The reverse proxies (load balancers) in front of the server that it believes about who the
    /// client is. Nothing is believed by default: without this, ``/WhiskerCore/RequestContext/client`` is the
    /// socket's peer, and `Forwarded` or `X-Forwarded-For` from anybody are just fields.
    ///
    /// Two ways for a proxy to say who the client is, each only from ``trusted`` addresses:
    /// - the **PROXY protocol** (HAProxy's `send-proxy` / `send-proxy-v2`, AWS NLB, Envoy): a header
    ///   before the first byte of TLS or HTTP, on the listeners that expect it
    ///   (`Listener.expectingProxyProtocol()`). Such a listener requires it: a connection from an untrusted address, or one whose header is
    ///   missing, malformed, oversized or not complete within ``proxyHeaderTimeout``, is closed
    ///   with a log line.
    /// - the one forwarding field each proxy sets (``forwardingField``, `X-Forwarded-For` with
    ///   `X-Forwarded-Proto` by default, or `Forwarded`, RFC 7239; ``forwardingFields`` for
    ///   proxies that set another), with ``readsForwardedFields``: read from right to left while
    ///   the address that wrote the entry is trusted; the first address that is not becomes the
    ///   client. A field the proxy is not said to set is never read: a client's own `Forwarded`
    ///   passes nginx and HAProxy untouched, and believing it would let the client choose its
    ///   address (and its rate limit's bucket).
    ///
    ///     configuration.reverseProxies = try .init(trusting: ["10.0.0.0/8", "127.0.0.1"])
    ///     configuration.listeners = [.tcp(host: "0.0.0.0", port: 8080).expectingProxyProtocol()]  // behind HAProxy's send-proxy-v2
    ///     configuration.reverseProxies?.forwardingField = .forwarded   // behind a proxy that appends Forwarded
    public struct ReverseProxies: Sendable, Equatable {
        /// The addresses whose PROXY header and forwarding fields are believed.
        public var trusted: [IPAddressRange]
        /// Whether the forwarding field of trusted proxies (``forwardingField``) says who the
        /// client is and which scheme it used. On by default (once proxies are trusted).
        public var readsForwardedFields = true
        /// The field the trusted proxies append the client to: `X-Forwarded-For` by default (what
        /// nginx's `proxy_add_x_forwarded_for`, HAProxy's `option forwardfor` and most cloud
        /// balancers set), `Forwarded` for a proxy that appends RFC 7239 elements, or `none` for
        /// proxies that speak only the PROXY protocol. The other field is never read.
        public var forwardingField: ForwardingField = .xForwardedFor
        /// Trusted proxies that set another field than ``forwardingField``, each range with its
        /// own; their addresses are trusted too, and the first range that holds an address says
        /// its field. None by default.
        public var forwardingFields: [ProxyForwardingField] = []
        /// How long a connection on a PROXY protocol listener may take to send its header.
        public var proxyHeaderTimeout: Duration = .seconds(5)
        /// The longest PROXY v2 header accepted (addresses and TLVs); a longer one closes the
        /// connection before it is read. A v1 header is at most 107 bytes, as its specification says.
        public var maxProxyHeaderLength = 4096

        /// Trusts `trusted`.
        public init(trusted: [IPAddressRange]) {
            self.trusted = trusted
        }

        /// Trusts the addresses and CIDR ranges in `ranges` (`"10.0.0.0/8"`, `"::1"`).
        /// - Throws: ``/WhiskerSockets/IPAddressRangeError`` naming the first one that is not a range.
        public init(trusting ranges: [String]) throws(IPAddressRangeError) {
            var trusted: [IPAddressRange] = []
            for range in ranges { trusted.append(try IPAddressRange(range)) }
            self.init(trusted: trusted)
        }

        /// Whether `address` is one of the trusted proxies. A peer on a Unix domain socket is a
        /// process of this machine that the socket file's mode lets in: it is trusted.
        public func trusts(_ address: SocketAddress) -> Bool {
            forwardingField(of: address) != nil
        }

        /// The field the proxy at `address` sets, or `nil` when it is not trusted: the field of
        /// the first of ``forwardingFields`` that holds it, else ``forwardingField``.
        public func forwardingField(of address: SocketAddress) -> ForwardingField? {
            if address.unixPath != nil { return forwardingField }
            let bytes = address.networkBytes
            if let own = forwardingFields.first(where: { $0.range.contains(networkBytes: bytes) }) { return own.field }
            return trusted.contains { $0.contains(networkBytes: bytes) } ? forwardingField : nil
        }
    }

    /// Kinds of TCP listeners, for `configuration.expectProxyProtocol(on:)`.
    public struct ProxyProtocolListeners: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The cleartext TCP listeners that serve the routes.
        public static let cleartext = ProxyProtocolListeners(rawValue: 1)
        /// The HTTPS listeners (WhiskerTLS): the header comes before TLS.
        public static let https = ProxyProtocolListeners(rawValue: 2)
    }
}

extension WhiskerServer.Configuration {
    /// The reverse proxies (load balancers) trusted to say who the client is, by the PROXY protocol
    /// or by `Forwarded` / `X-Forwarded-For`; `nil` (the default) trusts none. See
    /// ``WhiskerCore/WhiskerServer/ReverseProxies``.
    ///
    ///     import WhiskerProxies
    ///     configuration.reverseProxies = try .init(trusting: ["10.0.0.0/8"])
    public var reverseProxies: WhiskerServer.ReverseProxies? {
        get { features[TrustedProxies.self]?.proxies }
        set { features[TrustedProxies.self] = newValue.map(TrustedProxies.init) }
    }
}

extension RequestContext {
    /// The PROXY protocol header the connection started with (on a listener that expects one),
    /// with what the proxy reported of its own side (ALPN, SNI, TLS version), for information.
    public var proxyHeader: ProxyProtocolHeader? { preamble?.value(as: ProxyProtocolHeader.self) }
}

/// ``WhiskerCore/WhiskerServer/ReverseProxies`` as the core asks for them (``ProxyTrust``): the
/// PROXY header reader, and the client from the header and the forwarding fields.
struct TrustedProxies: ServerFeature, ProxyTrust {
    let proxies: WhiskerServer.ReverseProxies

    func contribute(to contributions: inout ServerFeatureContributions) { contributions.proxyTrust = self }

    func preambleReader(for connection: Connection) -> (any ConnectionHandler)? {
        guard connection.listenerOptions[ProxyProtocolFirst.self] != nil else { return nil }
        return ProxyProtocolReader(connection: connection, proxies: proxies)
    }

    func client(of origin: RequestOrigin, fields: HTTPFields?) -> (client: SocketAddress, scheme: String) {
        // The PROXY header's source is the nearest hop the server believes.
        let header = origin.preamble?.value(as: ProxyProtocolHeader.self)
        let nearest = header?.source ?? origin.peer
        let scheme = origin.tls != nil || header?.tlsVersion != nil ? "https" : "http"
        guard proxies.readsForwardedFields, let fields else { return (nearest, scheme) }
        let (client, forwardedScheme) = ForwardedFields.client(peer: nearest, scheme: scheme, fields: fields, field: proxies.forwardingField(of:))
        return (client, forwardedScheme)
    }
}
