package import Dispatch
import HTTPTypes
import Logging

extension HTTP1Connection {
    enum TimeoutKind {
        case handshake, idle, requestHeader, requestBody, write
    }

    /// The deadline that applies in the current state, if any. A running handler has none:
    /// how long it takes is the application's business.
    private func currentDeadline() -> (TimeoutKind, DispatchTime)? {
        guard !isClosing else { return nil }
        let timeouts = context.configuration.timeouts
        if socket.isHandshaking {
            // No exchange or idle period has started yet: idleSince is when the socket was accepted.
            return (.handshake, idleSince.adding(timeouts.tlsHandshake))
        }
        if let blocked = socket.writeBlockedSince {
            return (.write, blocked.adding(timeouts.write))
        }
        if let exchange {
            guard !exchange.isBodyComplete, !exchange.isBodyPaused else { return nil }
            if exchange.head.expectsContinue && !exchange.isContinueSent { return nil }
            return (.requestBody, lastReadAt.adding(timeouts.requestBody))
        }
        if let headStartedAt {
            return (.requestHeader, headStartedAt.adding(timeouts.requestHeader))
        }
        return (.idle, idleSince.adding(timeouts.idle))
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
            if exchange.isResponseStarted {
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
