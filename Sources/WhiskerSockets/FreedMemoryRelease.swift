package import Dispatch
import Synchronization

/// Returns memory to the system after bursts. glibc's allocator keeps what worker threads free
/// in their arenas: after 5,000 stalled HTTP/2 streams have been reset, a server that peaked at
/// 140 MB stayed there, although 108 MB of it was free. So each closed connection asks for a
/// check, at most one a second, off the I/O workers: if more than ``threshold`` bytes sit free,
/// `malloc_trim(0)` hands them back (measured: 140 MB back to 32 MB; a trim of that size takes
/// a few milliseconds of a utility thread). Under steady load little sits free and nothing is done.
///
/// A burst on connections that stay open (one keep-alive client's 100,000 requests) closes
/// nothing, so a check also runs every ``period`` while the owner lives.
package final class FreedMemoryRelease: Sendable {
    /// The free bytes that make a trim worth its cost.
    package static let threshold = 16 << 20
    private let isScheduled = Atomic(false)
    private let delay: DispatchTimeInterval
    private let period: DispatchTimeInterval?

    /// - Parameters:
    ///   - delay: How long after a connection closed the check runs.
    ///   - period: How often a check runs anyway, until this object is gone; `nil`: never.
    package init(delay: DispatchTimeInterval = .seconds(1), period: DispatchTimeInterval? = .seconds(10)) {
        self.delay = delay
        self.period = period
        schedulePeriodicCheck()
    }

    /// Schedules a check after `delay`, unless one is already scheduled. Any thread.
    package func connectionClosed() {
        guard isScheduled.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + delay) { [self] in
            isScheduled.store(false, ordering: .relaxed)
            _ = Self.releaseNow()
        }
    }

    /// One check after `period`, which schedules the next, as long as this object lives (the
    /// pending one holds it weakly).
    private func schedulePeriodicCheck() {
        guard let period else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + period) { [weak self] in
            guard let self else { return }
            _ = Self.releaseNow()
            schedulePeriodicCheck()
        }
    }

    /// Trims now if more than ``threshold`` bytes are free; returns the free bytes it saw.
    @discardableResult
    package static func releaseNow() -> Int {
        releaseFreeMemory(threshold: threshold)
    }
}
