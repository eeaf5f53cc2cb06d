import Dispatch
import HTTPTypes
import Logging

extension HTTP1Connection {
    /// The deadline that applies in the current state, if any (see ``HTTP1ConnectionState/deadline(_:isHandshaking:writeBlockedSince:)``).
    private func currentDeadline() -> (HTTP1ConnectionState.Deadline, DispatchTime)? {
        var limits = context.configuration.limits
        if let exchange { limits.minRequestBodyRate = exchange.minBodyRate }
        return state.deadline(
            context.configuration.timeouts, isHandshaking: socket.isHandshaking, writeBlockedSince: socket.writeBlockedSince,
            writeBacklog: socket.writeBacklog, limits: limits)
    }

    func updateTimer() {
        if let (_, deadline) = currentDeadline() { timer.arm(deadline) }
    }

    func timerFired() {
        guard let (kind, deadline) = currentDeadline(), timer.isDue(deadline) else { return }
        let metadata: Logger.Metadata = ["peer": "\(socket.peer)"]
        switch kind {
        case .handshake:
            logger.info("TLS handshake not completed in time; closing", metadata: ["peer": "\(socket.peer)", "timeout": "\(context.configuration.timeouts.tlsHandshake)"])
            close()
        case .idle:
            logger.trace("closing idle connection", metadata: metadata)
            close(idle: true)
        case .requestHeader:
            reject(HTTPRejection(.requestTimeout, "request header not received within \(context.configuration.timeouts.requestHeader)"))
        case .requestBody:
            requestBodyTooSlow("request body stalled for \(context.configuration.timeouts.requestBody)")
        case .slowRequestBody:
            requestBodyTooSlow("request body slower than \(exchange?.minBodyRate.map(\.description) ?? "the minimum rate")")
        case .write:
            logger.info("response write stalled; resetting the connection", metadata: metadata)
            exchange?.task?.cancel()
            abort()
        case .slowRead:
            logger.info("client reads the response too slowly; resetting the connection", metadata: ["peer": "\(socket.peer)", "minimum": "\(context.configuration.limits.minResponseRate.map(\.description) ?? "-")"])
            exchange?.task?.cancel()
            abort()
        }
    }

    /// The request body does not come, or comes too slowly: 408, or a close once the response started.
    private func requestBodyTooSlow(_ reason: String) {
        guard let exchange else { return }
        exchange.task?.cancel()
        exchange.body?.finish(error: RequestBodyError.rejected(HTTPRejection(.requestTimeout, reason)))
        if exchange.framing != nil {
            logger.info("\(reason) after the response started; closing", metadata: ["peer": "\(socket.peer)"])
            close()
        } else {
            reject(HTTPRejection(.requestTimeout, reason), exchange: exchange)
        }
    }
}
