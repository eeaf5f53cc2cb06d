import Dispatch
import WhiskerSockets
import HTTPTypes
import Logging

extension HTTP1Connection: ResponseWriting {
    /// The exchange a late callback refers to, if it is still current.
    private func current(_ exchangeID: UInt64) -> HTTP1Exchange? {
        guard let exchange, state.isCurrent(exchangeID) else { return nil }
        return exchange
    }

    private func startResponse(_ head: HTTPResponse, bodyLength: Int64?, exchange: HTTP1Exchange) -> (ResponseFraming, [UInt8]) {
        let status = head.status
        let framing = ResponseFraming.decide(
            status: status,
            isHEAD: exchange.isHEAD,
            bodyLength: bodyLength,
            isHTTP11: exchange.head.isHTTP11,
            keepAlive: state.responseStarting(id: exchange.id)
        )
        exchange.framing = framing
        exchange.streamed = StreamedBodyCount(declared: framing.contentLength)
        let bytes = ResponseHeadWriter.head(head, status: status, framing: framing, isHTTP11: exchange.head.isHTTP11, dateLine: DateCache.shared.headerLine())
        return (framing, bytes)
    }

    /// Writes a whole response whose body is in memory.
    func writeResponse(_ response: HTTPResponse, body: ArraySlice<UInt8>, id exchangeID: UInt64) {
        guard let exchange = current(exchangeID), exchange.framing == nil else { return }
        defer { updateTimer() }
        var (framing, head) = startResponse(response, bodyLength: Int64(body.count), exchange: exchange)
        let completion: SocketConnection.WriteCompletion = { [self] error in
            if error == nil { responseWritten(exchangeID: exchangeID) }
        }
        if framing.sendsBody && !body.isEmpty {
            if body.count <= 4096 {
                head.append(contentsOf: body)
                socket.write(head[...], completion: completion)
            } else {
                socket.write(head[...], flush: false)
                socket.write(body, completion: completion)
            }
        } else {
            socket.write(head[...], completion: completion)
        }
    }

    /// Writes the head of a streamed response; the body follows through ``writeStreamChunk``.
    func writeStreamHead(_ head: HTTPResponse, length: Int64?, id exchangeID: UInt64) {
        guard let exchange = current(exchangeID), exchange.framing == nil else { return }
        let length = length ?? head.headerFields[.contentLength].flatMap { Int64($0) }
        let (framing, bytes) = startResponse(head, bodyLength: length, exchange: exchange)
        // A body of known length follows soon: the head leaves with its first chunk. A stream of
        // unknown length (server-sent events, say) may wait long for a chunk: the head goes now.
        socket.write(bytes[...], flush: framing.chunked || !framing.sendsBody)
        updateTimer()
    }

    /// Writes one chunk of a streamed body; `completion` runs once it is in the kernel.
    func writeStreamChunk(_ bytes: ArraySlice<UInt8>, id exchangeID: UInt64, completion: @escaping ((any Error)?) -> Void) {
        guard let exchange = current(exchangeID), let framing = exchange.framing else {
            completion(ResponseBodyError.connectionClosed)
            return
        }
        guard framing.sendsBody else {
            completion(nil)
            return
        }
        if let error = exchange.streamed.add(bytes.count) {
            logger.error("response body length mismatch; closing", metadata: ["path": "\(LogValue.quoted(LogRedaction.target(exchange.head.request.path ?? "")))", "error": "\(LogValue.quoted("\(error)"))"])
            close()
            completion(error)
            return
        }
        let written: SocketConnection.WriteCompletion = { error in
            completion(error == nil ? nil : ResponseBodyError.connectionClosed)
        }
        if framing.chunked {
            socket.write(ArraySlice("\(String(bytes.count, radix: 16))\r\n".utf8), flush: false)
            socket.write(bytes, flush: false)
            socket.write(ArraySlice("\r\n".utf8), completion: written)
        } else {
            socket.write(bytes, completion: written)
        }
        // A client that stops reading blocks this write: the write-stall deadline starts now.
        updateTimer()
    }

    /// Queues a region of a file for `sendfile(2)` when the body has a known length and the
    /// stream is a plain socket; false otherwise (chunked framing, TLS).
    func writeStreamFile(descriptor: Int32, offset: Int64, count: Int64, id exchangeID: UInt64, completion: @escaping ((any Error)?) -> Void) -> Bool {
        guard socket.writesFiles, let exchange = current(exchangeID), let framing = exchange.framing, !framing.chunked else { return false }
        guard framing.sendsBody else {
            completion(nil)
            return true
        }
        if let error = exchange.streamed.add(Int(count)) {
            logger.error("response body length mismatch; closing", metadata: ["path": "\(LogValue.quoted(LogRedaction.target(exchange.head.request.path ?? "")))", "error": "\(LogValue.quoted("\(error)"))"])
            close()
            completion(error)
            return true
        }
        socket.writeFile(descriptor: descriptor, offset: offset, count: Int(count)) { error in completion(error == nil ? nil : ResponseBodyError.connectionClosed) }
        updateTimer()
        return true
    }

