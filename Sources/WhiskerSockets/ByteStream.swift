public import Dispatch

/// A connection's byte stream as the HTTP layers see it: plain (``SocketConnection``) or
/// encrypted (`TLSStream` in WhiskerTLS), with the same readiness-driven reads, queued writes with
/// completions, backpressure and closing.
///
/// Every member is used on ``queue`` only, and every callback runs there.
public protocol ByteStream: AnyObject {
    /// The worker that owns the stream: its queue, its task executor.
    var worker: IOWorker { get }
    /// The serial queue that owns the stream (the worker's).
    var queue: DispatchQueue { get }
    /// The remote address.
    var peer: SocketAddress { get }
    /// True once the stream closed: nothing more is read or written.
    var isClosed: Bool { get }
    /// Called once, on the queue, after the stream closed (by either side).
    var onClose: (() -> Void)? { get set }
    /// Since when queued bytes have been waiting for the peer to take more; `nil` while writes flow.
    var writeBlockedSince: DispatchTime? { get }
    /// Since when queued bytes have kept waiting for the peer without a break, and how many it
    /// took meanwhile: how fast a peer that holds writes back reads (for a minimum rate of reading
    /// responses). `nil` while writes flow.
    var writeBacklog: WriteBacklog? { get }
    /// True while the stream is still setting itself up with the peer before any application byte
    /// can flow (a TLS handshake); the connection above then holds it to a handshake deadline
    /// instead of the idle one. A plain socket never is.
    var isHandshaking: Bool { get }
    /// What the stream knows of its encryption, once established: `nil` for a plain socket (and
    /// for a TLS stream still in its handshake). What a stream wrapper reports here reaches
    /// `RequestContext.tls` and the protocol choice by ALPN, with no downcast to the wrapper.
    var tlsDetails: TLSDetails? { get }
    /// True when the stream expected its peer to encrypt (a TLS listener) and the peer's first
    /// bytes were plaintext instead (an `http://` request sent to the HTTPS port). The stream then
    /// passes bytes through as they are, both ways, so that the connection can answer in the
    /// peer's own protocol (a 400 saying to use HTTPS) before it closes.
    var isPlaintextPeer: Bool { get }

    /// Starts calling `onReadable` when ``read(into:)`` may have bytes (or the end of stream) to give.
    func startReading(_ onReadable: @escaping () -> Void)
    /// Appends what can be read now to `buffer`.
    /// - Throws: ``/WhiskerSockets/SocketError`` when the connection failed (a reset, say).
    func read(into buffer: inout ReadBuffer) throws(SocketError) -> ReadResult
    /// Stops readiness events until ``resumeReading()``, so that the peer is slowed down by TCP
    /// flow control.
    func pauseReading()
    /// Undoes ``pauseReading()``.
    func resumeReading()
    /// Queues `bytes`; with `flush` false they wait for the next write that flushes, so that
    /// pieces leave together. `completion` runs once they are on their way to the peer, or with
    /// the error that stopped them.
    func write(_ bytes: ArraySlice<UInt8>, flush: Bool, completion: SocketConnection.WriteCompletion?)
    /// Closes once every queued write has gone out, lingering (for at most `linger`) so that unread
    /// input does not turn the close into a reset.
    func closeAfterFlush(linger: DispatchTimeInterval)
    /// Closes once every queued write has gone out: at once when the peer has sent nothing still
    /// unread (it said it is done, and was), else lingering as ``closeAfterFlush(linger:)``.
    func closeAfterFlush(lingeringOnlyForUnreadInput linger: DispatchTimeInterval)
    /// Closes now; queued writes fail.
    func close()
    /// Closes now with a reset (RST): what is queued, in the process or in the kernel, is dropped.
    /// For a peer that does not read: a plain close leaves the kernel delivering the queued bytes
    /// to it for minutes after the connection is gone from the server.
    func abort()
    /// The bytes written to the peer that it has not taken yet: queued in the process, or in the
    /// kernel's send queue (not sent, or sent and not acknowledged). See `IdleDrainCheck`.
    var unsentByteCount: Int { get }
    /// Closes a connection that went idle, keeping it (write side shut) while the peer still
    /// takes what was written to it at `minimumBytesPerSecond`, looked at every `period`, and
    /// resetting it when the peer stops: see ``/WhiskerSockets/SocketConnection/closeIdle(lookingAgainAfter:minimumBytesPerSecond:)``.
    func closeIdle(lookingAgainAfter period: Duration, minimumBytesPerSecond: Double?)
    /// True when ``writeFile(descriptor:offset:count:completion:)`` hands file regions to the
    /// kernel (a plain socket on Linux); an encrypted stream cannot.
    var writesFiles: Bool { get }
    /// Queues `count` bytes of the file `descriptor` from `offset` after what is queued, sent
    /// without copying them through the process (`sendfile(2)`); `completion` as for a write.
    /// The caller keeps the file open until `completion` ran.
    func writeFile(descriptor: Int32, offset: Int64, count: Int, completion: @escaping SocketConnection.WriteCompletion)
}

