public import WhiskerCore

extension WhiskerServer {
    /// An HTTPS listener: an address and the certificate it presents.
    ///
    ///     configuration.https = .init(port: 8443, tls: TLSConfiguration(
    ///         certificateChainPath: "localhost.pem", privateKeyPath: "localhost-key.pem"))
    public struct HTTPS: Sendable, Equatable {
        /// The address to listen on; `nil` means the configuration's `host`.
        public var host: String?
        /// The port; 0 picks a free one.
        public var port: Int
        /// The certificate, key, versions and ALPN protocols.
        public var tls: TLSConfiguration

        /// Creates an HTTPS listener configuration.
        public init(host: String? = nil, port: Int, tls: TLSConfiguration) {
            self.host = host
            self.port = port
            self.tls = tls
        }
    }
}

extension WhiskerServer.Configuration {
    /// A second listener that speaks HTTPS, or `nil` (the default) for none. With
    /// `socketActivation`, its `tls` serves the inherited TLS sockets and its `host` and `port`
    /// are not used. ALPN offers `h2` only when HTTP/2 is on (`configuration.http2`, WhiskerHTTP2).
    public var https: WhiskerServer.HTTPS? {
        get { (secureListener as? TLSListener)?.https }
        set { secureListener = newValue.map(TLSListener.init) }
    }
}
