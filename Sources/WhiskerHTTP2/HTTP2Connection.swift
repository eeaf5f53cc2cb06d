import Dispatch
import HTTPTypes
import Logging
import WhiskerCore
import WhiskerSockets

/// Serves HTTP/2 on one connection (after the client's preface, over TLS with ALPN `h2` or over
/// cleartext with prior knowledge): an nghttp2 session fed from the socket, one handler task per
/// stream, on the connection's queue like HTTP/1.1.
///
/// Backpressure both ways: request-body bytes are acknowledged to the client (WINDOW_UPDATE) only
/// as the handler reads them, and frames are produced only as fast as the socket takes them (one
/// write in flight); a response chunk's `write` returns once nghttp2 has framed it, which flow
/// control holds back while the client's window is closed.
final class HTTP2Connection: ResponseWriting, ConnectionHandler {
    /// The connection this handler serves, which owns it (held strongly: see ``Connection``).
    private let connection: Connection
    let socket: any ByteStream
    let context: ServerContext
    let session: HTTP2Session
    private let executor: DispatchQueueExecutor
    /// The TLS details for ``RequestContext`` (`nil` on h2c), read once: streams come after the handshake.
    private lazy var tlsDetails = socket.tlsDetails
    /// Where this connection's requests come from (the peer, TLS, the listener): the same for
    /// every stream, so made once (by the first) rather than a stream.
    private lazy var origin = connection.requestOrigin(httpVersion: .http2, tls: tlsDetails, executor: executor)
    // The stored state marked `@exclusivity(unchecked)` lives on one queue (see the type's notes).
    // Release builds do not check exclusive access to it at run time (those checks were 4% of a
    // request's instructions); debug builds, which the tests run, still do (Performance.md).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var buffer = ReadBuffer()
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var streams: [Int32: HTTP2Stream] = [:]
    /// The `:authority` a request on this connection had last, found valid (see
    /// ``HTTP2RequestHead/parse(_:validAuthority:)``).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var validAuthority: String?
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var isWriting = false
    /// A batch of the client's frames is being handled: responses given meanwhile are framed
    /// together when it ends (``flushSoon()``), so a read that brought many requests is answered
    /// with one write.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var isHandlingInput = false
    /// The session's own termination (a flood, resets past the rate) was logged.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var isTerminationLogged = false
    /// The GOAWAY sequence, held output and deadlines; see ``HTTP2ConnectionState``. After
    /// `Upgrade: h2c`, frames wait for the client's preface (a client may not hold much data that
    /// arrives before it: curl keeps 32 KiB after the 101).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var state = HTTP2ConnectionState(now: .now())
    let timer: ConnectionTimer
    var logger: Logger { context.logger }

    /// One request/response exchange: its lifecycle (``HTTP2StreamState``) and what the handler
    /// side holds (task, body channel, the chunk waiting to be framed).
    final class HTTP2Stream {
        #if !DEBUG
        @exclusivity(unchecked)
        #endif
        var state: HTTP2StreamState
        /// The handler's task: once set, the handler's run observes and logs the request, whoever answers it.
        #if !DEBUG
        @exclusivity(unchecked)
        #endif
        var task: Task<Void, Never>?
        /// The request's head (`nil` for one refused before it could be read) and id, for an
        /// answer the connection gives.
        #if !DEBUG
        @exclusivity(unchecked)
        #endif
        var head: HTTPRequest?
        #if !DEBUG
        @exclusivity(unchecked)
        #endif
        var requestID: String?
        /// Where the request body goes while a handler reads it (``HTTP2StreamState/isBodyRead``).
        #if !DEBUG
        @exclusivity(unchecked)
        #endif
        var body: RequestBodyChannel?
        #if !DEBUG
        @exclusivity(unchecked)
        #endif
        var isHEAD = false
        /// The completion of the response chunk nghttp2 has not framed yet (one at a time).
        var pendingChunk: ((any Error)?) -> Void = { _ in }
        #if !DEBUG
        @exclusivity(unchecked)
        #endif
        var hasPendingChunk = false
        /// A streamed body's bytes against its `Content-Length`.
        #if !DEBUG
        @exclusivity(unchecked)
        #endif
        var streamed = StreamedBodyCount(declared: nil)
        /// The slowest the request body may arrive: its route's, else the server's.
        #if !DEBUG
        @exclusivity(unchecked)
        #endif
        var minBodyRate: MinimumDataRate?

        init(requestComplete: Bool, now: DispatchTime, minBodyRate: MinimumDataRate?) {
            state = HTTP2StreamState(requestComplete: requestComplete, now: now)
            self.minBodyRate = minBodyRate
        }