/// The outcome of one ``ByteStream/read(into:)``.
public enum ReadResult: Equatable, Sendable {
    /// This many bytes were appended to the buffer.
    case bytes(Int)
    /// The peer closed its side (or the connection is closed).
    case endOfStream
    /// Nothing to read now; the read handler will be called again.
    case wouldBlock
}

/// A peer that keeps queued bytes waiting: since when, and how many bytes it took since.
public struct WriteBacklog: Sendable, Equatable {
    /// When the queued bytes began to wait (progress since does not move it).
    public var since: DispatchTime
    /// The bytes the peer took since then.
    public var bytesSent: Int

    /// A backlog that began at `since`, with `bytesSent` taken since.
    public init(since: DispatchTime, bytesSent: Int) {
        self.since = since
        self.bytesSent = bytesSent
    }
}

extension ByteStream {
    /// A stream that does not measure its backlog.
    public var writeBacklog: WriteBacklog? { nil }

    /// A stream that cannot tell what its peer left unread (an encrypted one: the peer's
    /// close_notify may be on its way) always lingers.
    public func closeAfterFlush(lingeringOnlyForUnreadInput linger: DispatchTimeInterval) {
        closeAfterFlush(linger: linger)
    }

    /// A stream with no reset of its own closes.
    public func abort() { close() }

    /// A stream that cannot tell.
    public var unsentByteCount: Int { 0 }

    /// A stream that cannot tell closes.
    public func closeIdle(lookingAgainAfter period: Duration, minimumBytesPerSecond: Double?) { close() }

    /// A stream with no handshake of its own.
    public var isHandshaking: Bool { false }

    /// A stream that is not encrypted.
    public var tlsDetails: TLSDetails? { nil }

    /// A stream that expects no encryption.
    public var isPlaintextPeer: Bool { false }

    /// A stream that cannot send files.
    public var writesFiles: Bool { false }

    /// A stream that cannot send files fails the write.
    public func writeFile(descriptor: Int32, offset: Int64, count: Int, completion: @escaping SocketConnection.WriteCompletion) {
        completion(SocketError(call: "sendfile", code: 95))  // EOPNOTSUPP
    }

    /// Queues `bytes` and flushes.
    public func write(_ bytes: ArraySlice<UInt8>, completion: SocketConnection.WriteCompletion? = nil) {
        write(bytes, flush: true, completion: completion)
    }

    /// Queues `bytes`, flushing or holding them as `flush` says, with no completion.
    public func write(_ bytes: ArraySlice<UInt8>, flush: Bool) {
        write(bytes, flush: flush, completion: nil)
    }

    /// Closes after a flush, lingering up to 2 s.
    public func closeAfterFlush() {
        closeAfterFlush(linger: .seconds(2))
    }

    /// Closes after a flush that carries an answer ending the connection (an error status, a
    /// GOAWAY, a close frame), lingering up to 500 ms: long enough that the peer's bytes still on
    /// their way do not turn the close into a reset that destroys the answer, short enough that a
    /// peer that keeps sending cannot hold the connection.
    public func closeAfterAnswer() {
        closeAfterFlush(linger: .milliseconds(500))
    }
}

/// The TLS side of an established connection, as its stream reports it.
public struct TLSDetails: Sendable, Equatable {
    /// The negotiated version, "TLSv1.3" or "TLSv1.2".
    public let version: String
    /// ALPN's choice ("h2", "http/1.1"), or `nil` when the client offered none.
    public let applicationProtocol: String?
    /// The certificate the client presented and the server verified (mutual TLS), or `nil`.
    public var clientCertificate: ClientCertificate? { certificate?.certificate }
    /// Boxed: the details are copied into every request's context, which stays small this way.
    private let certificate: CertificateBox?

    /// Details of a TLS connection.
    public init(version: String, applicationProtocol: String?, clientCertificate: ClientCertificate? = nil) {
        self.version = version
        self.applicationProtocol = applicationProtocol
        self.certificate = clientCertificate.map(CertificateBox.init)
    }

    private final class CertificateBox: Sendable, Equatable {
        let certificate: ClientCertificate
        init(_ certificate: ClientCertificate) { self.certificate = certificate }
        static func == (lhs: CertificateBox, rhs: CertificateBox) -> Bool { lhs.certificate == rhs.certificate }
    }
}

/// A client's certificate that the server verified against its trusted CAs (mutual TLS): who the
/// client is, as the CA vouched.
public struct ClientCertificate: Sendable, Equatable {
    /// The subject, RFC 2253 form, most specific first: `CN=cat client,O=Whisker tests`.
    public let subject: String
    /// The subject alternative names: `DNS:name`, `email:address`, `URI:uri` (a SPIFFE id, say),
    /// `IP:address`.
    public let subjectAlternativeNames: [String]

    /// A certificate's names.
    public init(subject: String, subjectAlternativeNames: [String]) {
        self.subject = subject
        self.subjectAlternativeNames = subjectAlternativeNames
    }
}
