import Dispatch
import HTTPTypes
import Logging
import WhiskerSockets

/// Serves HTTP/1.1 on one socket: reads and parses requests, routes them, runs handlers, and
/// writes responses in order (pipelined requests wait in the read buffer until the response before
/// them is written). All state lives on the socket's serial queue; handlers run as tasks and
/// reach back only through ``QueueBound``.
final class HTTP1Connection {
    let socket: any ByteStream
    let context: ServerContext
    var queue: DispatchQueue { socket.queue }

    var buffer = ReadBuffer()
    var parser: HTTP1RequestParser
    var exchange: HTTP1Exchange?
    private var nextExchangeID: UInt64 = 0
    /// No more requests: the connection is closing once what is queued is written.
    var isClosing = false
    var isShuttingDown = false
    private var isDriving = false
    private var driveAgain = false

    let timer: ConnectionTimer
    /// Handler tasks run on the connection's worker's queue (see ``DispatchQueueExecutor``).
    let executor: DispatchQueueExecutor
    /// Set once the client's first bytes were the HTTP/2 preface: from then on it serves.
    var http2: HTTP2Connection?
    /// The TLS details for ``RequestContext`` (`nil` on cleartext), read once: the first request
    /// comes after the handshake.
    lazy var tlsDetails = RequestContext.TLS(of: socket)
    var lastReadAt = DispatchTime.now()
    var headStartedAt: DispatchTime?
    var idleSince = DispatchTime.now()

    /// Called once on the queue when the connection is gone.
    var onClose: (() -> Void)?

    var logger: Logger { context.logger }

    init(socket: any ByteStream, context: ServerContext) {
        self.socket = socket
        self.context = context
        self.parser = HTTP1RequestParser(limits: context.configuration.limits)
        self.timer = ConnectionTimer(worker: socket.worker)
        self.executor = socket.worker.executor
    }

    var bound: QueueBound<HTTP1Connection> { QueueBound(self, queue: queue) }

    /// Starts reading. Call on the queue.
    func start() {
        socket.onClose = { [self] in didClose() }
        timer.start { [weak self] in self?.timerFired() }
        socket.startReading { [unowned self] in readable() }
        updateTimer()
    }

    // MARK: Reading