        /// The handler no longer reads the body: its read ends with `error`, made only if there is
        /// a body (an error existential is a heap box: a request without a body makes none).
        func finishBody(_ error: @autoclosure () -> any Error) {
            guard let body else { return }
            body.finish(error: error())
            self.body = nil
        }

        /// The stream is gone (reset, or the connection closed): the body read fails, an
        /// unfinished handler is cancelled, and a chunk waiting to be framed fails. Returns the
        /// window the handler's unread bytes held.
        func end() -> Int {
            let (unread, cancelHandler) = state.ended()
            finishBody(RequestBodyError.connectionClosed)
            if cancelHandler { task?.cancel() }
            if hasPendingChunk {
                hasPendingChunk = false
                pendingChunk(ResponseBodyError.connectionClosed)
            }
            return unread
        }
    }

    /// - Parameter upgrade: For `Upgrade: h2c`, the client's decoded `HTTP2-Settings` and whether
    ///   the upgraded request is a HEAD.
    init(connection: Connection, settings: HTTP2Settings, upgrade: (settings: [UInt8], isHEAD: Bool)? = nil) throws(HTTP2Error) {
        self.connection = connection
        self.socket = connection.stream
        self.context = connection.context
        self.session = try HTTP2Session(
            settings: settings, maxHeaderFields: context.configuration.limits.maxHeaderCount,
            upgradeSettings: upgrade?.settings, upgradeIsHEAD: upgrade?.isHEAD ?? false)
        self.timer = ConnectionTimer(worker: socket.worker)
        self.executor = socket.worker.executor
    }

    private var bound: QueueBound<HTTP2Connection> { QueueBound(self, queue: socket.queue) }

    /// Takes over with the bytes HTTP/1.1 already read (the preface and what followed).
    func start(buffered: inout ReadBuffer) {
        timer.start { [weak self] in self?.timerFired() }
        process(&buffered)
        updateTimer()
    }

    /// Serves the HTTP/1.1 request that asked for the upgrade as stream 1 (it has no body).
    func startUpgradedRequest(_ request: HTTPRequest) {
        var fields = HTTP2RequestFields(capacity: request.headerFields.count)
        fields.append(":method", request.method.rawValue)
        fields.append(":scheme", "http")
        fields.append(":authority", request.authority ?? "")
        fields.append(":path", request.path ?? "/")
        for field in request.headerFields where !Self.connectionSpecific.contains(field.name) && field.name.canonicalName != "http2-settings" {
            fields.append(field.name.canonicalName, field.value)
        }
        state.holdOutput(now: .now())
        startStream(1, fields: fields, endStream: true)
    }

    /// The stream is readable.
    func readable() {
        guard !state.isClosed else { return }
        do {
            switch try socket.read(into: &buffer) {
            case .wouldBlock: return
            case .endOfStream:
                socket.close()
                return
            case .bytes: process(&buffer)
            }
        } catch {
            socket.close()
        }
    }

    private func process(_ bytes: inout ReadBuffer) {
        guard bytes.readableBytes > 0, !state.isClosed else { return }
        state.bytesArrived()
        let events: [HTTP2Session.Event]
        do {
            events = try bytes.withUnsafeReadableBytes { (readable) throws(HTTP2Error) in try session.receive(UnsafeRawBufferPointer(readable)) }
        } catch {
            logger.info("HTTP/2 connection error", metadata: ["peer": "\(socket.peer)", "error": "\(session.termination ?? "\(error)")"])
            isTerminationLogged = session.termination != nil
            bytes.moveReaderIndex(forwardBy: bytes.readableBytes)
            flush()
            socket.closeAfterAnswer()
            return
        }
        bytes.moveReaderIndex(forwardBy: bytes.readableBytes)
        isHandlingInput = true
        handle(events)
        isHandlingInput = false
        flush()
        updateTimer()
    }

    /// Handles a batch of events in order, and stops as soon as the connection closes (an answer
    /// given inline may end the session and close the stream): the rest concerns streams that
    /// are gone.
    private func handle(_ events: [HTTP2Session.Event]) {
        for event in events {
            guard !state.isClosed else { return }
            handle(event)
        }
    }

