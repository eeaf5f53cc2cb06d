import Dispatch
import Logging

extension HTTP2Connection {
    /// The deadline that applies now: a stalled write (``WhiskerServer/Timeouts/write``), else,
    /// with no stream open, the idle timeout. Open streams have none: how long a handler takes is
    /// the application's business, and flow control bounds what a slow client costs.
    private func currentDeadline() -> (isWriteStall: Bool, deadline: DispatchTime)? {
        guard !isClosed else { return nil }
        let timeouts = context.configuration.timeouts
        if let blocked = socket.writeBlockedSince { return (true, blocked.adding(timeouts.write)) }
        if let idleSince, streams.isEmpty { return (false, idleSince.adding(timeouts.idle)) }
        return nil
    }

    func updateTimer() {
        if let (_, deadline) = currentDeadline() { timer.arm(deadline) }
    }

    func timerFired() {
        guard let (isWriteStall, deadline) = currentDeadline() else { return }
        guard DispatchTime.now() >= deadline else {
            timer.arm(deadline)
            return
        }
        if isWriteStall {
            logger.info("HTTP/2 write stalled; closing", metadata: ["peer": "\(socket.peer)"])
            socket.close()
        } else {
            logger.trace("closing idle HTTP/2 connection", metadata: ["peer": "\(socket.peer)"])
            session.goAway()
            finishShutdown()
        }
    }
}
