import Dispatch
import HTTPTypes
import Logging
import WhiskerSockets

/// Serves HTTP/1.1 on one socket: reads and parses requests, routes them, runs handlers, and
/// writes responses in order (pipelined requests wait in the read buffer until the response before
/// them is written). What to do next (keep-alive, `100 Continue`, draining, shutdown, deadlines)
/// is ``HTTP1ConnectionState``'s to decide; this type does the I/O around it. Everything runs on
/// the socket's serial queue; handlers run as tasks and reach back only through ``QueueBound``.
final class HTTP1Connection: ConnectionHandler {
    /// The connection this handler serves, which owns it (held strongly: see ``Connection``).
    let connection: Connection
    let socket: any ByteStream
    let context: ServerContext
    var queue: DispatchQueue { socket.queue }

    // The stored state marked `@exclusivity(unchecked)` lives on one queue (see the type's notes).
    // Release builds do not check exclusive access to it at run time (those checks were 4% of a
    // request's instructions); debug builds, which the tests run, still do (Performance.md).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var buffer = ReadBuffer()
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var parser: HTTP1RequestParser
    /// What the connection does next; see ``HTTP1ConnectionState``.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var state = HTTP1ConnectionState(now: .now())
    /// The current exchange's handler side (task, body channel, response framing).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var exchange: HTTP1Exchange?
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var isDriving = false
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var driveAgain = false

    let timer: ConnectionTimer
    /// Handler tasks run on the connection's worker's queue (see ``DispatchQueueExecutor``).
    let executor: DispatchQueueExecutor
    /// The TLS details for ``RequestContext`` (`nil` on cleartext), read once: the first request
    /// comes after the handshake.
    lazy var tlsDetails = socket.tlsDetails

    var logger: Logger { context.logger }

    init(connection: Connection) {
        self.connection = connection
        self.socket = connection.stream
        self.context = connection.context
        self.parser = HTTP1RequestParser(limits: context.connectionLimits)
        self.timer = ConnectionTimer(worker: socket.worker)
        self.executor = socket.worker.executor
    }

    var bound: QueueBound<HTTP1Connection> { QueueBound(self, queue: queue) }

    /// Starts the deadlines (the ``Connection`` has started reading). Call on the queue.
    func start(buffered: inout ReadBuffer) {
        timer.start { [weak self] in self?.timerFired() }
        updateTimer()
    }

    // MARK: Reading

    func readable() {
        do {
            socket.worker.lendReadStorage(to: &buffer)
            switch try socket.read(into: &buffer) {
            case .wouldBlock:
                return
            case .endOfStream:
                peerClosed()
                return
            case .bytes:
                state.bytesArrived(now: .now())
            }
        } catch {
            if !error.isDisconnect { logger.debug("read failed", metadata: ["peer": "\(socket.peer)", "error": "\(error)"]) }
            peerClosed()
            return
        }
        drive()
    }

    /// The client closed its side or reset the connection. Half-closed connections are treated
    /// as closed (as SwiftNIO's default): a handler in flight is cancelled.
    private func peerClosed() {
        socket.close()
    }

    func streamClosed() {
        state.closing()
        timer.cancel()
        if let exchange {
            exchange.body?.finish(error: RequestBodyError.connectionClosed)
            if state.exchange?.isResponseComplete != true { exchange.task?.cancel() }
        }
        exchange = nil
    }

    // MARK: Parsing and dispatch

    /// Parses what is buffered as far as the current state allows. Re-entrant calls (a write
    /// completing synchronously inside the loop) just ask the running loop for another pass.
    func drive() {
        if isDriving {
            driveAgain = true
            return
        }
        isDriving = true
        defer { isDriving = false }
        repeat {
            driveAgain = false
            driveOnce()
        } while driveAgain
        updateReadInterest()
        updateTimer()
    }

    private func driveOnce() {
        while !state.isClosing {
            if let exchange {
                guard state.mayParseBody else { return }
                let event: HTTP1RequestParser.Event?
                do {
                    event = try parser.next(&buffer)
                } catch {
                    bodyRejected(error, exchange: exchange)
                    return
                }
                switch event {
                case nil:
                    return
                case .body(let chunk):
                    state.bodyReceived(chunk.count, accepted: exchange.body?.push(chunk) ?? true)
                case .end:
                    exchange.body?.finish(error: nil)
                    if state.bodyEnded() { finishExchange() }
                case .head:
                    assertionFailure("a head inside a body")
                    return
                }
            } else {
                guard buffer.readableBytes > 0 else { return }
                if state.exchangeCount == 0, socket.isPlaintextPeer {
                    answerPlaintextPeer()
                    return
                }
                if state.exchangeCount == 0 {
                    for handover in context.handovers {
                        switch handover.firstBytes(buffer, on: connection) {
                        case .needMore: return
                        case .http1: continue
                        case .takeOver:
                            handOver(to: handover, upgrade: nil)
                            return
                        case .refuse(let answer, let reason):
                            refuse(answer, reason: reason)
                            return
                        }
                    }
                }
                let event: HTTP1RequestParser.Event?
                do {
                    event = try parser.next(&buffer)
                } catch {
                    reject(error)
                    return
                }
                guard case .head(let head)? = event else { return }
                if let handover = upgrade(asked: head) {
                    handOver(to: handover, upgrade: head.request)
                    return
                }
                startExchange(head)
            }
        }
    }

