import Dispatch
import HTTPTypes
import Logging
import WhiskerCore
import WhiskerSockets

/// A WebSocket connection after the `101`: the ``ConnectionHandler`` that reads frames, feeds
/// ``WebSocketConnectionState`` and does what it answers, and the side of it that the handler's
/// ``WebSocket`` calls into. Everything here runs on the connection's queue (`stream.queue`); the
/// `WebSocket` hops there for each call.
///
/// Backpressure: whole messages wait in `inbound` for the handler, at most
/// ``WebSocketLimits/maxBufferedMessages``; past that, parsing stops (the unparsed bytes stay in
/// the read buffer, at most one read's worth) and the stream's reading is paused, so the peer is
/// slowed by TCP flow control until the handler takes a message. Pongs coalesce: a turn that
/// reads many pings answers only the last (RFC 6455 5.5.3 allows that), so a flood costs one write
/// a turn, and past the control-frame rate the peer is closed with 1008.
///
/// Ownership: the core's ``Connection`` holds this handler until the stream closes; the handler
/// task's ``WebSocket`` holds it too (strongly, as a task holds what it uses) and finds it closed
/// after ``streamClosed()``, which resumes every waiter and cancels the task.
final class WebSocketConnection: ConnectionHandler {
    let connection: Connection
    private let limits: WebSocketLimits
    private let handler: @Sendable (WebSocket) async throws -> Void
    private let request: HTTPRequest
    private let context: RequestContext?
    private var state: WebSocketConnectionState
    /// permessage-deflate's compressor and the smallest message it takes, when negotiated.
    private let deflater: (any WebSocketDeflater)?
    private let minimumCompressedSize: Int
    private var buffer = ReadBuffer()
    private var inbound: [WebSocketMessage] = []
    private var inboundBytes = 0
    private var receiver: CheckedContinuation<WebSocketMessage?, Never>?
    /// The peer will send no more messages (its close frame came, or ours went, or the stream closed).
    private var inboundFinished = false
    private var isReadingPaused = false
    private var task: Task<Void, Never>?
    private let timer: ConnectionTimer
    /// The last frame read or written: the idle timeout counts from it.
    private var lastActivity = DispatchTime.now()
    /// Set while we wait for the peer's close frame.
    private var closeDeadline: DispatchTime?
    private var logger: Logger
    /// Why the connection closed, once known (for ``WebSocket/closeCode``).
    private(set) var closeCode: WebSocketCloseCode?
    private(set) var closeReason = ""
    /// The unsent bytes past which pongs are dropped.
    static let maxUnsentForPong = 64 * 1024
    /// Tests waiting for reading to pause (see ``WebSocket/readingPaused()``).
    private var pauseWaiters: [CheckedContinuation<Int, Never>] = []

    init(
        connection: Connection, limits: WebSocketLimits, deflate: PerMessageDeflate?, request: HTTPRequest, context: RequestContext?,
        handler: @escaping @Sendable (WebSocket) async throws -> Void
    ) {
        self.connection = connection
        self.limits = limits
        self.request = request
        self.context = context
        self.handler = handler
        #if Compression
        let codec = deflate?.makeCodec()
        #else
        let codec: (any WebSocketInflater, any WebSocketDeflater)? = nil  // never negotiated without zlib
        #endif
        deflater = codec?.1
        minimumCompressedSize = deflate?.minimumSize ?? 0
        state = WebSocketConnectionState(limits: limits, inflater: codec?.0)
        timer = ConnectionTimer(worker: connection.stream.worker)
        // The path as the access log writes it: quoted, credentials in its query redacted.
        logger = connection.logger.forRequest(context?.requestID)
        logger[metadataKey: "websocket"] = "\(LogValue.quoted(LogRedaction.target(request.path ?? "/")))"
    }

    // MARK: ConnectionHandler

    func start(buffered: inout ReadBuffer) {
        swap(&buffer, &buffered)
        timer.start { [self] in timerFired() }
        armTimer()
        let socket = WebSocket(self, request: request, context: context)
        let handler = self.handler
        let logger = self.logger
        let context = self.context
        // The handler's lines carry the upgrade request's id, as a request handler's do:
        // `Logger.current` and `RequestContext.current` are bound for it.
        task = Task(executorPreference: connection.stream.worker.executor) {
            await withLogger(logger) { logger in
                await RequestContext.$current.withValue(context) {
                    do {
                        try await handler(socket)
                        await socket.close(.normalClosure)
                    } catch is CancellationError {
                        // The stream closed: nothing left to tell the peer.
                    } catch {
                        logger.error("WebSocket handler threw: \(error)")
                        await socket.close(.internalError)
                    }
                }
            }
        }
        process()
    }

