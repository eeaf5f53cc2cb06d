import Dispatch
import WhiskerCore
import WhiskerSockets

/// What an HTTP/2 connection does next at the connection level, without I/O: the graceful
/// shutdown's two GOAWAYs (RFC 9113 §6.8), holding output until an upgraded client's preface,
/// and which deadline applies. ``HTTP2Connection`` reports what happened and does what it is
/// told; the unit tests drive it alone. Streams' own deadlines are the connection's stream check.
struct HTTP2ConnectionState {
    /// Which deadline the connection's timer waits for.
    enum Deadline: Equatable {
        /// A socket write that makes no progress.
        case writeStall
        /// A client that reads slower than ``WhiskerServer/Limits/minResponseRate``.
        case slowRead
        /// After `Upgrade: h2c`, the client's preface.
        case preface
        /// The final GOAWAY, for a client that does not acknowledge the shutdown notice's PING.
        case finalGoAway
        /// No stream open for the idle timeout.
        case idle
        /// The next look at the open streams.
        case streams
    }

    /// How long a client has to acknowledge the shutdown notice's PING before the final GOAWAY.
    static let finalGoAwayDelay: Duration = .seconds(1)

    private(set) var isClosed = false
    /// When the shutdown notice went out; `nil` while not shutting down.
    private(set) var shutdownNoticeSentAt: DispatchTime?
    private(set) var isFinalGoAwaySent = false
    /// After `Upgrade: h2c`, frames wait for the client's preface; since when.
    private(set) var outputHeldSince: DispatchTime?
    /// Since when no stream has been open.
    private(set) var idleSince: DispatchTime?
    /// What the client left untaken at the idle deadlines of this idle period.
    private var idleDrain = IdleDrainCheck()
    /// When the open streams are next checked; `nil` while none is open.
    var streamCheckAt: DispatchTime?

    /// A connection that starts serving at `now`.
    init(now: DispatchTime) {
        idleSince = now
    }

    /// After `Upgrade: h2c`: hold output until the client's first bytes (its preface).
    mutating func holdOutput(now: DispatchTime) { outputHeldSince = now }

    /// Bytes arrived from the client: output flows.
    mutating func bytesArrived() { outputHeldSince = nil }

    /// Whether frames may be written now.
    var mayWrite: Bool { !isClosed && outputHeldSince == nil }

    /// A stream opened at `now`: the connection is busy, and open streams are checked every `checkInterval`.
    mutating func streamOpened(now: DispatchTime, checkInterval: Duration) {
        idleSince = nil
        if streamCheckAt == nil { streamCheckAt = now.adding(checkInterval) }
    }

    /// The last open stream closed at `now`: returns true when the shutdown is complete (the
    /// final GOAWAY went out), so the connection closes.
    mutating func lastStreamClosed(now: DispatchTime) -> Bool {
        idleSince = now
        idleDrain = IdleDrainCheck()
        streamCheckAt = nil
        return isFinalGoAwaySent
    }

    /// A graceful shutdown starts at `now`: true to send the notice (once; not on a closed connection).
    mutating func shutdownRequested(now: DispatchTime) -> Bool {
        guard shutdownNoticeSentAt == nil, !isClosed else { return false }
        shutdownNoticeSentAt = now
        return true
    }

    /// The client acknowledged the notice's PING, or it was given a second: true to send the
    /// final GOAWAY now (once).
    mutating func finalGoAwayDue() -> Bool {
        guard !isFinalGoAwaySent, !isClosed else { return false }
        isFinalGoAwaySent = true
        return true
    }

    /// The idle deadline passed at `now` with `unsent` bytes the client has not taken (see
    /// `IdleDrainCheck`): on `keepWaiting` another idle period starts.
    mutating func idleDeadlinePassed(unsent: Int, now: DispatchTime, minResponseRate: MinimumDataRate?) -> IdleDrainCheck.Verdict {
        let verdict = idleDrain.check(unsent: unsent, now: now, minimumBytesPerSecond: minResponseRate?.bytesPerSecond)
        if verdict == .keepWaiting { idleSince = now }
        return verdict
    }

    /// The stream closed: nothing more is written, no deadline applies.
    mutating func closed() { isClosed = true }

    /// The deadline that applies now: a stalled write; an upgraded client's preface; the final
    /// GOAWAY of a shutdown whose PING is not acknowledged; with no stream open, the idle
    /// timeout; else the next check of the open streams.
    func deadline(
        _ timeouts: WhiskerServer.Timeouts, writeBlockedSince: DispatchTime?, hasStreams: Bool,
        writeBacklog: WriteBacklog? = nil, minResponseRate: MinimumDataRate? = nil
    ) -> (Deadline, DispatchTime)? {
        guard !isClosed else { return nil }
        if let writeBlockedSince {
            let stall = writeBlockedSince.adding(timeouts.write)
            if let minResponseRate, let writeBacklog {
                let slow = minResponseRate.deadline(start: writeBacklog.since, bytes: Int64(writeBacklog.bytesSent))
                if slow < stall { return (.slowRead, slow) }
            }
            return (.writeStall, stall)
        }
        if let outputHeldSince { return (.preface, outputHeldSince.adding(timeouts.requestHeader)) }
        if let shutdownNoticeSentAt, !isFinalGoAwaySent { return (.finalGoAway, shutdownNoticeSentAt.adding(Self.finalGoAwayDelay)) }
        if !hasStreams {
            return idleSince.map { (.idle, $0.adding(timeouts.idle)) }
        }
        return streamCheckAt.map { (.streams, $0) }
    }
}
