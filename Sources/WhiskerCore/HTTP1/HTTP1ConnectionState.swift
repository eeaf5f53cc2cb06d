import Dispatch
import WhiskerSockets

/// What an HTTP/1.1 connection does next, without any I/O: keep-alive, one exchange at a time
/// (pipelined requests wait in the read buffer), `100 Continue`, draining a body nobody reads,
/// graceful shutdown and the deadline that applies. ``HTTP1Connection`` feeds it what happened
/// (bytes arrived, a head was parsed, the response was written, ...) and does what it answers;
/// the unit tests drive it the same way, with no socket.
///
/// Times are passed in (`now`), so that the deadlines are plain arithmetic.
struct HTTP1ConnectionState {
    /// One request and its response, as far as the connection's behaviour depends on them.
    struct Exchange: Equatable {
        let id: UInt64
        /// The request allows the connection to stay open after it (HTTP/1.1 without
        /// `Connection: close`, or HTTP/1.0 with `keep-alive`).
        let requestKeepsAlive: Bool
        /// The client sent `Expect: 100-continue` and waits before sending the body.
        let expectsContinue: Bool
        /// Bytes of a `Content-Length` body not received yet; `nil` for a chunked body not complete.
        var remainingBodyBytes: Int64?
        /// The parser reported the request's end (for a request without a body too, right after its head).
        var isBodyComplete = false
        /// Reading is paused: the handler's body buffer is full.
        var isBodyPaused = false
        var isContinueSent = false
        var isResponseStarted = false
        var isResponseComplete = false
    }

    /// What to do when a response's last byte has been written.
    enum AfterResponse: Equatable {
        /// The response said `Connection: close` (or could not keep the connection): close once flushed.
        case close
        /// As ``close``, on the client's own word (`Connection: close`, HTTP/1.0) after its whole
        /// request: it sends nothing more, so nothing needs the lingering close unless bytes came anyway.
        case closeAsAsked
        /// The request is complete too: ready for the next one.
        case finishExchange
        /// The body is still arriving and nobody reads it: drop it as it comes, then go on.
        case drainBody
    }

    /// What to do when an exchange has finished.
    enum AfterExchange: Equatable {
        /// Parse the next request (already buffered, or when it comes).
        case readNext
        /// A shutdown is under way: close.
        case close
    }

    /// What to do when a graceful shutdown starts.
    enum OnShutdown: Equatable {
        /// Busy: the response under way says `Connection: close`, or the connection closes after it.
        case finishCurrent
        /// Idle: read what may have arrived since the last read event, then ask ``shutdownAfterRead(hasBufferedBytes:)``.
        case readPending
        /// Already closing.
        case nothing
    }

    /// Which deadline the connection's timer waits for.
    enum Deadline: Equatable {
        /// The stream's own setup (a TLS handshake) since the connection was accepted.
        case handshake
        /// A write that makes no progress.
        case write
        /// Body bytes the handler waits for.
        case requestBody
        /// A request body arriving slower than ``WhiskerServer/Limits/minRequestBodyRate``.
        case slowRequestBody
        /// A response read slower than ``WhiskerServer/Limits/minResponseRate``.
        case slowRead
        /// The rest of a request head whose first bytes arrived.
        case requestHeader
        /// The next request on a keep-alive connection.
        case idle
    }

    private(set) var exchange: Exchange?
    /// No more requests: the connection is closing once what is queued is written.
    private(set) var isClosing = false
    private(set) var isShuttingDown = false
    /// How many exchanges have started (the id of the last one).
    private(set) var exchangeCount: UInt64 = 0
    private var lastReadAt: DispatchTime
    private var headStartedAt: DispatchTime?
    private var idleSince: DispatchTime
    /// The current request body's arrival, timed while the connection waits for it.
    private var bodyRate = DataRateClock()

    /// How much of a body nobody will read is read and dropped to keep the connection.
    let drainAllowance: Int64

    /// A connection accepted at `now`.
    init(now: DispatchTime, drainAllowance: Int64 = WhiskerServer.Limits.unreadBodyDrain) {
        self.lastReadAt = now
        self.idleSince = now
        self.drainAllowance = drainAllowance
    }

    // MARK: Reading

    /// Bytes arrived at `now`: between exchanges they start a request head (and its deadline).
    mutating func bytesArrived(now: DispatchTime) {
        lastReadAt = now
        if exchange == nil && headStartedAt == nil { headStartedAt = now }
    }

    /// Whether the next request head may be parsed now: one exchange at a time, so a pipelined
    /// request waits in the buffer until the one before it is answered and read.
    var mayParseHead: Bool { !isClosing && exchange == nil }