    func readable() {
        guard !isReadingPaused, !connection.stream.isClosed else { return }
        do {
            readLoop: while true {
                switch try connection.stream.read(into: &buffer) {
                case .bytes:
                    lastActivity = .now()
                    process()
                    if isReadingPaused || connection.stream.isClosed { return }
                case .wouldBlock:
                    break readLoop
                case .endOfStream:
                    // No close frame: RFC 6455 7.1.5 calls this 1006.
                    if closeCode == nil { closeCode = .abnormalClosure }
                    connection.stream.close()
                    return
                }
            }
        } catch {
            logger.debug("WebSocket read failed: \(error)")
            if closeCode == nil { closeCode = .abnormalClosure }
            connection.stream.close()
        }
    }

    func beginShutdown() {
        // The server goes away: say so (1001), stop taking messages, and wait a little for the
        // peer's close frame; the registry closes what is left after its grace period.
        sendClose(.goingAway, reason: "server shutting down")
    }

    func streamClosed() {
        timer.cancel()
        if closeCode == nil { closeCode = .abnormalClosure }
        inboundFinished = true
        inbound.removeAll()
        inboundBytes = 0
        receiver?.resume(returning: nil)
        receiver = nil
        resumePauseWaiters(-1)
        task?.cancel()
        task = nil
    }

    // MARK: Reading

    /// Runs the state machine over the buffered bytes while the handler has room.
    private func process() {
        var pong: [UInt8]?
        defer {
            // A peer that pings and does not read gets no more pongs once 64 KiB wait for it:
            // the pongs it never takes cannot pile up in memory.
            if let pong, !connection.stream.isClosed, connection.stream.unsentByteCount < Self.maxUnsentForPong {
                write(pong, completion: nil)
            }
        }
        while !connection.stream.isClosed {
            if inbound.count >= limits.maxBufferedMessages {
                pauseReading()
                return
            }
            guard let action = state.nextAction(from: &buffer, now: DispatchTime.now().uptimeNanoseconds) else { break }
            switch action {
            case .deliver(let message):
                deliver(message)
            case .send(let frame):
                pong = frame  // only the last of a turn's pongs goes out
            case .sendClose(let frame, let closeStream, let code, let reason):
                if let pending = pong { write(pending, completion: nil); pong = nil }
                finishInbound()
                write(frame, completion: nil)
                if closeStream {
                    // Theirs came first: we echoed it, and close.
                    if closeCode == nil { closeCode = code ?? .noStatusReceived; closeReason = reason }
                    connection.stream.closeAfterAnswer()
                }
                return
            case .fail(let frame, let code, let reason):
                if let pending = pong { write(pending, completion: nil); pong = nil }
                logger.info("WebSocket failed with \(code): the peer sent \(reason)")
                if closeCode == nil { closeCode = code; closeReason = reason }
                finishInbound()
                write(frame, completion: nil)
                connection.stream.closeAfterAnswer()
                return
            case .closeStream:
                finishInbound()
                connection.stream.closeAfterAnswer()
                return
            }
        }
        if isReadingPaused, inbound.count < limits.maxBufferedMessages { resumeReading() }
    }

    private func deliver(_ message: WebSocketMessage) {
        if let receiver {
            self.receiver = nil
            receiver.resume(returning: message)
        } else {
            inbound.append(message)
            // Never with the backpressure intact: a test that waits for the pause learns it broke.
            if inbound.count > limits.maxBufferedMessages { resumePauseWaiters(inbound.count) }
        }
    }

    private func finishInbound() {
        inboundFinished = true
        if inbound.isEmpty, let receiver {
            self.receiver = nil
            receiver.resume(returning: nil)
        }
    }

    private func pauseReading() {
        guard !isReadingPaused else { return }
        isReadingPaused = true
        connection.stream.pauseReading()
        resumePauseWaiters(inbound.count)
    }

    /// For tests: `continuation` gets the count of messages waiting once reading pauses (at
    /// once if it is paused), or -1 if the stream closes first.
    func whenReadingPauses(_ continuation: CheckedContinuation<Int, Never>) {
        if isReadingPaused { return continuation.resume(returning: inbound.count) }
        if connection.stream.isClosed { return continuation.resume(returning: -1) }
        pauseWaiters.append(continuation)
    }

    private func resumePauseWaiters(_ value: Int) {
        let waiters = pauseWaiters
        pauseWaiters = []
        for waiter in waiters { waiter.resume(returning: value) }
    }

