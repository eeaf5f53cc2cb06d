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
        get { features[TLSListener.self]?.https }
        set { features[TLSListener.self] = newValue.map(TLSListener.init) }
    }
}

extension WhiskerServer.Listener {
    /// HTTPS (and h2 through ALPN, with HTTP/2 on) on a TCP port, presenting its own certificate.
    ///
    ///     configuration.listeners = [
    ///         .tcp(port: 8080),
    ///         .https(port: 8443, tls: TLSConfiguration(certificateChainPath: "cats.pem", privateKeyPath: "cats-key.pem")),
    ///     ]
    /// - Parameters:
    ///   - host: A numeric IPv4 or IPv6 address, or `localhost`.
    ///   - port: The port; 0 picks a free one.
    ///   - tls: The certificate, key, versions and ALPN protocols.
    public static func https(host: String = "127.0.0.1", port: Int, tls: TLSConfiguration) -> Self {
        Self(address: .tcp(host: host, port: port), secure: TLSListener(https: WhiskerServer.HTTPS(host: host, port: port, tls: tls)))
    }

    /// TLS on the sockets systemd passed under `name`, presenting `tls`'s certificate.
    public static func inheritedHTTPS(_ name: String, tls: TLSConfiguration) -> Self {
        Self(address: .inherited(name: name), secure: TLSListener(https: WhiskerServer.HTTPS(port: 0, tls: tls)))
    }
}
