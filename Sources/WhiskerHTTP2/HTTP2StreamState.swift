package import Dispatch
import WhiskerSockets
package import WhiskerCore

/// One HTTP/2 stream's lifecycle, without any I/O: whether its request body is read, drained or
/// complete, whether its response has started or finished, how much flow-control window the
/// handler's unread bytes hold, and which of its deadlines is due. ``HTTP2Connection`` feeds it what
/// happened (DATA arrived, the handler read bytes, the response started, the stream closed, ...)
/// and does what it answers; the unit tests drive it the same way, with no session or socket, as
/// `HTTP1ConnectionState` is driven for HTTP/1.1.
///
/// Times are passed in (`now`), so that the deadlines are plain arithmetic.
package struct HTTP2StreamState {
    /// Where the request body stands.
    package enum Request: Equatable {
        /// Body bytes may still come; `read` when a handler reads them (it has the body channel).
        case receiving(read: Bool)
        /// The response is complete and the body is not: what still comes is dropped, up to
        /// ``WhiskerServer/Limits/unreadBodyDrain`` or until it stalls.
        case draining
        /// The client was asked to stop sending (RST_STREAM NO_ERROR after the response); what
        /// still comes is dropped.
        case stopRequested
        /// The client ended the stream (END_STREAM), or the request had no body.
        case complete
    }

    /// Where the response stands.
    package enum Response: Equatable {
        case notStarted
        /// Its head went to nghttp2; a streamed body follows.
        case started
        /// Its last frame is queued, or the stream was reset: nothing more of it goes out.
        case complete
    }

    package private(set) var request: Request
    package private(set) var response: Response = .notStarted
    /// The stream is gone (closed, or reset by either side).
    package private(set) var isEnded = false
    /// Request body bytes received while a handler reads them, against the body limit.
    package private(set) var receivedBytes: Int64 = 0
    /// Bytes received and not yet read by the handler: the window they hold goes back to the
    /// client as they are read, or all at once when the stream ends or stops being read.
    package private(set) var unreadBytes = 0
    /// Bytes dropped since the response completed with the request still open.
    package private(set) var drainedBytes: Int64 = 0
    /// The last time body bytes arrived or the handler read some.
    package private(set) var bodyActivityAt: DispatchTime
    /// The body's arrival, timed while the handler has read all that came.
    package private(set) var bodyRate = DataRateClock()
    /// The last time response bytes were queued or nghttp2 framed some, and the framed count then.
    package private(set) var sendProgressAt: DispatchTime
    private var framedSeen = 0

    /// A stream whose request head arrived at `now`; `requestComplete` when it had END_STREAM.
    package init(requestComplete: Bool, now: DispatchTime) {
        request = requestComplete ? .complete : .receiving(read: false)
        bodyActivityAt = now
        sendProgressAt = now
        if !requestComplete { bodyRate.start(now: now) }
    }

    package var isRequestComplete: Bool { request == .complete }
    package var isResponseStarted: Bool { response != .notStarted }
    package var isResponseComplete: Bool { response == .complete }
    /// A handler reads the body.
    package var isBodyRead: Bool { request == .receiving(read: true) }

    // MARK: The request body

    /// A handler was given the body to read.
    package mutating func readerAttached() {
        if request == .receiving(read: false) { request = .receiving(read: true) }
    }

    /// What to do with DATA bytes that arrived.
    package enum DataAction: Equatable {
        /// Hand them to the handler (they hold their window until it reads them).
        case deliver
        /// Give their window back at once and drop them: nobody reads them.
        case drop
        /// As ``drop``, and ask the client to stop sending (the drain allowance is spent).
        case dropAndStop
        /// They take the body past `limit`: give their window back and refuse the request (413).
        case reject(HTTPRejection)
    }

    /// `count` DATA bytes arrived at `now`; `limits` gives the body limit (the connection's, the
    /// largest any route accepts; a route's own is applied as the handler reads).
    package mutating func dataReceived(_ count: Int, now: DispatchTime, limits: WhiskerServer.Limits) -> DataAction {
        switch request {
        case .receiving(read: true):
            receivedBytes += Int64(count)
            bodyActivityAt = now
            if let rejection = limits.bodyRejection(size: receivedBytes, declared: false) { return .reject(rejection) }
            unreadBytes += count
            bodyRate.add(count)
            bodyRate.pause(now: now)
            return .deliver
        case .draining:
            drainedBytes += Int64(count)
            bodyActivityAt = now
            guard drainedBytes > WhiskerServer.Limits.unreadBodyDrain else { return .drop }
            request = .stopRequested
            return .dropAndStop
        case .receiving(read: false), .stopRequested, .complete:
            return .drop
        }
    }

    /// The client ended the stream; `true` when a handler reads the body (it ends there).
    package mutating func endStreamReceived() -> Bool {
        defer { request = .complete }
        return isBodyRead
    }

    /// The handler read `count` bytes at `now` (their window goes back to the client).
    package mutating func handlerRead(_ count: Int, now: DispatchTime) {
        unreadBytes -= count
        bodyActivityAt = now
        if unreadBytes == 0 { bodyRate.start(now: now) }
    }

    /// The client is asked to stop sending; `false` if it was asked already or has finished.
    package mutating func stopRequested() -> Bool {
        switch request {
        case .receiving, .draining:
            request = .stopRequested
            return true
        case .stopRequested, .complete:
            return false
        }
    }

    /// What to do with a request that is refused (its body too large or too slow, a bad head).
    package enum RejectAction: Equatable {
        /// Answer with the rejection's status; then, if `stopRequest`, ask the client to stop
        /// sending the rest.
        case answer
        /// The response has started: only a reset (CANCEL) can end it.
        case reset
    }

    /// The request is refused: the handler no longer reads its body.
    package mutating func rejected() -> RejectAction {
        if request == .receiving(read: true) { request = .receiving(read: false) }
        return isResponseStarted ? .reset : .answer
    }

    // MARK: The response

    /// A response may start (nothing of one has gone out).
    package var mayStartResponse: Bool { response == .notStarted }

    /// The response's head went to nghttp2 at `now`.
    package mutating func responseStarted(now: DispatchTime) {
        if response == .notStarted { response = .started }
        sendProgressAt = now
    }

    /// Response body bytes were queued at `now`.
    package mutating func responseBytesQueued(now: DispatchTime) { sendProgressAt = now }

    /// The response's last frame is queued at `now`. Returns the window the handler's unread
    /// body bytes held, to give back to the client: with the request still open, nobody will read
    /// the rest of its body, which is drained from now on (its unread bytes count as drained).
    package mutating func responseCompleted(now: DispatchTime) -> Int {
        response = .complete
        guard case .receiving = request else { return 0 }
        request = .draining
        let unread = unreadBytes
        drainedBytes = Int64(unread)
        unreadBytes = 0
        bodyActivityAt = now
        return unread
    }

    /// The server reset the stream (or could not respond): nothing more of its response goes out.
    package mutating func reset() { response = .complete }

    /// The stream closed (or was reset by the client). Returns the window the handler's unread
    /// bytes held, and whether the handler must be cancelled (its response is not complete).
    package mutating func ended() -> (unread: Int, cancelHandler: Bool) {
        isEnded = true
        if request == .receiving(read: true) { request = .receiving(read: false) }
        defer { unreadBytes = 0 }
        return (unreadBytes, !isResponseComplete)
    }

    // MARK: Deadlines

    /// A deadline of the stream that passed.
    package enum Expiry: Equatable {
        /// The handler waits for body bytes that do not come (``WhiskerServer/Timeouts/requestBody``): 408.
        case bodyStalled
        /// The body comes slower than ``WhiskerServer/Limits/minRequestBodyRate``: 408.
        case bodyTooSlow
        /// A body drained after an early response stopped coming: ask the client to stop.
        case drainStalled
        /// The client's flow-control window stayed closed to the response for
        /// ``WhiskerServer/Timeouts/write``: reset the stream.
        case windowClosed
    }

    /// The first of the stream's deadlines that passed by `now`, else the earliest still ahead
    /// (`nil`: none applies). A running handler has none (how long it takes is the application's
    /// business); a stream has one while it waits for request-body bytes its handler asked for,
    /// drains a body, or waits for the client to open its window to `framedBodyBytes` (nghttp2's
    /// count of the stream's framed body bytes, `nil` when it has none waiting).
    package mutating func check(now: DispatchTime, timeouts: WhiskerServer.Timeouts, minBodyRate: MinimumDataRate?, framedBodyBytes: Int?) -> (expired: Expiry?, next: DispatchTime?) {
        var next: DispatchTime?
        func consider(_ deadline: DispatchTime) { next = min(next ?? deadline, deadline) }
        switch request {
        case .receiving(read: true) where unreadBytes == 0:
            let stalled = bodyActivityAt.adding(timeouts.requestBody)
            if stalled <= now { return (.bodyStalled, nil) }
            consider(stalled)
            // Not while the response streams: the handler reads at its own pace (bidirectional).
            if let minBodyRate, response != .started, let slow = bodyRate.deadline(minBodyRate) {
                if slow <= now { return (.bodyTooSlow, nil) }
                consider(slow)
            }
        case .draining:
            let stalled = bodyActivityAt.adding(timeouts.requestBody)
            if stalled <= now { return (.drainStalled, nil) }
            consider(stalled)
        default:
            break
        }
        if let framedBodyBytes {
            if framedBodyBytes != framedSeen {
                framedSeen = framedBodyBytes
                sendProgressAt = now
            }
            let stalled = sendProgressAt.adding(timeouts.write)
            if stalled <= now { return (.windowClosed, nil) }
            consider(stalled)
        }
        return (nil, next)
    }
}