    private func resumeReading() {
        guard isReadingPaused else { return }
        isReadingPaused = false
        connection.stream.resumeReading()
    }

    // MARK: The handler's side (called on the queue by WebSocket)

    /// Hands the next message to `continuation` now, or when one comes; `nil` once no more will.
    func nextMessage(_ continuation: CheckedContinuation<WebSocketMessage?, Never>) {
        if !inbound.isEmpty {
            continuation.resume(returning: inbound.removeFirst())
            if isReadingPaused, inbound.count < limits.maxBufferedMessages, !connection.stream.isClosed {
                // Room again: parse what waits in the buffer, then let the stream read more.
                process()
                if !isReadingPaused { readable() }
            }
            return
        }
        guard !inboundFinished, !connection.stream.isClosed else { return continuation.resume(returning: nil) }
        precondition(receiver == nil, "two tasks iterate one WebSocket's messages")
        receiver = continuation
    }

    /// Writes `message` as one frame; `completion` runs once it is in the kernel, or with the
    /// reason it cannot be sent.
    func send(_ message: WebSocketMessage, completion: @escaping (WebSocketError?) -> Void) {
        guard state.canSend, !connection.stream.isClosed else { return completion(WebSocketError(.closed, closeCode)) }
        let frame: [UInt8]
        switch message {
        case .text(var text):
            guard let deflater, text.utf8.count >= minimumCompressedSize else {
                frame = WebSocketFrame.encode(.text, payload: text.utf8)
                break
            }
            guard let compressed = text.withUTF8({ deflater.deflate($0) }) else { return compressionFailed(completion) }
            frame = WebSocketFrame.encode(.text, payload: compressed, compressed: true)
        case .binary(let bytes):
            guard let deflater, bytes.count >= minimumCompressedSize else {
                frame = WebSocketFrame.encode(.binary, payload: bytes)
                break
            }
            guard let compressed = bytes.withUnsafeBufferPointer({ deflater.deflate($0) }) else { return compressionFailed(completion) }
            frame = WebSocketFrame.encode(.binary, payload: compressed, compressed: true)
        }
        write(frame) { [closeCode] error in completion(error.map { _ in WebSocketError(.closed, closeCode) }) }
    }

    /// zlib failed mid-message: the peer's window no longer matches ours, so the connection ends (1011).
    private func compressionFailed(_ completion: (WebSocketError?) -> Void) {
        logger.error("WebSocket compression failed: closing with 1011")
        sendClose(.internalError, reason: "compression failed")
        completion(WebSocketError(.closed, closeCode))
    }

    /// Sends a ping with `payload` (at most 125 bytes).
    func ping(_ payload: [UInt8], completion: @escaping (WebSocketError?) -> Void) {
        guard state.canSend, !connection.stream.isClosed else { return completion(WebSocketError(.closed, closeCode)) }
        write(WebSocketFrame.encode(.ping, payload: payload.prefix(WebSocketFrame.maxControlPayload))) { [closeCode] error in
            completion(error.map { _ in WebSocketError(.closed, closeCode) })
        }
    }

    /// Starts the close handshake with `code`, if none is under way.
    func sendClose(_ code: WebSocketCloseCode, reason: String) {
        guard !connection.stream.isClosed, let action = state.close(code, reason: reason) else { return }
        if closeCode == nil { closeCode = code; closeReason = reason }
        finishInbound()
        if case .sendClose(let frame, _, _, _) = action { write(frame, completion: nil) }
        closeDeadline = .now().adding(limits.closeTimeout)
        armTimer()
    }

    var currentCloseCode: WebSocketCloseCode? { closeCode }

    private func write(_ frame: [UInt8], completion: SocketConnection.WriteCompletion?) {
        lastActivity = .now()
        connection.stream.write(frame[...], flush: true, completion: completion)
    }

    // MARK: Timers

    private func armTimer() {
        if let closeDeadline {
            timer.arm(closeDeadline)
        } else if let idle = limits.idleTimeout {
            timer.arm(lastActivity.adding(idle))
        }
    }

    private func timerFired() {
        guard !connection.stream.isClosed else { return }
        if let closeDeadline {
            guard timer.isDue(closeDeadline) else { return }
            logger.debug("WebSocket peer did not answer the close frame in time")
            _ = state.closeTimedOut()
            connection.stream.close()
        } else if let idle = limits.idleTimeout {
            guard timer.isDue(lastActivity.adding(idle)) else { return }
            logger.info("WebSocket idle for \(idle): closing")
            sendClose(.goingAway, reason: "idle timeout")
        }
    }
}