    /// Whether body bytes may be parsed now for the current exchange.
    var mayParseBody: Bool {
        guard !isClosing, let exchange else { return false }
        return !exchange.isBodyComplete && !exchange.isBodyPaused
    }

    /// A request head was parsed: its exchange starts; returns its id. Its body, even an absent
    /// one, is complete at ``bodyEnded()``, which the parser reports for every request.
    mutating func headReceived(keepAlive: Bool, expectsContinue: Bool, framing: BodyFraming, now: DispatchTime? = nil) -> UInt64 {
        exchangeCount &+= 1
        let remaining: Int64? = switch framing {
        case .none: 0
        case .length(let length): length
        case .chunked: nil
        }
        exchange = Exchange(
            id: exchangeCount, requestKeepsAlive: keepAlive, expectsContinue: expectsContinue,
            remainingBodyBytes: remaining)
        headStartedAt = nil
        bodyRate = DataRateClock()
        // A request without a body has nothing to time (its end is reported right after the head).
        if framing != .none { updateBodyRate(now: now) }
        return exchangeCount
    }

    /// Whether the connection waits for body bytes from the client now: the body is not complete,
    /// the handler's buffer has room, and the client is not waiting for `100 Continue`.
    private var isWaitingForBody: Bool {
        guard !isClosing, let exchange else { return false }
        return !exchange.isBodyComplete && !exchange.isBodyPaused && !(exchange.expectsContinue && !exchange.isContinueSent)
    }

    /// Times the body's arrival only while the connection waits for it. The clock is read
    /// (`now`, else the time now) only when that changes, not for every request or read.
    private mutating func updateBodyRate(now: DispatchTime?) {
        let isWaiting = isWaitingForBody
        guard isWaiting != bodyRate.isRunning else { return }
        if isWaiting { bodyRate.start(now: now ?? .now()) } else { bodyRate.pause(now: now ?? .now()) }
    }

    /// `count` body bytes were parsed; `accepted` false when the handler's buffer is full (reading pauses).
    mutating func bodyReceived(_ count: Int, accepted: Bool, now: DispatchTime? = nil) {
        guard var current = exchange else { return }
        if let remaining = current.remainingBodyBytes, current.isBodyComplete == false {
            current.remainingBodyBytes = remaining - Int64(count)
        }
        if !accepted { current.isBodyPaused = true }
        exchange = current
        bodyRate.add(count)
        updateBodyRate(now: now)
    }

    /// The request body ended; true when the response is already written, so the exchange is over.
    mutating func bodyEnded() -> Bool {
        guard var current = exchange else { return false }
        current.isBodyComplete = true
        current.remainingBodyBytes = 0
        exchange = current
        return current.isResponseComplete
    }

    /// The handler of exchange `id` asked for body bytes at `now`: returns whether to send
    /// `100 Continue` now (the client waits for it, and nothing has answered it otherwise).
    /// Reading resumes if it had paused.
    mutating func bodyDemanded(id: UInt64, now: DispatchTime) -> Bool {
        guard !isClosing, var current = exchange, current.id == id else { return false }
        var sendContinue = false
        if current.expectsContinue && !current.isContinueSent && !current.isResponseStarted && !current.isBodyComplete {
            current.isContinueSent = true
            sendContinue = true
        }
        if current.isBodyPaused {
            current.isBodyPaused = false
            lastReadAt = now
        }
        exchange = current
        updateBodyRate(now: now)
        return sendContinue
    }

    /// Whether to keep the socket readable, with `buffered` bytes unparsed: not while the body
    /// buffer is full, and after the request is read only so far ahead (pipelined requests within
    /// `limit`), enough to notice a client that goes away.
    func wantsBytes(buffered: Int, limit: Int) -> Bool {
        guard let exchange else { return true }
        if exchange.isBodyPaused { return false }
        if exchange.isBodyComplete { return buffered < limit }
        return true
    }

    // MARK: Responses

    /// The current exchange's id if `id` is still the current exchange (a late callback from a
    /// finished handler must not touch the next request).
    func isCurrent(_ id: UInt64) -> Bool {
        !isClosing && exchange?.id == id
    }