    private func handle(_ event: HTTP2Session.Event) {
        switch event {
        case .request(let id, let fields, let endStream):
            guard session.mayStart(streamID: id) else { return }
            startStream(id, fields: fields, endStream: endStream)
        case .headersTooLarge(let id, let reason):
            guard session.mayStart(streamID: id) else { return }
            reject(HTTPRejection(.requestHeaderFieldsTooLarge, reason), id: id, stream: open(id))
        case .data(let id, let bytes):
            guard let stream = streams[id] else {
                session.consume(streamID: id, count: bytes.count)
                return
            }
            switch stream.state.dataReceived(bytes.count, now: .now(), limits: context.connectionLimits) {
            case .deliver:
                _ = stream.body?.push(bytes[...])
            case .drop:
                // Nobody reads this stream's body any more: its window goes back at once.
                session.consume(streamID: id, count: bytes.count)
            case .dropAndStop:
                session.consume(streamID: id, count: bytes.count)
                session.stopRequestAfterResponse(streamID: id)
            case .reject(let rejection):
                session.consume(streamID: id, count: bytes.count)
                reject(rejection, id: id, stream: stream)
            }
        case .endStream(let id):
            guard let stream = streams[id] else { return }
            if stream.state.endStreamReceived() { stream.body?.finish(error: nil) }
        case .streamClosed(let id, _):
            guard let stream = streams.removeValue(forKey: id) else { return }
            // What the handler did not read goes back to the connection's window.
            session.consume(streamID: id, count: stream.end())
            if streams.isEmpty, state.lastStreamClosed(now: .now()) { finishShutdown() }
        case .shutdownNoticeAcknowledged:
            sendFinalGoAway()
        }
    }

    /// Registers a new stream (the connection is no longer idle, and open streams are watched).
    private func open(_ id: Int32, isRequestComplete: Bool = false) -> HTTP2Stream {
        let now = DispatchTime.now()
        let stream = HTTP2Stream(requestComplete: isRequestComplete, now: now, minBodyRate: context.configuration.limits.minRequestBodyRate)
        streams[id] = stream
        state.streamOpened(now: now, checkInterval: streamCheckInterval)
        return stream
    }

    private func startStream(_ id: Int32, fields: HTTP2RequestFields, endStream: Bool) {
        let head: HTTPRequest
        do {
            guard let request = try HTTP2RequestHead.parse(fields, validAuthority: &validAuthority) else {
                session.reset(streamID: id, errorCode: 0x1)  // PROTOCOL_ERROR
                return
            }
            head = request
        } catch {
            reject(error, id: id, stream: open(id, isRequestComplete: endStream))
            return
        }
        let stream = open(id, isRequestComplete: endStream)
        stream.isHEAD = head.method == .head
        stream.head = head
        let connection = bound
        let declaredLength = head.headerFields[.contentLength].flatMap { Int64($0) }
        let outcome = context.dispatch(head, origin: origin, declaredLength: declaredLength, body: { minRate in
            guard !endStream else { return nil }
            stream.minBodyRate = minRate
            let channel = RequestBodyChannel(highWatermark: Int.max, onDemand: {}, onConsume: { count in
                connection.run { $0.consumed(count, streamID: id) }
            }, onReject: { rejection in
                connection.run { $0.handlerRejectedBody(rejection, streamID: id) }
            })
            stream.body = channel
            stream.state.readerAttached()
            return channel
        }, target: QueueResponseTarget(connection: connection, id: id)) { response in
            writeLocalResponse(response, id: id)
        }
        switch outcome {
        case .started(let task, let requestID):
            // The stream may have ended while the handler ran inline (the server reset it).
            if stream.state.isEnded && !stream.state.isResponseComplete { task.cancel() } else { (stream.task, stream.requestID) = (task, requestID) }
        case .answered: break
        case .rejected(let rejection): reject(rejection, id: id, stream: stream)
        }
    }

    /// The handler's reading refused the stream's body (past its route's limit, a coding that
    /// does not decode): answered as a body over the server's limit is.
    func handlerRejectedBody(_ rejection: HTTPRejection, streamID id: Int32) {
        guard let stream = streams[id] else { return }
        reject(rejection, id: id, stream: stream)
    }

    /// Writes an answer the server made itself (through ``ServerContext/answer(_:to:origin:write:)``).
    private func writeLocalResponse(_ response: Response, id: Int32) {
        writeResponse(response.head, body: response.localBody, id: id)
    }

    /// Refuses a stream's request, logged as HTTP/1.1 logs its rejections: the handler, if
    /// running, is cancelled and its body read fails; the rejection's status is the answer if
    /// the response has not started (through the server's one way out; observed and logged by
    /// the handler's run if one started), else the stream is reset. The connection serves on.
    func reject(_ rejection: HTTPRejection, id: Int32, stream: HTTP2Stream) {
        logger.info("rejected request", metadata: ["peer": "\(socket.peer)", "stream": "\(id)", "status": "\(rejection.status.code)", "reason": "\(LogValue.quoted(rejection.reason))"])
        stream.finishBody(RequestBodyError.rejected(rejection))
        stream.task?.cancel()
        switch stream.state.rejected() {
        case .reset:
            resetStream(id, stream, errorCode: 0x8)  // CANCEL
        case .answer:
            if stream.task != nil {
                writeLocalResponse(context.response(for: .rejection(rejection), to: stream.head, requestID: stream.requestID), id: id)
            } else {
                context.answer(.rejection(rejection), to: stream.head, origin: origin) { writeLocalResponse($0, id: id) }
            }
            // The rest of a refused request is not wanted. A body declared small enough is read and
            // dropped as after an early response (``responseCompleted(_:_:)``): a client still
            // sending when a reset comes may lose the answer (curl 7.88 does, about 1 time in 5).
            // Any other, and one too slow, is asked to stop now.
            if !Self.drainsRest(of: stream, after: rejection) { stopRequest(id, stream) }
        }
    }