    /// The handover that takes the connection for `head`'s `Upgrade`, if any: only an HTTP/1.1
    /// request without a body that has the field is asked about, and none while shutting down.
    private func upgrade(asked head: RequestHead) -> (any ProtocolHandover)? {
        guard !state.isShuttingDown, head.isHTTP11, head.framing == .none, !context.handovers.isEmpty,
              head.request.headerFields.contains(.upgrade) else { return nil }
        return context.handovers.first { $0.acceptsUpgrade(head.request, on: connection) }
    }

    /// Hands the connection to another protocol with what was read so far: after its first bytes
    /// (the HTTP/2 preface), or answering the upgrade request `upgrade`. This handler stops here:
    /// its timer is cancelled and it gets no more events.
    private func handOver(to handover: any ProtocolHandover, upgrade: HTTPRequest?) {
        let handler: any ConnectionHandler
        do {
            handler = try handover.takeOver(connection, upgrade: upgrade)
        } catch {
            logger.error("cannot hand the connection over", metadata: ["peer": "\(socket.peer)", "error": "\(error)"])
            close()
            return
        }
        state.closing()
        timer.cancel()
        connection.handOver(to: handler, buffered: &buffer)
    }

    private func updateReadInterest() {
        guard !state.isClosing else { return }
        if state.wantsBytes(buffered: buffer.readableBytes, limit: context.configuration.limits.maxHeaderBytes) {
            socket.resumeReading()
        } else {
            socket.pauseReading()
        }
    }

    private func startExchange(_ head: RequestHead) {
        let id = state.headReceived(keepAlive: head.keepAlive, expectsContinue: head.expectsContinue, framing: head.framing)
        let exchange = HTTP1Exchange(id: id, head: head, minBodyRate: context.configuration.limits.minRequestBodyRate)
        self.exchange = exchange
        let bound = self.bound
        let origin = connection.requestOrigin(httpVersion: head.isHTTP11 ? .http1_1 : .http1_0, tls: tlsDetails, executor: executor)
        let declaredLength: Int64? = if case .length(let length) = head.framing { length } else { nil }
        let outcome = context.dispatch(head.request, origin: origin, declaredLength: declaredLength, body: { minRate in
            guard head.framing != .none else { return nil }
            exchange.minBodyRate = minRate
            let channel = RequestBodyChannel(highWatermark: context.configuration.limits.requestBodyBufferSize, onDemand: {
                bound.run { $0.bodyDemanded(exchangeID: id) }
            }, onReject: { rejection in
                bound.run { $0.handlerRejectedBody(rejection, exchangeID: id) }
            })
            exchange.body = channel
            return channel
        }, target: QueueResponseTarget(connection: bound, id: id)) { response in
            writeResponse(response.head, body: response.localBody, id: id)
        }
        switch outcome {
        case .started(let task, let requestID):
            // The connection may have closed while the handler ran inline: nobody cancelled it then.
            if state.isClosing && self.exchange !== exchange { task.cancel() } else { (exchange.task, exchange.requestID) = (task, requestID) }
        case .answered: break
        case .rejected(let rejection): reject(rejection, head: head)
        }
    }

