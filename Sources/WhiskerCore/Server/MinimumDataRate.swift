package import Dispatch
import WhiskerSockets

/// The slowest a client may send a request body or read a response before the server gives up
/// on it: past `gracePeriod`, a transfer must average at least `bytesPerSecond`, counted only
/// while the server waits on the client (not while a handler has not read what came, nor while it
/// has nothing to send). A stall timeout alone lets a client that trickles a byte now and then hold
/// a connection forever (slow POST, slow read); this ends it. Kestrel's `MinRequestBodyDataRate`
/// and `MinResponseDataRate` have the same defaults.
///
///     configuration.limits.minRequestBodyRate = MinimumDataRate(bytesPerSecond: 1024, gracePeriod: .seconds(10))
///     configuration.limits.minResponseRate = nil   // no minimum: only the write timeout
public struct MinimumDataRate: Sendable, Hashable, CustomStringConvertible {
    /// The average the transfer must keep past the grace period.
    public var bytesPerSecond: Double
    /// How long a transfer may take before its average counts (a slow start, TCP's own).
    public var gracePeriod: Duration

    /// A minimum rate.
    /// - Parameters:
    ///   - bytesPerSecond: The average to keep, more than 0.
    ///   - gracePeriod: How long before the average counts.
    public init(bytesPerSecond: Double, gracePeriod: Duration = .seconds(5)) {
        self.bytesPerSecond = bytesPerSecond
        self.gracePeriod = gracePeriod
    }

    /// "240 bytes/s after 5 seconds".
    public var description: String { "\(Int(bytesPerSecond)) bytes/s after \(gracePeriod)" }

    /// 240 bytes a second after 5 seconds.
    public static let `default` = MinimumDataRate(bytesPerSecond: 240, gracePeriod: .seconds(5))

    /// The time by which `bytes` should have arrived for a transfer that started at `start`:
    /// past it, the transfer is slower than this rate.
    package func deadline(start: DispatchTime, bytes: Int64) -> DispatchTime {
        let seconds = Double(max(0, bytes)) / max(bytesPerSecond, .leastNonzeroMagnitude)
        return start.adding(gracePeriod).adding(.nanoseconds(Int64(min(seconds * 1e9, 1e17))))
    }
}

/// The time a transfer has spent waiting on its peer, and the bytes it moved meanwhile, without
/// I/O: ``start(now:)`` and ``pause(now:)`` mark when the server is and is not waiting on the
/// peer, ``add(_:)`` counts bytes. ``deadline(_:)`` is when the average falls below a
/// ``MinimumDataRate``. Times are passed in, so that the state machines using it stay arithmetic.
package struct DataRateClock: Sendable {
    /// While running, when the measured time began (moved forward by the pauses); `nil` while paused.
    private var runningSince: DispatchTime?
    /// The time counted before the current pause, in nanoseconds.
    private var counted: UInt64 = 0
    package private(set) var bytes: Int64 = 0

    package init() {}

    /// Whether the server is waiting on the peer now.
    package var isRunning: Bool { runningSince != nil }

    /// The server waits on the peer from `now` (again).
    package mutating func start(now: DispatchTime) {
        guard runningSince == nil else { return }
        runningSince = DispatchTime(uptimeNanoseconds: now.uptimeNanoseconds &- min(counted, now.uptimeNanoseconds))
    }

    /// The server stops waiting on the peer at `now` (the handler has not read what came).
    package mutating func pause(now: DispatchTime) {
        guard let runningSince else { return }
        counted = now.uptimeNanoseconds &- min(runningSince.uptimeNanoseconds, now.uptimeNanoseconds)
        self.runningSince = nil
    }

    /// `count` bytes moved.
    package mutating func add(_ count: Int) { bytes += Int64(count) }

    /// When the transfer falls below `rate`, while it runs; `nil` while paused.
    package func deadline(_ rate: MinimumDataRate) -> DispatchTime? {
        runningSince.map { rate.deadline(start: $0, bytes: bytes) }
    }
}