    /// Whether the unread rest of `stream`'s refused body is drained rather than stopped: its
    /// declared length is within ``WhiskerServer/Limits/unreadBodyDrain`` and it was not too slow.
    private static func drainsRest(of stream: HTTP2Stream, after rejection: HTTPRejection) -> Bool {
        guard rejection.status != .requestTimeout,
              let declared = stream.head?.headerFields[.contentLength].flatMap({ Int64($0) }) else { return false }
        return declared <= WhiskerServer.Limits.unreadBodyDrain
    }

    /// Asks the client to stop sending the request body (RST_STREAM NO_ERROR once the response
    /// is out, RFC 9113 §8.1), unless it was asked already or has finished.
    func stopRequest(_ id: Int32, _ stream: HTTP2Stream) {
        if stream.state.stopRequested() { session.stopRequestAfterResponse(streamID: id) }
    }

    /// The handler read `count` body bytes: acknowledge them to the client. For a stream that
    /// has closed since, the close already gave its unread bytes back.
    private func consumed(_ count: Int, streamID: Int32) {
        guard !state.isClosed, let stream = streams[streamID] else { return }
        stream.state.handlerRead(count, now: .now())
        session.consume(streamID: streamID, count: count)
        flushSoon()
    }

    /// Request fields that mean nothing (and are malformed) in HTTP/2 (RFC 9113 §8.2.2), left out
    /// of the upgraded request's stream 1.
    private static let connectionSpecific: Set<HTTPField.Name> = [.connection, .transferEncoding, .upgrade, HTTPField.Name("Proxy-Connection")!, HTTPField.Name("Keep-Alive")!]

    // MARK: Output and closing

    /// Writes what nghttp2 has to send, now or, while a batch of input is being handled, when the
    /// batch ends (which ``process(_:)`` does). For what answers a stream; a step that must reach
    /// the client before the socket closes calls ``flush()``.
    func flushSoon() {
        if !isHandlingInput { flush() }
    }

    /// Writes what nghttp2 has to send, one write in flight at a time.
    func flush() {
        guard !isWriting, state.mayWrite else { return }
        let output: [UInt8]?
        do {
            output = try session.takeOutput()
        } catch {
            logger.info("HTTP/2 send failed", metadata: ["peer": "\(socket.peer)", "error": "\(error)"])
            socket.close()
            return
        }
        if let output {
            isWriting = true
            socket.write(output[...], flush: true) { [self] error in
                isWriting = false
                if error == nil { flush() }
            }
        }
        // Streams whose last frame just went out are closed now, not at the peer's next bytes
        // (a graceful shutdown waits for them).
        handle(session.takeEvents())
        if let reason = session.termination, !isTerminationLogged {
            isTerminationLogged = true
            logger.info("HTTP/2 connection ended by the server", metadata: ["peer": "\(socket.peer)", "reason": "\(reason)"])
        }
        guard !state.isClosed else { return }
        if output == nil && !session.isActive { socket.closeAfterAnswer() }
        // A client that stops reading blocks this write: the write-stall deadline starts now.
        if socket.writeBlockedSince != nil { updateTimer() }
    }

    /// Graceful shutdown in two steps (RFC 9113 §6.8): a shutdown notice and a PING; once the
    /// client acknowledges it (or after a second, for a client that does not), the final GOAWAY
    /// naming the last stream served. Then close once the open streams finish.
    func beginShutdown() {
        guard state.shutdownRequested(now: .now()) else { return }
        session.announceShutdown()
        flush()
        updateTimer()
    }

    func sendFinalGoAway() {
        guard state.finalGoAwayDue() else { return }
        session.goAway()
        flush()
        if streams.isEmpty { finishShutdown() }
    }

    func finishShutdown() {
        flush()
        socket.closeAfterAnswer()
    }

    /// The socket closed: cancel every handler still running.
    func streamClosed() {
        state.closed()
        timer.cancel()
        for stream in streams.values { _ = stream.end() }
        streams.removeAll()
    }
}
