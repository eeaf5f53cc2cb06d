import Dispatch
import HTTPTypes
import Logging
import WhiskerSockets

/// A connection the server will not serve (it is at its connection limit, or shutting down), told
/// so in the protocol it speaks before it is closed: over TLS the handshake completes first, then
/// the client's first bytes say which protocol. An HTTP/1.1 client gets `503` with `Connection:
/// close`; a client of a protocol the server was given (``ProtocolHandover``) gets that protocol's
/// refusal: for HTTP/2 (the preface, after ALPN `h2` or as h2c prior knowledge) SETTINGS and
/// GOAWAY(NO_ERROR) naming no stream, which tells it that nothing was processed and it may retry
/// elsewhere. A client that says nothing is closed after ``WhiskerServer/Timeouts/tlsHandshake``.
///
/// The object lives as long as its stream's read handler: closing the stream releases it.
final class ConnectionRefusal {
    private let stream: any ByteStream
    private let reason: String
    private let timer: ConnectionTimer
    private let onClose: () -> Void
    private let context: ServerContext
    private var buffer = ReadBuffer()
    private var isAnswered = false

    init(stream: any ByteStream, reason: String, context: ServerContext, onClose: @escaping () -> Void) {
        self.stream = stream
        self.context = context
        self.reason = reason
        self.timer = ConnectionTimer(worker: stream.worker)
        self.onClose = onClose
    }

    /// Starts waiting for the client's first bytes. Call on the stream's queue.
    func start(deadline: Duration) {
        stream.onClose = { [timer, onClose] in
            timer.cancel()
            onClose()
        }
        timer.start { [stream] in stream.close() }
        timer.arm(DispatchTime.now().adding(deadline))
        stream.startReading { [self] in readable() }
    }

    private func readable() {
        let result: ReadResult
        do {
            result = try stream.read(into: &buffer)
        } catch {
            stream.close()
            return
        }
        if isAnswered {
            // The answer is on its way; what the client still sends is dropped.
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            return
        }
        switch result {
        case .endOfStream: stream.close()
        case .wouldBlock: if buffer.readableBytes > 0 { answer() }
        case .bytes: answer()
        }
    }

    private func answer() {
        guard !isAnswered else { return }
        var bytes: [UInt8] = []
        switch context.refusal(buffer, reason: reason) {
        case .needMore: return
        case .answer(let answer): bytes = answer
        case .notMine:
            // Its request is not read: it is answered, observed and logged as one whose head could not be.
            let origin = RequestOrigin(peer: stream.peer, httpVersion: .http1_1, tls: stream.tlsDetails, executor: stream.worker.executor)
            context.answer(.rejection(HTTPRejection(.serviceUnavailable, reason)), to: nil, origin: origin) { response in
                bytes = HTTP1Connection.closingResponseBytes(response)
            }
        }
        isAnswered = true
        stream.write(bytes[...])
        stream.closeAfterAnswer()
    }
}
