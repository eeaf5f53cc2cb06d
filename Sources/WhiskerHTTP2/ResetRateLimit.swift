/// A token bucket for stream resets: `burst` at once, refilled at `perSecond`. The server keeps one
/// for the resets a client sends (rapid reset, CVE-2023-44487; nghttp2 counts those) and one for
/// the resets a client makes the server send by breaking a stream's rules (MadeYouReset,
/// CVE-2025-8671: a WINDOW_UPDATE that overflows the stream's window, say); each reset frees a
/// concurrency slot while work may go on, so either kind past the rate ends the connection.
struct ResetRateLimit {
    private let burst: Double
    private let perSecond: Double
    private var tokens: Double
    private var refilledAt: ContinuousClock.Instant?

    init(burst: UInt64, perSecond: UInt64) {
        self.init(burst: Double(burst), perSecond: Double(perSecond))
    }

    init(burst: Double, perSecond: Double) {
        self.burst = burst
        self.perSecond = perSecond
        tokens = burst
    }

    /// Takes one reset at `now`: false when the bucket is empty (the connection should end).
    mutating func take(now: ContinuousClock.Instant) -> Bool {
        if let refilledAt {
            let elapsed = now - refilledAt
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            tokens = min(burst, tokens + seconds * perSecond)
        }
        refilledAt = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