    /// The handler asked for body bytes: send `100 Continue` if the client waits for it, and
    /// resume reading if the buffer had filled up.
    func bodyDemanded(exchangeID: UInt64) {
        if state.bodyDemanded(id: exchangeID, now: .now()) {
            socket.write(ArraySlice("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        guard !state.isClosing else { return }
        drive()
    }

    /// The response is written and the request body read: the connection is ready for the next request.
    func finishExchange() {
        exchange = nil
        // An idle keep-alive connection keeps no read buffer: thousands of them would hold 4 KiB
        // each. Its worker keeps one for whichever connection reads next.
        socket.worker.recycleReadStorage(of: &buffer)
        switch state.exchangeFinished(now: .now(), hasBufferedBytes: buffer.readableBytes > 0) {
        case .close: socket.close()
        case .readNext: drive()
        }
    }

    // MARK: Rejections and closing

    /// Answers a request that failed before it reached a handler (`head`: `nil` when its head
    /// could not be read) through the server's one way out, then closes.
    func reject(_ rejection: HTTPRejection, head: RequestHead? = nil) {
        logger.info("rejected request", metadata: ["peer": "\(socket.peer)", "status": "\(rejection.status.code)", "reason": "\(LogValue.quoted(rejection.reason))"])
        state.closing()
        let origin = connection.requestOrigin(httpVersion: head?.isHTTP11 == false ? .http1_0 : .http1_1, tls: tlsDetails, executor: executor)
        context.answer(.rejection(rejection), to: head?.request, origin: origin) { response in
            socket.write(Self.closingResponseBytes(response)[...])
        }
        socket.closeAfterFlush()
    }

    /// Answers the request of `exchange` with `rejection` (its body refused, or too slow), then
    /// closes: through the response steps, but observed and logged by its handler's run if one
    /// started (which ends with the rejection's status).
    func reject(_ rejection: HTTPRejection, exchange: HTTP1Exchange) {
        guard exchange.task != nil else { return reject(rejection, head: exchange.head) }
        logger.info("rejected request", metadata: ["peer": "\(socket.peer)", "status": "\(rejection.status.code)", "reason": "\(LogValue.quoted(rejection.reason))"])
        state.closing()
        let response = context.response(for: .rejection(rejection), to: exchange.head.request, requestID: exchange.requestID)
        socket.write(Self.closingResponseBytes(response)[...])
        socket.closeAfterFlush()
    }

    /// Sends `answer`, then closes: for a client of another protocol that cannot be served (for
    /// HTTP/2, a broken preface or HTTP/2 off: SETTINGS and GOAWAY naming no stream).
    private func refuse(_ answer: [UInt8], reason: String) {
        logger.info("rejected connection", metadata: ["peer": "\(socket.peer)", "reason": "\(LogValue.quoted(reason))"])
        state.closing()
        socket.write(answer[...])
        socket.closeAfterAnswer()
    }

    /// Plaintext on a port that expects TLS (an `http://` URL for an `https://` server): a 400
    /// that says so, in the client's protocol (GOAWAY for an HTTP/2 preface), then close.
    private func answerPlaintextPeer() {
        let reason = "This port speaks HTTPS: send the request with TLS (https://)."
        switch context.refusal(buffer, reason: reason) {
        case .needMore:
            return
        case .answer(let answer):
            refuse(answer, reason: reason)
        case .notMine:
            reject(HTTPRejection(.badRequest, reason))
        }
    }

    /// A complete response with a bytes body and `Connection: close`, as one buffer.
    static func closingResponseBytes(_ response: Response) -> [UInt8] {
        let body = response.localBody
        let framing = ResponseFraming(contentLength: Int64(body.count), chunked: false, sendsBody: true, keepAlive: false)
        var bytes = ResponseHeadWriter.head(response.head, framing: framing, isHTTP11: true, dateLine: DateCache.shared.headerLine())
        bytes.append(contentsOf: body)
        return bytes
    }

    /// The handler's reading refused the body (past its route's limit, a coding that does not
    /// decode): answered as a body the parser refused.
    func handlerRejectedBody(_ rejection: HTTPRejection, exchangeID: UInt64) {
        guard let exchange, state.isCurrent(exchangeID), !state.isClosing else { return }
        bodyRejected(rejection, exchange: exchange)
    }

    private func bodyRejected(_ rejection: HTTPRejection, exchange: HTTP1Exchange) {
        exchange.body?.finish(error: RequestBodyError.rejected(rejection))
        exchange.task?.cancel()
        if state.exchange?.isResponseStarted == true {
            logger.info("request body rejected after the response started", metadata: ["peer": "\(socket.peer)", "reason": "\(LogValue.quoted(rejection.reason))"])
            close()
        } else {
            reject(rejection, exchange: exchange)
        }
    }

    /// Closes now (aborting anything in flight). For idleness (`idle`), a response the client
    /// has not read yet is not left to an orphaned socket: see `ByteStream.closeIdle`.
    func close(idle: Bool = false) {
        state.closing()
        if idle { socket.closeIdle(lookingAgainAfter: context.configuration.timeouts.idle, minimumBytesPerSecond: context.configuration.limits.minResponseRate?.bytesPerSecond) } else { socket.close() }
    }

    /// Closes now with a reset, dropping what waits for a peer that does not read.
    func abort() {
        state.closing()
        socket.abort()
    }

    /// Graceful shutdown: a busy connection finishes its response with `Connection: close` (or
    /// closes right after it, if the head already went out). An idle one first reads what the
    /// client may have sent since the last read event, so a request already on its way (or half
    /// read) is answered too; with nothing there, it closes now.
    func beginShutdown() {
        switch state.shutdownRequested() {
        case .nothing, .finishCurrent:
            return
        case .readPending:
            readable()
            if state.shutdownAfterRead(hasBufferedBytes: buffer.readableBytes > 0) {
                socket.closeAfterAnswer()
            }
        }
    }
}
