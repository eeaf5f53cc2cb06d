#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
internal import COpenSSL
import WhiskerSockets
import WhiskerTLS

/// TLS settings for ``TestClient/connect(to:timeout:tls:preamble:)``: a client that checks the server
/// against a CA, offers ALPN protocols, and can be limited to one protocol version (to see an old
/// version refused).
public struct TestTLSOptions: Sendable {
    /// A PEM file with the CA that signed the server's certificate.
    public var trustedCAPath: String
    /// The name the certificate must carry (and SNI).
    public var serverName = "localhost"
    /// ALPN protocols to offer, most preferred first; empty sends no ALPN.
    public var applicationProtocols: [String] = ["http/1.1"]
    /// Limits the client to exactly this version ("TLSv1.1", "TLSv1.2", "TLSv1.3"); `nil` for any.
    public var onlyVersion: String?

    /// A client certificate (PEM) to present when the server asks for one (mutual TLS), and its key.
    public var clientCertificate: (certificatePath: String, privateKeyPath: String)?

    /// Creates options that trust `trustedCAPath`.
    public init(trustedCAPath: String) { self.trustedCAPath = trustedCAPath }
}

/// A blocking OpenSSL client over a connected descriptor (for ``TestClient``).
final class TestTLSClient {
    private let context: OpaquePointer
    private let ssl: OpaquePointer

    /// Connects TLS on `fd`, which is connected and blocking, and verifies the server.
    init(fd: Int32, options: TestTLSOptions) throws {
        (context, ssl) = try makeTestClientSSL(options: options)
        SSL_set_fd(ssl, fd)
        guard SSL_connect(ssl) == 1 else { throw TestClientError("TLS handshake failed: \(Self.reasons())") }
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// ALPN's result.
    var applicationProtocol: String? { selectedApplicationProtocol(ssl) }

    /// The negotiated version ("TLSv1.3").
    var version: String { String(cString: SSL_get_version(ssl)) }

    /// The subject of the server's certificate, one line ("/CN=localhost").
    var peerCertificateSubject: String? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        var line = [CChar](repeating: 0, count: 256)
        guard X509_NAME_oneline(X509_get_subject_name(certificate), &line, Int32(line.count)) != nil else { return nil }
        return String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func send(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        var written = 0
        guard SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &written) == 1 else { throw failure("SSL_write") }
        return written
    }

    /// Reads some bytes; 0 at close_notify or end of stream.
    func receive(_ space: UnsafeMutableRawBufferPointer) throws -> Int {
        var count = 0
        if SSL_read_ex(ssl, space.baseAddress, space.count, &count) == 1 { return count }
        let error = SSL_get_error(ssl, 0)
        if error == SSL_ERROR_ZERO_RETURN { return 0 }
        if error == SSL_ERROR_SYSCALL && errno == 0 { return 0 }
        throw failure("SSL_read")
    }

    /// Sends close_notify.
    func shutdown() { _ = SSL_shutdown(ssl) }

    private func failure(_ call: String) -> any Error {
        if errno == EAGAIN { return TestClientError("timed out waiting for the server") }
        if errno == ECONNRESET || errno == EPIPE { return SocketError(call: call, code: errno) }
        return TestClientError("\(call) failed: \(Self.reasons())")
    }

    fileprivate static func reasons() -> String {
        let reasons = TLSError.drainReasons()
        return reasons.isEmpty ? "no reason given" : reasons.joined(separator: "; ")
    }
}

/// A client `SSL` and its context, not yet connected to anything: it verifies the server against
/// `options`' CA and name, offers its ALPN protocols, and speaks only `onlyVersion` if set. For
/// ``TestTLSClient`` over a socket, and for tests that drive a TLS session in memory.
package func makeTestClientSSL(options: TestTLSOptions) throws -> (context: OpaquePointer, ssl: OpaquePointer) {
    guard let context = SSL_CTX_new(TLS_client_method()) else { throw TestClientError("SSL_CTX_new failed") }
    guard SSL_CTX_load_verify_locations(context, options.trustedCAPath, nil) == 1 else {
        SSL_CTX_free(context)
        throw TestClientError("cannot load the CA \(options.trustedCAPath): \(TestTLSClient.reasons())")
    }
    if let client = options.clientCertificate {
        guard SSL_CTX_use_certificate_chain_file(context, client.certificatePath) == 1,
              SSL_CTX_use_PrivateKey_file(context, client.privateKeyPath, SSL_FILETYPE_PEM) == 1
        else {
            SSL_CTX_free(context)
            throw TestClientError("cannot load the client certificate \(client.certificatePath): \(TestTLSClient.reasons())")
        }
    }
    guard let ssl = SSL_new(context) else {
        SSL_CTX_free(context)
        throw TestClientError("SSL_new failed")
    }
    if let only = options.onlyVersion {
        let version: Int32 = switch only {
        case "TLSv1.1": TLS1_1_VERSION
        case "TLSv1.2": TLS1_2_VERSION
        default: TLS1_3_VERSION
        }
        // Old versions also need the security level lowered, or OpenSSL will not even offer them.
        SSL_set_security_level(ssl, 0)
        _ = whisker_SSL_set_min_proto_version(ssl, version)
        _ = whisker_SSL_set_max_proto_version(ssl, version)
    }
    SSL_set_verify(ssl, SSL_VERIFY_PEER, nil)
    _ = SSL_set1_host(ssl, options.serverName)
    _ = whisker_SSL_set_tlsext_host_name(ssl, options.serverName)
    if !options.applicationProtocols.isEmpty {
        let wire = alpnWireFormat(options.applicationProtocols)
        _ = SSL_set_alpn_protos(ssl, wire, UInt32(wire.count))
    }
    return (context, ssl)
}
