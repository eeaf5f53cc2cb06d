import Dispatch
import Logging

extension HTTP2Connection {
    /// What the connection's timer waits for.
    private enum Deadline {
        case writeStall, finalGoAway, idle
    }

    /// The deadline that applies now: a stalled write (``WhiskerServer/Timeouts/write``), else
    /// the final GOAWAY of a shutdown whose PING the client has not acknowledged within a second,
    /// else, with no stream open, the idle timeout. Open streams have none: how long a handler
    /// takes is the application's business, and flow control bounds what a slow client costs.
    private func currentDeadline() -> (kind: Deadline, deadline: DispatchTime)? {
        guard !isClosed else { return nil }
        let timeouts = context.configuration.timeouts
        if let blocked = socket.writeBlockedSince { return (.writeStall, blocked.adding(timeouts.write)) }
        if let noticeSentAt = shutdownNoticeSentAt, !isFinalGoAwaySent { return (.finalGoAway, noticeSentAt.adding(.seconds(1))) }
        if let idleSince, streams.isEmpty { return (.idle, idleSince.adding(timeouts.idle)) }
        return nil
    }

    func updateTimer() {
        if let (_, deadline) = currentDeadline() { timer.arm(deadline) }
    }

    func timerFired() {
        guard let (kind, deadline) = currentDeadline(), timer.isDue(deadline) else { return }
        switch kind {
        case .writeStall:
            logger.info("HTTP/2 write stalled; closing", metadata: ["peer": "\(socket.peer)"])
            socket.close()
        case .finalGoAway:
            sendFinalGoAway()
            updateTimer()
        case .idle:
            logger.trace("closing idle HTTP/2 connection", metadata: ["peer": "\(socket.peer)"])
            session.goAway()
            finishShutdown()
        }
    }
}
