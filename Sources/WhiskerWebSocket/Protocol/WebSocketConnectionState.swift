import WhiskerSockets

/// One WebSocket connection's protocol, with no I/O: it reads frames (``WebSocketFrameReader``),
/// answers pings, bounds the rate of control frames, and runs the close handshake (RFC 6455 7.1):
///
/// - the peer closes first: we echo its code in our close frame, then close the TCP connection;
/// - we close first (the handler, a failure, the server's shutdown): we send our close frame and
///   wait for the peer's (up to ``WebSocketLimits/closeTimeout``), then close the TCP connection;
///   data frames that arrive meanwhile are dropped;
/// - the peer breaks a rule: we send a close frame with the rule's code and close the TCP
///   connection without waiting (RFC 6455 7.1.7, "fail the WebSocket connection").
///
/// The connection feeds it bytes and the clock, and does what it answers; the tests drive it from
/// byte strings the same way.
struct WebSocketConnectionState {
    /// What the connection does next.
    enum Action: Equatable {
        /// Hand this message to the handler.
        case deliver(WebSocketMessage)
        /// Send this frame (a pong).
        case send([UInt8])
        /// Send this close frame; then, if `closeStream`, close the TCP connection once it is
        /// written, else wait for the peer's close frame.
        case sendClose([UInt8], closeStream: Bool, code: WebSocketCloseCode?, reason: String)
        /// The peer broke a rule: send this close frame with the rule's code, then close the TCP
        /// connection once it is written (RFC 6455 7.1.7). `reason` says which rule, for the log.
        case fail([UInt8], code: WebSocketCloseCode, reason: String)
        /// The close handshake is complete (or cannot complete): close the TCP connection.
        case closeStream
    }

    /// Where the close handshake is.
    enum CloseState: Equatable {
        case open
        /// We sent our close frame and wait for the peer's.
        case closeSent
        /// Both close frames went (or a failure): the TCP connection closes.
        case closed
    }

    private var reader: WebSocketFrameReader
    private(set) var closeState = CloseState.open
    /// The close the peer sent, or the failure, once there is one: what the handler is told.
    private(set) var closeReason: (code: WebSocketCloseCode?, reason: String)?
    private let burst: Double
    private let perNanosecond: Double
    private var tokens: Double
    private var lastRefill: UInt64?

    /// A connection just upgraded, with permessage-deflate's `inflater` if it was negotiated.
    init(limits: WebSocketLimits, inflater: (any WebSocketInflater)? = nil) {
        reader = WebSocketFrameReader(limits: limits, inflater: inflater)
        burst = Double(max(limits.controlFrameBurst, 1))
        perNanosecond = Double(max(limits.controlFramesPerSecond, 0)) / 1e9
        tokens = burst
    }

    /// Whether data may still be sent (no close frame has gone out).
    var canSend: Bool { closeState == .open }

    /// The next action that the bytes in `buffer` call for, or `nil` when more are needed (or
    /// the connection is closing and reads nothing more).
    /// - Parameter now: The time in nanoseconds (any monotonic origin), for the control-frame rate.
    mutating func nextAction(from buffer: inout ReadBuffer, now: UInt64) -> Action? {
        guard closeState != .closed else { return nil }
        while let event = reader.next(from: &buffer) {
            switch event {
            case .message(let message):
                // After our close frame the handler takes nothing more: drop data until theirs.
                if closeState == .open { return .deliver(message) }
            case .ping(let payload):
                guard allowControlFrame(now: now) else { return fail(.policyViolation, "more pings and pongs than the rate allows") }
                if closeState == .open { return .send(WebSocketFrame.encode(.pong, payload: payload)) }
            case .pong:
                guard allowControlFrame(now: now) else { return fail(.policyViolation, "more pings and pongs than the rate allows") }
            case .close(let code, let reason):
                if closeState == .closeSent {
                    closeState = .closed
                    return .closeStream
                }
                closeState = .closed
                closeReason = (code, reason)
                // Echo the code (RFC 6455 5.5.1); an empty close is answered with an empty one.
                return .sendClose(WebSocketFrame.close(code), closeStream: true, code: code, reason: reason)
            case .failure(let code, let reason):
                return fail(code, reason)
            }
        }
        return nil
    }

    /// We close (the handler, the server's shutdown, the idle timeout): the close frame to send,
    /// or `nil` when a close is already under way.
    mutating func close(_ code: WebSocketCloseCode, reason: String = "") -> Action? {
        guard closeState == .open else { return nil }
        closeState = .closeSent
        closeReason = closeReason ?? (code, reason)
        return .sendClose(WebSocketFrame.close(code, reason: reason), closeStream: false, code: code, reason: reason)
    }

    /// The peer did not answer our close frame in time (or the stream ended): close.
    mutating func closeTimedOut() -> Action? {
        guard closeState != .closed else { return nil }
        closeState = .closed
        return .closeStream
    }

    private mutating func fail(_ code: WebSocketCloseCode, _ reason: String) -> Action {
        let wasOpen = closeState == .open
        closeState = .closed
        closeReason = closeReason ?? (code, reason)
        // After our own close frame no second one may follow: only the TCP close.
        guard wasOpen else { return .closeStream }
        return .fail(WebSocketFrame.close(code, reason: reason), code: code, reason: reason)
    }

    /// A token bucket: `burst` control frames at once, `controlFramesPerSecond` in the long run.
    private mutating func allowControlFrame(now: UInt64) -> Bool {
        if let last = lastRefill, now > last {
            tokens = min(burst, tokens + Double(now - last) * perNanosecond)
        }
        lastRefill = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
