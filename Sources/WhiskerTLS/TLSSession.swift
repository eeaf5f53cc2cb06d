internal import COpenSSL
import WhiskerSockets

/// The TLS state of one server connection, with no I/O: OpenSSL over a pair of memory BIOs.
///
/// Bytes from the socket go in with ``feed(_:)``; records to send come out of
/// ``takeOutput()``, which must be drained after every call that can produce them (the handshake,
/// reads, writes, shutdown). Use it on one queue only.
final class TLSSession {
    /// The outcome of a ``handshake()`` step.
    enum HandshakeStep: Equatable {
        /// More bytes from the peer are needed.
        case needsInput
        /// Established; `applicationProtocol` is ALPN's choice, if any.
        case established(applicationProtocol: String?)
    }

    /// The outcome of ``read(into:)``.
    enum ReadStep: Equatable {
        /// Plaintext appended (possibly 0 bytes, when only records without data arrived).
        case bytes(Int)
        /// The peer sent close_notify: no more data will come.
        case closed
    }

    private let context: TLSContext
    private let ssl: OpaquePointer
    /// The BIO OpenSSL reads the peer's records from (written by ``feed(_:)``).
    private let input: OpaquePointer
    /// The BIO OpenSSL writes records into (read by ``takeOutput()``).
    private let output: OpaquePointer
    private(set) var isEstablished = false

    init(context: TLSContext) throws(TLSError) {
        guard let ssl = SSL_new(context.context) else { throw .drainingErrorQueue("creating a TLS connection") }
        guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .drainingErrorQueue("creating memory BIOs")
        }
        // An empty input BIO means "wait for more", not end of file.
        _ = whisker_BIO_set_mem_eof_return(input, -1)
        _ = whisker_BIO_set_mem_eof_return(output, -1)
        SSL_set_bio(ssl, input, output)
        SSL_set_accept_state(ssl)
        self.context = context
        self.ssl = ssl
        self.input = input
        self.output = output
    }

    deinit {
        SSL_free(ssl)  // frees both BIOs
    }

    /// Hands bytes received from the peer to OpenSSL.
    func feed(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        // A memory BIO grows as needed; the write takes everything.
        _ = BIO_write(input, base, Int32(bytes.count))
    }

    /// Advances the handshake with the bytes fed so far.
    /// - Throws: ``TLSError`` when the peer cannot be served (no shared version or cipher, not TLS
    ///   at all); an alert for the peer may be waiting in ``takeOutput()``.
    func handshake() throws(TLSError) -> HandshakeStep {
        if isEstablished { return .established(applicationProtocol: applicationProtocol) }
        _ = TLSError.drainReasons()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            isEstablished = true
            return .established(applicationProtocol: applicationProtocol)
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .needsInput
        default: throw .drainingErrorQueue("handshake")
        }
    }

    /// ALPN's choice, once established.
    var applicationProtocol: String? { selectedApplicationProtocol(ssl) }

    /// The negotiated protocol version ("TLSv1.3"), once established.
    var version: String { String(cString: SSL_get_version(ssl)) }

    /// The client's verified certificate (mutual TLS), once established; `nil` when it sent none.
    var clientCertificate: ClientCertificate? {
        var subject = [CChar](repeating: 0, count: 1024)
        var names = [CChar](repeating: 0, count: 4096)
        guard whisker_verified_peer_certificate(ssl, &subject, Int32(subject.count), &names, Int32(names.count)) == 1 else { return nil }
        func text(_ chars: [CChar]) -> String { String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return ClientCertificate(subject: text(subject), subjectAlternativeNames: text(names).split(separator: "\n").map(String.init))
    }

    /// Decrypts every complete record fed so far into `buffer`.
    /// - Throws: ``TLSError`` for a corrupt record or a fatal alert.
    func read(into buffer: inout ReadBuffer) throws(TLSError) -> ReadStep {
        var total = 0
        _ = TLSError.drainReasons()
        while true {
            var count = 0
            let result = buffer.withUnsafeFreeSpace(minimum: 16 * 1024) { space in
                SSL_read_ex(ssl, space.baseAddress, space.count, &count) == 1 ? count : 0
            }
            if result > 0 {
                total += result
                // Nothing more fed and no record buffered: another SSL_read would only say
                // WANT_READ (a call and an error-queue look a batch, for nothing).
                if BIO_ctrl_pending(input) == 0 && SSL_has_pending(ssl) == 0 { return .bytes(total) }
                continue
            }
            switch SSL_get_error(ssl, 0) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .bytes(total)
            case SSL_ERROR_ZERO_RETURN: return total > 0 ? .bytes(total) : .closed
            default: throw .drainingErrorQueue("reading")
            }
        }
    }

    /// Encrypts `bytes` into records waiting in ``takeOutput()``.
    func write(_ bytes: ArraySlice<UInt8>) throws(TLSError) {
        guard !bytes.isEmpty else { return }
        _ = TLSError.drainReasons()
        let written = bytes.withUnsafeBufferPointer { buffer -> Bool in
            var count = 0
            // A memory BIO takes everything, so one call writes it all.
            return SSL_write_ex(ssl, buffer.baseAddress, buffer.count, &count) == 1 && count == buffer.count
        }
        if !written { throw .drainingErrorQueue("writing") }
    }

    /// Queues close_notify in ``takeOutput()``.
    func shutdown() {
        guard isEstablished else { return }
        _ = SSL_shutdown(ssl)
        _ = TLSError.drainReasons()
    }

    /// The records OpenSSL produced since the last call, or `nil` if there are none.
    func takeOutput() -> [UInt8]? {
        let pending = Int(BIO_ctrl_pending(output))
        guard pending > 0 else { return nil }
        return [UInt8](unsafeUninitializedCapacity: pending) { bytes, count in
            count = Int(max(0, BIO_read(output, bytes.baseAddress, Int32(pending))))
        }
    }
}
