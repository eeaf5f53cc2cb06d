public import WhiskerCore

extension WhiskerServer.Configuration {
    /// HTTP/2 settings, or `nil` (the default) to serve HTTP/1.1 only. With HTTP/2 on, a
    /// cleartext listener also takes h2c, with prior knowledge (the client's preface instead of a
    /// request line) or by `Upgrade: h2c`, and an HTTPS listener offers `h2` in ALPN.
    ///
    ///     configuration.http2 = HTTP2Settings()
    ///
    /// Once set, even to `nil`, an HTTP/2 client with prior knowledge is told in its own protocol
    /// that it must use HTTP/1.1 (GOAWAY with HTTP_1_1_REQUIRED) rather than getting a 400.
    public var http2: HTTP2Settings? {
        get { (protocolHandover as? HTTP2Handover)?.settings }
        set { protocolHandover = HTTP2Handover(settings: newValue, cleartextOnly: cleartextHTTP2Only) }
    }

    /// Makes the cleartext listener an HTTP/2-only port (h2c with prior knowledge), as backends
    /// that a proxy or a gRPC client reaches over h2c use: anything but the HTTP/2 preface gets
    /// GOAWAY(PROTOCOL_ERROR) and is closed, HTTP/1.1 requests included. Off by default (the
    /// port serves both, and bytes that do not begin like the preface are HTTP/1.1). Needs
    /// ``http2``: the server refuses to start without it.
    public var cleartextHTTP2Only: Bool {
        get { (protocolHandover as? HTTP2Handover)?.cleartextOnly ?? false }
        set { protocolHandover = HTTP2Handover(settings: http2, cleartextOnly: newValue) }
    }
}