    /// Ends a streamed body.
    func finishStream(id exchangeID: UInt64) {
        guard let exchange = current(exchangeID), let framing = exchange.framing else { return }
        if framing.sendsBody, let error = exchange.streamed.shortfall {
            logger.error("response body length mismatch; closing", metadata: ["path": "\(LogValue.quoted(LogRedaction.target(exchange.head.request.path ?? "")))", "error": "\(LogValue.quoted("\(error)"))"])
            close()
            return
        }
        let completion: SocketConnection.WriteCompletion = { [self] error in
            if error == nil { responseWritten(exchangeID: exchangeID) }
        }
        socket.write(framing.sendsBody && framing.chunked ? ArraySlice("0\r\n\r\n".utf8) : [], completion: completion)
    }

    /// A streamed body failed after its head was sent: the only honest signal left is to close.
    func abortStream(id exchangeID: UInt64) {
        guard current(exchangeID) != nil else { return }
        close()
    }

    /// A handler's `101` (``ProtocolSwitch``): the head goes out with `Connection: Upgrade`, and
    /// once it is in the kernel the connection continues in `next`, with the bytes read past the
    /// request. A request with a body, or an HTTP/1.0 one, cannot switch: 400, then close.
    func switchProtocols(_ head: HTTPResponse, to next: any ProtocolSwitch, id exchangeID: UInt64) {
        guard let exchange = current(exchangeID), exchange.framing == nil else { return }
        guard exchange.head.isHTTP11, exchange.head.framing == .none else {
            return reject(HTTPRejection(.badRequest, "a protocol switch needs an HTTP/1.1 request without a body"), exchange: exchange)
        }
        _ = state.responseStarting(id: exchangeID)
        let framing = ResponseFraming(contentLength: nil, chunked: false, sendsBody: false, keepAlive: true)
        exchange.framing = framing
        var bytes = ResponseHeadWriter.head(head, framing: framing, isHTTP11: true, dateLine: DateCache.shared.headerLine())
        bytes.removeLast(2)
        bytes.append(contentsOf: "Connection: Upgrade\r\n\r\n".utf8)
        socket.write(bytes[...]) { [self] error in
            if error == nil { switched(to: next, exchangeID: exchangeID) }
        }
        updateTimer()
    }

    /// The `101` is in the kernel: this handler stops (no more events, its timer cancelled) and
    /// `next`'s handler takes the connection, told at once if a graceful shutdown began meanwhile.
    private func switched(to next: any ProtocolSwitch, exchangeID: UInt64) {
        guard current(exchangeID) != nil, !state.isClosing else { return }
        let isShuttingDown = state.isShuttingDown
        exchange = nil
        state.closing()
        timer.cancel()
        let handler: any ConnectionHandler
        do {
            handler = try next.takeOver(connection)
        } catch {
            logger.error("cannot switch protocols", metadata: ["peer": "\(socket.peer)", "error": "\(LogValue.quoted("\(error)"))"])
            socket.close()
            return
        }
        socket.resumeReading()
        connection.handOver(to: handler, buffered: &buffer)
        if isShuttingDown, !socket.isClosed { handler.beginShutdown() }
    }

    /// The last byte of the response reached the kernel.
    private func responseWritten(exchangeID: UInt64) {
        guard let exchange = current(exchangeID), let framing = exchange.framing else { return }
        switch state.responseWritten(id: exchangeID, keptAlive: framing.keepAlive) {
        case nil:
            return
        case .close:
            exchange.body?.finish(error: RequestBodyError.responseAlreadySent)
            socket.closeAfterFlush()
        case .closeAsAsked where buffer.readableBytes == 0:
            // The client said this was its last request and sent no byte more: no lingering for
            // bytes it will not send (unless the kernel holds some after all).
            socket.closeAfterFlush(lingeringOnlyForUnreadInput: .seconds(2))
        case .closeAsAsked:
            socket.closeAfterFlush()
        case .finishExchange:
            finishExchange()
        case .drainBody:
            // Nobody will read the rest of this body: drop it as it arrives.
            exchange.body?.finish(error: RequestBodyError.responseAlreadySent)
            exchange.body = nil
            drive()
        }
    }
}
