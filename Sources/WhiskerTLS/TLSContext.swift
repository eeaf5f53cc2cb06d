internal import COpenSSL

/// A loaded TLS configuration: the OpenSSL `SSL_CTX` that every connection of a listener shares.
///
/// Loading reads and checks the certificate and key once, so a bad file fails at start-up with a
/// ``TLSError`` that names it, not at the first handshake. An `SSL_CTX` is safe to share between
/// threads once configured, so the context is `Sendable`; each connection gets its own `SSL`.
public final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer
    /// The ALPN protocol list in wire format (length-prefixed names), owned here because OpenSSL's
    /// selection callback hands out pointers into it.
    private let alpnWire: UnsafeMutableBufferPointer<UInt8>
    /// The configuration it was loaded from.
    public let configuration: TLSConfiguration

    /// Loads `configuration`.
    /// - Throws: ``TLSError`` naming the file or setting that OpenSSL refused.
    public init(_ configuration: TLSConfiguration) throws(TLSError) {
        self.configuration = configuration
        _ = TLSError.drainReasons()
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw .drainingErrorQueue("creating a TLS context") }
        self.context = context
        let wire = alpnWireFormat(configuration.applicationProtocols)
        alpnWire = .allocate(capacity: wire.count + 1)
        _ = alpnWire.initialize(from: wire + [0])
        try configure(wireCount: wire.count)
    }

    deinit {
        SSL_CTX_free(context)
        alpnWire.deallocate()
    }

    private func configure(wireCount: Int) throws(TLSError) {
        let version = configuration.minimumVersion == .tls13 ? TLS1_3_VERSION : TLS1_2_VERSION
        guard whisker_SSL_CTX_set_min_proto_version(context, version) == 1 else { throw .drainingErrorQueue("setting the minimum TLS version") }
        _ = SSL_CTX_set_options(context, whisker_SSL_OP_NO_RENEGOTIATION() | whisker_SSL_OP_NO_COMPRESSION()
            | whisker_SSL_OP_CIPHER_SERVER_PREFERENCE() | whisker_SSL_OP_IGNORE_UNEXPECTED_EOF())
        // Give idle connections' buffers back (about 34 KB each).
        _ = whisker_SSL_CTX_set_mode(context, Int(SSL_MODE_RELEASE_BUFFERS))
        guard SSL_CTX_set_cipher_list(context, configuration.tls12Ciphers) == 1 else {
            throw .drainingErrorQueue("setting the TLS 1.2 ciphers to \"\(configuration.tls12Ciphers)\"")
        }
        let sessionContext = Array("whisker".utf8)
        _ = SSL_CTX_set_session_id_context(context, sessionContext, UInt32(sessionContext.count))
        guard SSL_CTX_use_certificate_chain_file(context, configuration.certificateChainPath) == 1 else {
            throw .drainingErrorQueue("loading the certificate chain from \(configuration.certificateChainPath)")
        }
        guard SSL_CTX_use_PrivateKey_file(context, configuration.privateKeyPath, SSL_FILETYPE_PEM) == 1 else {
            throw .drainingErrorQueue("loading the private key from \(configuration.privateKeyPath)")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw .drainingErrorQueue("matching the private key \(configuration.privateKeyPath) to the certificate \(configuration.certificateChainPath)")
        }
        if let clients = configuration.clientCertificates {
            guard SSL_CTX_load_verify_locations(context, clients.trustedCAPath, nil) == 1,
                  let names = SSL_load_client_CA_file(clients.trustedCAPath)
            else { throw .drainingErrorQueue("loading the client certificates' CAs from \(clients.trustedCAPath)") }
            // The CAs named in the certificate request, so a client picks a certificate they issued.
            SSL_CTX_set_client_CA_list(context, names)
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER | (clients.isRequired ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0), nil)
        }
        if wireCount > 0 {
            SSL_CTX_set_alpn_select_cb(context, selectApplicationProtocol, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    /// The server's protocol list, for the ALPN callback.
    fileprivate var alpnProtocols: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: alpnWire[0..<(alpnWire.count - 1)])
    }
}

/// OpenSSL's ALPN callback: the first of the server's protocols that the client offers. With no
/// overlap the handshake goes on without ALPN, which means HTTP/1.1.
private func selectApplicationProtocol(
    ssl: OpaquePointer?,
    out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    outLength: UnsafeMutablePointer<UInt8>?,
    clientList: UnsafePointer<UInt8>?,
    clientLength: UInt32,
    argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let argument, let clientList else { return SSL_TLSEXT_ERR_NOACK }
    let context = Unmanaged<TLSContext>.fromOpaque(argument).takeUnretainedValue()
    let server = context.alpnProtocols
    var selected: UnsafeMutablePointer<UInt8>?
    let result = SSL_select_next_proto(&selected, outLength, server.baseAddress, UInt32(server.count), clientList, clientLength)
    guard result == OPENSSL_NPN_NEGOTIATED, let selected else { return SSL_TLSEXT_ERR_NOACK }
    out?.pointee = UnsafePointer(selected)
    return SSL_TLSEXT_ERR_OK
}