    private func readable() {
        if let http2 {
            http2.readable()
            return
        }
        do {
            switch try socket.read(into: &buffer) {
            case .wouldBlock:
                return
            case .endOfStream:
                peerClosed()
                return
            case .bytes:
                lastReadAt = .now()
                if exchange == nil && headStartedAt == nil { headStartedAt = lastReadAt }
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

    private func didClose() {
        isClosing = true
        timer.cancel()
        http2?.connectionClosed()
        if let exchange {
            exchange.body?.finish(error: RequestBodyError.connectionClosed)
            if !exchange.isResponseComplete { exchange.task?.cancel() }
        }
        exchange = nil
        let onClose = self.onClose
        self.onClose = nil
        onClose?()
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
        while !isClosing {
            if let exchange {
                guard !exchange.isBodyComplete, !exchange.isBodyPaused else { return }
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
                    exchange.bodyBytesReceived += Int64(chunk.count)
                    if let body = exchange.body, !body.push(chunk) { exchange.isBodyPaused = true }
                case .end:
                    exchange.isBodyComplete = true
                    exchange.body?.finish(error: nil)
                    if exchange.isResponseComplete { finishExchange() }
                case .head:
                    assertionFailure("a head inside a body")
                    return
                }
            } else {
                guard buffer.readableBytes > 0 else { return }
                if nextExchangeID == 0 {
                    switch (HTTP2Preface.match(buffer), context.configuration.http2) {
                    case (.needMore, _): return
                    case (.yes, let settings?):
                        startHTTP2(settings, upgrading: nil)
                        return
                    case (.yes, nil), (.broken, nil):
                        // An HTTP/2 client with prior knowledge, and HTTP/2 is off: say so in
                        // its protocol (RFC 9113 §7, HTTP_1_1_REQUIRED), not with a 505 it
                        // would read as frames.
                        refuseHTTP2(errorCode: 0xD, reason: "HTTP/2 is off on this server; use HTTP/1.1")
                        return
                    case (.broken, _?):
                        refuseHTTP2(errorCode: 0x1, reason: "invalid connection preface")
                        return
                    case (.no, _):
                        // ALPN said h2 (or the port is HTTP/2 only), so these bytes cannot be
                        // HTTP/1.1: a connection error (RFC 9113 §3.4), not a 400 the client
                        // would read as frames.
                        let isHTTP2Only = tlsDetails.map { $0.applicationProtocol == "h2" } ?? context.configuration.cleartextHTTP2Only
                        if isHTTP2Only {
                            refuseHTTP2(errorCode: 0x1, reason: "invalid connection preface")
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
                if let settings = context.configuration.http2, socket is SocketConnection, !isShuttingDown,
                    let payload = HTTP2Upgrade.settingsPayload(head) {
                    startHTTP2(settings, upgrading: (head, payload))
                    return
                }
                startExchange(head)
            }
        }
    }

    /// Hands the connection to HTTP/2 with what was read so far: after the preface (prior
    /// knowledge, or ALPN `h2`), or after an `Upgrade: h2c` request, which is answered with 101 and
    /// becomes stream 1.
    private func startHTTP2(_ settings: HTTP2Settings, upgrading: (head: RequestHead, settings: [UInt8])?) {
        let connection: HTTP2Connection
        do {
            let upgrade = upgrading.map { (settings: $0.settings, isHEAD: $0.head.request.method == .head) }
            connection = try HTTP2Connection(socket: socket, context: context, settings: settings, executor: executor, upgrade: upgrade)
        } catch {
            logger.error("cannot start HTTP/2", metadata: ["peer": "\(socket.peer)", "error": "\(error)"])
            close()
            return
        }
        http2 = connection
        timer.cancel()
        headStartedAt = nil
        if let upgrading {
            nextExchangeID &+= 1
            socket.write(HTTP2Upgrade.switchingProtocols[...], flush: true)
            connection.startUpgradedRequest(upgrading.head.request)
        }
        connection.start(buffered: &buffer)
    }

    private func updateReadInterest() {
        guard !isClosing, http2 == nil else { return }
        var wantsBytes = true
        if let exchange {
            if exchange.isBodyPaused {
                wantsBytes = false
            } else if exchange.isBodyComplete {
                // Keep reading to notice a client that goes away, but only so far ahead.
                wantsBytes = buffer.readableBytes < context.configuration.limits.maxHeaderBytes
            }
        }
        if wantsBytes { socket.resumeReading() } else { socket.pauseReading() }
    }

    private func startExchange(_ head: RequestHead) {
        nextExchangeID &+= 1
        let exchange = HTTP1Exchange(id: nextExchangeID, head: head)
        self.exchange = exchange
        headStartedAt = nil
        let path = head.request.path ?? "/"
        let pathOnly = path[..<(path.firstIndex(of: "?") ?? path.endIndex)]
        switch context.router.match(method: head.request.method, path: pathOnly) {
        case .found(let route, let parameters):
            var body: RequestBody?
            if head.framing != .none {
                let bound = self.bound
                let id = exchange.id
                let channel = RequestBodyChannel(highWatermark: context.configuration.limits.requestBodyBufferSize) {
                    bound.run { $0.bodyDemanded(exchangeID: id) }
                }
                exchange.body = channel
                let length: Int64? = if case .length(let length) = head.framing { length } else { nil }
                body = RequestBody(length: length, channel: channel)
            }
            let request = Request(head: head.request, body: body, pathParameters: parameters, peer: socket.peer)
            exchange.task = context.startHandler(
                route, request: request, target: QueueResponseTarget(connection: bound, id: exchange.id),
                httpVersion: head.isHTTP11 ? .http1_1 : .http1_0, tls: tlsDetails, executor: executor)
        case .methodNotAllowed(let allowed):
            answerRouteMiss(head, path: pathOnly, allowed: allowed, exchangeID: exchange.id)
        case .notFound:
            answerRouteMiss(head, path: pathOnly, allowed: [], exchangeID: exchange.id)
        }
    }

    /// Answers 405 (`allowed` not empty) or 404, observed like a handled request when a
    /// ``RequestObserver`` is set.
    private func answerRouteMiss(_ head: RequestHead, path: Substring, allowed: [HTTPRequest.Method], exchangeID: UInt64) {
        let response = ResponseHeadWriter.routeMiss(method: head.request.method, path: path, allowed: allowed, serverMethods: context.router.methods)
        guard let observer = context.observer else { return writeLocalResponse(response, exchangeID: exchangeID) }
        observer.observeLocalResponse(
            to: head.request, status: response.head.status.code, httpVersion: head.isHTTP11 ? .http1_1 : .http1_0,
            isTLS: tlsDetails != nil, peer: socket.peer
        ) {
            writeLocalResponse(response, exchangeID: exchangeID)
        }
    }

    /// Answers without a handler (404, 405); the request's body, if any, is drained or the connection closed.
    private func writeLocalResponse(_ response: Response, exchangeID: UInt64) {
        guard case .bytes(let body) = response.body.storage else { return }
        writeResponse(response.head, body: body, id: exchangeID)
    }

    /// The handler asked for body bytes: send `100 Continue` if the client waits for it, and
    /// resume reading if the buffer had filled up.
    func bodyDemanded(exchangeID: UInt64) {
        guard let exchange, exchange.id == exchangeID, !isClosing else { return }
        if exchange.head.expectsContinue && !exchange.isContinueSent && !exchange.isResponseStarted && !exchange.isBodyComplete {
            exchange.isContinueSent = true
            socket.write(ArraySlice("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        if exchange.isBodyPaused {
            exchange.isBodyPaused = false
            lastReadAt = .now()
        }
        drive()
    }

    /// The response is written and the request body read: the connection is ready for the next request.
    func finishExchange() {
        exchange = nil
        idleSince = .now()
        // An idle keep-alive connection keeps no read buffer: thousands of them would hold 4 KiB each.
        buffer.releaseStorageIfEmpty()
        if buffer.readableBytes > 0 { headStartedAt = idleSince }
        if isShuttingDown {
            close()
            return
        }
        drive()
    }

    // MARK: Rejections and closing

    /// Answers a request that failed before it reached a handler, then closes.
    func reject(_ rejection: HTTPRejection) {
        logger.info("rejected request", metadata: ["peer": "\(socket.peer)", "status": "\(rejection.status.code)", "reason": "\(rejection.reason)"])
        isClosing = true
        socket.write(Self.closingResponseBytes(ResponseHeadWriter.rejection(rejection))[...])
        socket.closeAfterFlush()
    }

    /// SETTINGS and GOAWAY naming no stream, then close: the answer to a client that speaks
    /// HTTP/2 where it cannot be served (a broken preface, or HTTP/2 off).
    private func refuseHTTP2(errorCode: UInt32, reason: String) {
        logger.info("rejected HTTP/2 connection", metadata: ["peer": "\(socket.peer)", "reason": "\(reason)"])
        isClosing = true
        socket.write(HTTP2Preface.goAway(errorCode: errorCode, reason: reason)[...])
        socket.closeAfterFlush(linger: .milliseconds(500))
    }

    /// A complete response with a bytes body and `Connection: close`, as one buffer.
    static func closingResponseBytes(_ response: Response) -> [UInt8] {
        guard case .bytes(let body) = response.body.storage else { return [] }
        let framing = ResponseFraming(contentLength: Int64(body.count), chunked: false, sendsBody: true, keepAlive: false)
        var bytes = ResponseHeadWriter.head(response.head, framing: framing, isHTTP11: true, dateLine: DateCache.shared.headerLine())
        bytes.append(contentsOf: body)
        return bytes
    }

    private func bodyRejected(_ rejection: HTTPRejection, exchange: HTTP1Exchange) {
        exchange.body?.finish(error: RequestBodyError.rejected(rejection))
        exchange.task?.cancel()
        if exchange.isResponseStarted {
            logger.info("request body rejected after the response started", metadata: ["peer": "\(socket.peer)", "reason": "\(rejection.reason)"])
            close()
        } else {
            reject(rejection)
        }
    }

    /// Closes now (aborting anything in flight).
    func close() {
        isClosing = true
        socket.close()
    }

    /// Graceful shutdown: a busy connection finishes its response with `Connection: close` (or
    /// closes right after it, if the head already went out). An idle one first reads what the
    /// client may have sent since the last read event, so a request already on its way (or half
    /// read) is answered too; with nothing there, it closes now.
    func beginShutdown() {
        if let http2 {
            http2.beginShutdown()
            return
        }
        isShuttingDown = true
        guard exchange == nil, !isClosing else { return }
        readable()
        if exchange == nil, buffer.readableBytes == 0, !isClosing {
            isClosing = true
            socket.closeAfterFlush(linger: .milliseconds(500))
        }
    }
}
