/// When an epoll worker's thread polls for a while before it sleeps in `epoll_wait`.
///
/// A thread that sleeps after every request pays for it at the next one: the wake-up (on a
/// virtual machine, an idle virtual CPU woken by an interrupt) and caches gone cold while the core
/// idled. With one connection (`wrk -c1`) that was about 55 µs of server CPU a request where the
/// same request costs 20 µs among 64 connections. So after a batch the thread keeps polling
/// (`epoll_wait` with no timeout) for up to ``budget`` when the next event is likely to come that
/// soon, and sleeps at once when it is not:
///
/// - it spins only if the last gap (from the end of a batch to the next event) was shorter than
///   the budget, so a request stream that keeps the worker busy is served without sleeping;
/// - a spin that found nothing turns spinning off until a sleep again ends within the budget, so a
///   server with sporadic traffic pays at most one budget when a burst ends, and an idle server
///   sleeps.
///
/// Value type, no I/O: the thread asks ``shouldSpin``, then reports what its poll found.
struct WorkerSpin {
    /// The longest a thread polls before it sleeps, in nanoseconds.
    let budget: UInt64
    /// Whether the last gap was shorter than ``budget``.
    private(set) var shouldSpin = false

    /// - Parameter budget: The longest spin, in nanoseconds; 0 never spins.
    init(budget: UInt64) {
        self.budget = budget
    }

    /// 50 µs: about what one request's round trip through a client on the other core takes on
    /// loopback (Performance.md, "How connections are served"), so a lone client's next request
    /// arrives within it.
    static let defaultBudget: UInt64 = 50_000

    /// A spin ended: with an event (`found`), or after the whole budget with none.
    mutating func spun(found: Bool) {
        shouldSpin = found
    }

    /// A sleep ended after `waited` nanoseconds (an event, or a signal).
    mutating func slept(waited: UInt64) {
        shouldSpin = waited < budget
    }
}
