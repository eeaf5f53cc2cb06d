import COpenSSL
import WhiskerSockets
import WhiskerTesting
@testable import WhiskerTLS

/// The client side of a TLS connection in memory, to drive a ``TLSSession`` without sockets.
final class MemoryTLSClient {
    let context: OpaquePointer
    let ssl: OpaquePointer
    private let input: OpaquePointer
    private let output: OpaquePointer

    /// - Parameters:
    ///   - alpn: Protocols to offer; empty for no ALPN.
    ///   - onlyVersion: Limit the client to one version ("TLSv1.1", say).
    init(alpn: [String] = [], onlyVersion: String? = nil) throws {
        var options = TestTLSOptions(trustedCAPath: TestCertificates.ca)
        options.applicationProtocols = alpn
        options.onlyVersion = onlyVersion
        (context, ssl) = try makeTestClientSSL(options: options)
        input = BIO_new(BIO_s_mem())!
        output = BIO_new(BIO_s_mem())!
        _ = whisker_BIO_set_mem_eof_return(input, -1)
        SSL_set_bio(ssl, input, output)
        SSL_set_connect_state(ssl)
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// Whether the client finished its handshake (and verified the server).
    var isEstablished: Bool { SSL_is_init_finished(ssl) == 1 }

    /// Advances the client's handshake; false once it failed.
    @discardableResult func handshake() -> Bool {
        let result = SSL_do_handshake(ssl)
        if result == 1 { return true }
        let error = SSL_get_error(ssl, result)
        return error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE
    }

    func feed(_ bytes: [UInt8]) { _ = BIO_write(input, bytes, Int32(bytes.count)) }

    func takeOutput() -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while case let count = BIO_read(output, &chunk, Int32(chunk.count)), count > 0 { bytes += chunk[0..<Int(count)] }
        return bytes
    }

    func write(_ bytes: [UInt8]) {
        var written = 0
        _ = SSL_write_ex(ssl, bytes, bytes.count, &written)
    }

    /// Everything decrypted so far; `nil` after close_notify with nothing left.
    func read() -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            var count = 0
            if SSL_read_ex(ssl, &chunk, chunk.count, &count) == 1 {
                bytes += chunk[0..<count]
                continue
            }
            return SSL_get_error(ssl, 0) == SSL_ERROR_ZERO_RETURN && bytes.isEmpty ? nil : bytes
        }
    }

    func shutdown() { _ = SSL_shutdown(ssl) }
}

/// Runs the handshake between `client` and `server` in memory; returns the server's last step
/// or throws its error.
@discardableResult
func handshake(_ client: MemoryTLSClient, _ server: TLSSession) throws -> TLSSession.HandshakeStep {
    var step = TLSSession.HandshakeStep.needsInput
    for _ in 0..<10 {
        client.handshake()
        let toServer = client.takeOutput()
        toServer.withUnsafeBufferPointer { server.feed($0) }
        do {
            step = try server.handshake()
        } catch {
            if let alert = server.takeOutput() { client.feed(alert) }
            throw error
        }
        if let toClient = server.takeOutput() { client.feed(toClient) }
        if case .established = step, client.isEstablished { return step }
    }
    client.handshake()
    return step
}
