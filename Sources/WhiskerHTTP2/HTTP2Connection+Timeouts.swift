import WhiskerCore
import WhiskerSockets
import Dispatch
import HTTPTypes
import Logging

extension HTTP2Connection {
    /// The deadline that applies now (see ``HTTP2ConnectionState/deadline(_:writeBlockedSince:hasStreams:)``).
    private func currentDeadline() -> (kind: HTTP2ConnectionState.Deadline, deadline: DispatchTime)? {
        state.deadline(
            context.configuration.timeouts, writeBlockedSince: socket.writeBlockedSince, hasStreams: !streams.isEmpty,
            writeBacklog: socket.writeBacklog, minResponseRate: context.configuration.limits.minResponseRate)
    }

    /// How often open streams are looked at, at the least: each stream's own deadline is exact,
    /// but a stream that starts waiting is noticed at the next check.
    var streamCheckInterval: Duration {
        let timeouts = context.configuration.timeouts
        let interval = min(timeouts.requestBody, timeouts.write)
        // A body's minimum rate first counts at the end of its grace period.
        guard let grace = context.configuration.limits.minRequestBodyRate?.gracePeriod else { return interval }
        return min(interval, grace)
    }

    func updateTimer() {
        if let (_, deadline) = currentDeadline() { timer.arm(deadline) }
    }

    func timerFired() {
        guard let (kind, deadline) = currentDeadline(), timer.isDue(deadline) else { return }
        switch kind {
        case .writeStall:
            logger.info("HTTP/2 write stalled; resetting the connection", metadata: ["peer": "\(socket.peer)"])
            socket.abort()
        case .slowRead:
            logger.info("HTTP/2 client reads too slowly; resetting the connection", metadata: ["peer": "\(socket.peer)", "minimum": "\(context.configuration.limits.minResponseRate.map(\.description) ?? "-")"])
            socket.abort()
        case .preface:
            logger.info("no HTTP/2 preface after Upgrade: h2c; closing", metadata: ["peer": "\(socket.peer)"])
            socket.close()
        case .finalGoAway:
            sendFinalGoAway()
            updateTimer()
        case .idle:
            // Responses the client has not taken yet are in the kernel: see IdleDrainCheck.
            switch state.idleDeadlinePassed(unsent: socket.unsentByteCount, now: .now(), minResponseRate: context.configuration.limits.minResponseRate) {
            case .close:
                logger.trace("closing idle HTTP/2 connection", metadata: ["peer": "\(socket.peer)"])
                session.goAway()
                finishShutdown()
            case .keepWaiting:
                updateTimer()
            case .reset:
                logger.info("idle HTTP/2 connection's client stopped reading its responses; resetting", metadata: ["peer": "\(socket.peer)"])
                socket.abort()
            }
        case .streams:
            checkStreams()
            updateTimer()
        }
    }

    /// Ends the streams that wait on a client that does not move, and schedules the next check.
    /// A running handler has no deadline (how long it takes is the application's business), but
    /// a stream does when it waits for request-body bytes the handler has asked for
    /// (``WhiskerServer/Timeouts/requestBody``), or for the client to open its flow-control
    /// window to response bytes (``WhiskerServer/Timeouts/write``): a client that sends HEADERS
    /// and nothing more, or a window of zero, would otherwise hold the stream, its handler and
    /// the connection forever.
    private func checkStreams() {
        let now = DispatchTime.now()
        let configuration = context.configuration
        var next = now.adding(streamCheckInterval)
        for (id, stream) in streams {
            let (expired, due) = stream.state.check(
                now: now, timeouts: configuration.timeouts, minBodyRate: stream.minBodyRate,
                framedBodyBytes: session.framedBodyBytes(waitingOn: id))
            if let due { next = min(next, due) }
            switch expired {
            case nil:
                break
            case .bodyStalled:
                reject(HTTPRejection(.requestTimeout, "request body stalled for \(configuration.timeouts.requestBody)"), id: id, stream: stream)
            case .bodyTooSlow:
                reject(HTTPRejection(.requestTimeout, "request body slower than \(stream.minBodyRate.map(\.description) ?? "the minimum rate")"), id: id, stream: stream)
            case .drainStalled:
                stopRequest(id, stream)
            case .windowClosed:
                logger.info("HTTP/2 stream's flow-control window stayed closed; resetting it", metadata: ["peer": "\(socket.peer)", "stream": "\(id)"])
                stream.task?.cancel()
                resetStream(id, stream, errorCode: 0x8)  // CANCEL
            }
        }
        state.streamCheckAt = streams.isEmpty ? nil : next
        flush()
    }
}