    /// The response of exchange `id` starts: returns whether the connection can stay open after
    /// it. Not when the request or a shutdown says close; nor when the client still waits for
    /// `100 Continue` (it may or may not send the body: only closing is safe); nor when more body
    /// than the drain allowance is still to come.
    mutating func responseStarting(id: UInt64) -> Bool {
        guard var current = exchange, current.id == id else { return false }
        current.isResponseStarted = true
        exchange = current
        guard current.requestKeepsAlive, !isShuttingDown else { return false }
        if current.isBodyComplete { return true }
        if current.expectsContinue && !current.isContinueSent { return false }
        guard let remaining = current.remainingBodyBytes else { return false }
        return remaining <= drainAllowance
    }

    /// The last byte of exchange `id`'s response reached the socket; `keptAlive` is what
    /// ``responseStarting(id:)`` answered.
    mutating func responseWritten(id: UInt64, keptAlive: Bool, now: DispatchTime? = nil) -> AfterResponse? {
        guard !isClosing, var current = exchange, current.id == id else { return nil }
        current.isResponseComplete = true
        // Nobody will read the rest of this body: it is dropped as it arrives, never paused.
        if !current.isBodyComplete { current.isBodyPaused = false }
        exchange = current
        updateBodyRate(now: now)
        if !keptAlive {
            isClosing = true
            let isRequestWhole = current.isBodyComplete || current.remainingBodyBytes == 0
            return !current.requestKeepsAlive && isRequestWhole ? .closeAsAsked : .close
        }
        return current.isBodyComplete ? .finishExchange : .drainBody
    }

    /// The exchange is over (response written, request read) at `now`, with `hasBufferedBytes`
    /// of a next request already read.
    mutating func exchangeFinished(now: DispatchTime, hasBufferedBytes: Bool) -> AfterExchange {
        exchange = nil
        idleSince = now
        if hasBufferedBytes { headStartedAt = now }
        if isShuttingDown {
            isClosing = true
            return .close
        }
        return .readNext
    }

    // MARK: Closing

    /// The connection closes (a rejection, an error, the peer, a handover): nothing more happens.
    mutating func closing() {
        isClosing = true
    }

    /// A graceful shutdown starts.
    mutating func shutdownRequested() -> OnShutdown {
        isShuttingDown = true
        if isClosing { return .nothing }
        return exchange == nil ? .readPending : .finishCurrent
    }

    /// After ``OnShutdown/readPending``: true when nothing arrived, so the connection closes now.
    mutating func shutdownAfterRead(hasBufferedBytes: Bool) -> Bool {
        guard !isClosing, exchange == nil, !hasBufferedBytes else { return false }
        isClosing = true
        return true
    }

    // MARK: Deadlines

    /// The deadline that applies now, if any. A running handler has none (how long it takes is
    /// the application's business), nor does a client asked to wait for `100 Continue`.
    /// - Parameters:
    ///   - isHandshaking: The stream is still setting itself up (TLS): the handshake deadline
    ///     from the accept.
    ///   - writeBlockedSince: Since when queued bytes wait for the peer, if they do.
    ///   - writeBacklog: How fast the peer has taken bytes since they began to wait.
    ///   - limits: The minimum rates of a request body and of reading a response.
    func deadline(
        _ timeouts: WhiskerServer.Timeouts, isHandshaking: Bool, writeBlockedSince: DispatchTime?,
        writeBacklog: WriteBacklog? = nil, limits: WhiskerServer.Limits? = nil
    ) -> (Deadline, DispatchTime)? {
        guard !isClosing else { return nil }
        // No exchange or idle period has started during a handshake: idleSince is the accept.
        if isHandshaking { return (.handshake, idleSince.adding(timeouts.tlsHandshake)) }
        if let writeBlockedSince {
            let stall = (Deadline.write, writeBlockedSince.adding(timeouts.write))
            guard let rate = limits?.minResponseRate, let writeBacklog else { return stall }
            return Self.earlier(stall, (.slowRead, rate.deadline(start: writeBacklog.since, bytes: Int64(writeBacklog.bytesSent))))
        }
        if exchange != nil {
            guard isWaitingForBody else { return nil }
            let stall = (Deadline.requestBody, lastReadAt.adding(timeouts.requestBody))
            guard let rate = limits?.minRequestBodyRate, let slow = bodyRate.deadline(rate) else { return stall }
            return Self.earlier(stall, (.slowRequestBody, slow))
        }
        if let headStartedAt { return (.requestHeader, headStartedAt.adding(timeouts.requestHeader)) }
        return (.idle, idleSince.adding(timeouts.idle))
    }

    /// Of two deadlines, the one that comes first (the first given on a tie).
    static func earlier(_ first: (Deadline, DispatchTime), _ second: (Deadline, DispatchTime)) -> (Deadline, DispatchTime) {
        second.1 < first.1 ? second : first
    }
}
