package import Dispatch
import HTTPTypes
import Logging

extension HTTP1Connection {
    /// The deadline that applies in the current state, if any (see ``HTTP1ConnectionState/deadline(_:isHandshaking:writeBlockedSince:)``).
    private func currentDeadline() -> (HTTP1ConnectionState.Deadline, DispatchTime)? {
        state.deadline(context.configuration.timeouts, isHandshaking: socket.isHandshaking, writeBlockedSince: socket.writeBlockedSince)
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
            close()
        case .requestHeader:
            reject(HTTPRejection(.requestTimeout, "request header not received within \(context.configuration.timeouts.requestHeader)"))
        case .requestBody:
            guard let exchange else { return }
            exchange.task?.cancel()
            exchange.body?.finish(error: RequestBodyError.rejected(HTTPRejection(.requestTimeout, "request body stalled")))
            if exchange.framing != nil {
                logger.info("request body stalled after the response started; closing", metadata: metadata)
                close()
            } else {
                reject(HTTPRejection(.requestTimeout, "request body stalled for \(context.configuration.timeouts.requestBody)"))
            }
        case .write:
            logger.info("response write stalled; closing", metadata: metadata)
            exchange?.task?.cancel()
            close()
        }
    }
}

extension DispatchTime {
    /// This time plus a Swift `Duration`.
    package func adding(_ duration: Duration) -> DispatchTime {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let total = nanoseconds.overflow ? Int64.max : nanoseconds.partialValue + attoseconds / 1_000_000_000
        return self + DispatchTimeInterval.nanoseconds(Int(clamping: total))
    }
}
