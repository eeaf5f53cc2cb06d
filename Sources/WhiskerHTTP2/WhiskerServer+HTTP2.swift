public import WhiskerCore

extension WhiskerServer.Configuration {
    /// HTTP/2 settings, or `nil` (the default) to serve HTTP/1.1 only. With HTTP/2 on, a
    /// cleartext listener also takes h2c with prior knowledge (the client's preface instead of a
    /// request line), and an HTTPS listener offers `h2` in ALPN. `Upgrade: h2c` is off unless
    /// asked for (``acceptsH2CUpgrade``, or a listener's own `acceptsH2CUpgrade`).
    ///
    ///     configuration.http2 = HTTP2Settings()
    ///
    /// Once set, even to `nil`, an HTTP/2 client with prior knowledge is told in its own protocol
    /// that it must use HTTP/1.1 (GOAWAY with HTTP_1_1_REQUIRED) rather than getting a 400.
    public var http2: HTTP2Settings? {
        get { features[HTTP2Handover.self]?.settings }
        set { features.add(HTTP2Handover(settings: newValue, cleartextOnly: cleartextHTTP2Only, upgradesByDefault: acceptsH2CUpgrade)) }
    }

    /// Makes the cleartext listener an HTTP/2-only port (h2c with prior knowledge), as backends
    /// that a proxy or a gRPC client reaches over h2c use: anything but the HTTP/2 preface gets
    /// GOAWAY(PROTOCOL_ERROR) and is closed, HTTP/1.1 requests included. Off by default (the
    /// port serves both, and bytes that do not begin like the preface are HTTP/1.1). Needs
    /// ``http2``: the server refuses to start without it.
    public var cleartextHTTP2Only: Bool {
        get { features[HTTP2Handover.self]?.cleartextOnly ?? false }
        set { features.add(HTTP2Handover(settings: http2, cleartextOnly: newValue, upgradesByDefault: acceptsH2CUpgrade)) }
    }

    /// Whether cleartext listeners answer `Upgrade: h2c` (with `HTTP2-Settings`) with `101` and
    /// continue in HTTP/2, as `curl --http2` on `http://` asks. Off by default: such a request
    /// is served as HTTP/1.1, the upgrade ignored (RFC 9110 §7.8); h2c with prior knowledge is
    /// served either way.
    ///
    ///     configuration.acceptsH2CUpgrade = true   // a server clients reach directly
    ///
    /// This switch applies to the listeners that do not decide for themselves
    /// (`Listener.acceptsH2CUpgrade` `nil`, the implied ones included), and never while reverse
    /// proxies are trusted (`configuration.reverseProxies`): a proxy that forwards `Upgrade`
    /// (nginx's WebSocket recipe, HAProxy's `mode http`) relays the `101` and becomes a tunnel in
    /// which the client speaks HTTP/2 that the proxy never parses: its access rules, limits and
    /// logs are bypassed (h2c smuggling). To accept the upgrade on a listener of such a server,
    /// say so on that listener: `.tcp(port: 8081, acceptsH2CUpgrade: true)`.
    public var acceptsH2CUpgrade: Bool {
        get { features[HTTP2Handover.self]?.upgradesByDefault ?? false }
        set { features.add(HTTP2Handover(settings: http2, cleartextOnly: cleartextHTTP2Only, upgradesByDefault: newValue)) }
    }
}
