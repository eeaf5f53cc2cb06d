#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import Dispatch
public import Logging
public import WhiskerSockets

/// A TLS server connection over a ``/WhiskerSockets/SocketConnection``: the handshake, then plaintext reads and
/// writes with the same readiness, backpressure and closing behaviour as the socket itself.
///
/// The handshake runs inside ``read(into:)``, so the HTTP layer above simply sees no bytes until
/// the first decrypted ones. Records are decrypted into the caller's buffer as they arrive (one
/// 16 KiB stack buffer per read, no per-connection ciphertext buffer), and every write is
/// encrypted at once and queued on the socket, so write completions keep their meaning.
///
/// A client that speaks plaintext to the TLS port (its first byte a capital letter, as a method
/// or the HTTP/2 preface starts) makes the stream pass bytes through unencrypted and say so in
/// ``isPlaintextPeer``: the connection above answers it in its own protocol. A failed
/// handshake is logged at `info` with OpenSSL's reason and the connection closes after the alert.
public final class TLSStream: ByteStream {
    private let socket: SocketConnection
    private let session: TLSSession
    private let logger: Logger
    private var sawFirstByte = false
    /// The peer sent plaintext: bytes pass through unencrypted (see ``isPlaintextPeer``).
    public private(set) var isPlaintextPeer = false

    /// Starts a server-side TLS connection on `socket`.
    /// - Throws: ``TLSError`` if OpenSSL cannot create the connection state.
    public init(socket: SocketConnection, context: TLSContext, logger: Logger) throws(TLSError) {
        self.socket = socket
        self.session = try TLSSession(context: context)
        self.logger = logger
    }

    public var worker: IOWorker { socket.worker }
    public var queue: DispatchQueue { socket.queue }
    public var peer: SocketAddress { socket.peer }
    public var isClosed: Bool { socket.isClosed }
    public var writeBlockedSince: DispatchTime? { socket.writeBlockedSince }
    public var writeBacklog: WriteBacklog? { socket.writeBacklog }
    public var onClose: (() -> Void)? {
        get { socket.onClose }
        set { socket.onClose = newValue }
    }
    /// Whether the handshake has completed.
    public var isEstablished: Bool { session.isEstablished }
    /// Until the handshake completes (or the connection closes).
    public var isHandshaking: Bool { !session.isEstablished && !socket.isClosed && !isPlaintextPeer }
    /// ALPN's choice, once established.
    public var applicationProtocol: String? { session.applicationProtocol }
    /// The negotiated protocol version ("TLSv1.3"), once established.
    public var protocolVersion: String? { session.isEstablished ? session.version : nil }
    /// The version, ALPN's choice and the client's certificate once the handshake is complete
    /// (read from OpenSSL once).
    public var tlsDetails: TLSDetails? {
        if let details { return details }
        guard session.isEstablished else { return nil }
        details = TLSDetails(version: session.version, applicationProtocol: session.applicationProtocol, clientCertificate: session.clientCertificate)
        return details
    }
    private var details: TLSDetails?

    public func startReading(_ onReadable: @escaping () -> Void) { socket.startReading(onReadable) }
    public func pauseReading() { socket.pauseReading() }
    public func resumeReading() { socket.resumeReading() }

    public func read(into buffer: inout ReadBuffer) throws(SocketError) -> ReadResult {
        if isPlaintextPeer { return try socket.read(into: &buffer) }
        while true {
            let received = try withUnsafeTemporaryAllocation(byteCount: 16 * 1024, alignment: 1) { (space) throws(SocketError) -> ReadResult in
                let result = try socket.read(into: space)
                if case .bytes(let count) = result {
                    if !sawFirstByte {
                        sawFirstByte = true
                        if looksLikePlainHTTP(space[0]) {
                            logger.info("plaintext on the TLS port", metadata: ["peer": "\(socket.peer)"])
                            isPlaintextPeer = true
                            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: space[..<count]))
                            return .bytes(count)
                        }
                    }
                    session.feed(UnsafeBufferPointer(start: space.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count))
                }
                return result
            }
            if isPlaintextPeer || received == .endOfStream { return received }
            if socket.isClosed { return .wouldBlock }
            do {
                if !session.isEstablished {
                    let step = try session.handshake()
                    sendOutput()
                    guard case .established = step else {
                        if received == .wouldBlock { return .wouldBlock }
                        continue
                    }
                }
                let step = try session.read(into: &buffer)
                sendOutput()
                // A failed write of what OpenSSL said closed the socket: nothing more is delivered.
                if socket.isClosed { return .endOfStream }
                switch step {
                case .closed:
                    // Answer close_notify with ours (RFC 8446 §6.1), so the peer sees a clean end.
                    session.shutdown()
                    sendOutput()
                    return .endOfStream
                case .bytes(let count) where count > 0: return .bytes(count)
                case .bytes: if received == .wouldBlock { return .wouldBlock }
                }
            } catch {
                logger.info("TLS connection failed", metadata: ["peer": "\(socket.peer)", "error": "\(error)"])
                sendOutput()  // the alert, if OpenSSL made one
                socket.closeAfterAnswer()
                return .wouldBlock
            }
        }
    }

    public func write(_ bytes: ArraySlice<UInt8>, flush: Bool, completion: SocketConnection.WriteCompletion?) {
        if isPlaintextPeer { return socket.write(bytes, flush: flush, completion: completion) }
        guard !socket.isClosed, session.isEstablished else {
            completion?(SocketError(call: "SSL_write", code: EPIPE))
            return
        }
        do {
            try session.write(bytes)
        } catch {
            logger.info("TLS write failed", metadata: ["peer": "\(socket.peer)", "error": "\(error)"])
            socket.close()
            completion?(SocketError(call: "SSL_write", code: EPROTO))
            return
        }
        socket.write(session.takeOutput()?[...] ?? [], flush: flush, completion: completion)
    }

    /// Sends close_notify after the queued writes, then closes the socket as it does.
    public func closeAfterFlush(linger: DispatchTimeInterval) {
        guard !socket.isClosed else { return }
        if isPlaintextPeer { return socket.closeAfterFlush(linger: linger) }
        session.shutdown()
        sendOutput()
        socket.closeAfterFlush(linger: linger)
    }

    public func close() { socket.close() }

    public func abort() { socket.abort() }

    public var unsentByteCount: Int { socket.unsentByteCount }

    public func closeIdle(lookingAgainAfter period: Duration, minimumBytesPerSecond: Double?) {
        socket.closeIdle(lookingAgainAfter: period, minimumBytesPerSecond: minimumBytesPerSecond)
    }

    private func sendOutput() {
        if let output = session.takeOutput() { socket.write(output[...], flush: true, completion: nil) }
    }

    /// A TLS connection starts with a handshake record (0x16); an HTTP request starts with a
    /// method's capital letter.
    private func looksLikePlainHTTP(_ first: UInt8) -> Bool {
        first >= UInt8(ascii: "A") && first <= UInt8(ascii: "Z")
    }
}
