/// What a TLS listener presents and accepts.
///
///     let tls = TLSConfiguration(
///         certificateChainPath: "/etc/cat-service/localhost.pem",   // leaf first, then intermediates
///         privateKeyPath: "/etc/cat-service/localhost-key.pem"
///     )
///
/// The defaults follow Mozilla's "intermediate" profile: TLS 1.2 and 1.3 only, forward-secret AEAD
/// ciphers (which are also the ones HTTP/2 allows), no renegotiation, no compression.
public struct TLSConfiguration: Sendable, Equatable {
    /// A PEM file with the server certificate first, then any intermediate certificates.
    public var certificateChainPath: String
    /// A PEM file with the certificate's private key (unencrypted).
    public var privateKeyPath: String
    /// The oldest protocol version accepted.
    public var minimumVersion: Version = .tls12
    /// The application protocols the server accepts in ALPN, most preferred first. The server picks
    /// the first of these that the client also offers; a client that offers none of them, or no
    /// ALPN at all, gets HTTP/1.1. (A `WhiskerServer` with HTTP/2 turned off drops `h2`.)
    public var applicationProtocols: [String] = ["h2", "http/1.1"]
    /// The TLS 1.2 cipher list, in OpenSSL's syntax (TLS 1.3 suites are OpenSSL's defaults).
    public var tls12Ciphers = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

    /// Client certificates (mutual TLS), or `nil` (the default) to ask for none.
    ///
    ///     tls.clientCertificates = .init(trustedCAPath: "/etc/cat-service/clients-ca.pem")
    public var clientCertificates: ClientCertificates?

    /// Which client certificates a listener asks for and accepts.
    ///
    /// The server asks every client for a certificate issued by a CA in ``trustedCAPath`` (it names
    /// those CAs in its request). A certificate that does not verify (another CA, expired, not
    /// for client authentication) ends the handshake, with OpenSSL's reason in the log, whether or
    /// not one is required. A verified one reaches the handler as
    /// `RequestContext.current?.tls?.clientCertificate` (subject and alternative names).
    public struct ClientCertificates: Sendable, Equatable {
        /// A PEM file with the CA certificates a client's certificate must chain to.
        public var trustedCAPath: String
        /// Whether a client must present one: `true` (the default) ends a handshake without one;
        /// `false` lets the client in without, and its context then has no certificate.
        public var isRequired: Bool

        /// Asks for certificates issued by the CAs in `trustedCAPath`.
        public init(trustedCAPath: String, isRequired: Bool = true) {
            self.trustedCAPath = trustedCAPath
            self.isRequired = isRequired
        }
    }

    /// A protocol version.
    public enum Version: Sendable, Equatable {
        /// TLS 1.2 (RFC 5246): the default ``TLSConfiguration/minimumVersion``, for clients that have
        /// nothing newer.
        case tls12
        /// TLS 1.3 (RFC 8446): one round trip to the first request, forward secrecy always.
        case tls13
    }

    /// Creates a configuration from PEM files.
    /// - Parameters:
    ///   - certificateChainPath: The certificate chain, leaf first.
    ///   - privateKeyPath: The private key of the leaf certificate.
    public init(certificateChainPath: String, privateKeyPath: String) {
        self.certificateChainPath = certificateChainPath
        self.privateKeyPath = privateKeyPath
    }
}
