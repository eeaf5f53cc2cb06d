import Dispatch

/// One Dispatch timer per connection, armed lazily: moving a deadline later costs nothing (the
/// timer fires at the old deadline, finds the new one and re-arms), so the hot path only
/// records timestamps and the timer fires at most about once per timeout period.
final class ConnectionTimer {
    private let queue: DispatchQueue
    /// Made in ``start(_:)``, not before: libdispatch traps when a source that was never
    /// resumed is released, and a connection refused at the limit never starts.
    private var source: (any DispatchSourceTimer)?
    private var armedDeadline: DispatchTime?
    private var isCancelled = false

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    func start(_ handler: @escaping () -> Void) {
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.setEventHandler { [unowned self] in
            armedDeadline = nil
            handler()
        }
        self.source = source
        source.resume()
    }

    /// Makes sure the timer fires no later than `deadline`.
    func arm(_ deadline: DispatchTime) {
        guard !isCancelled, let source else { return }
        if let armedDeadline, armedDeadline <= deadline { return }
        armedDeadline = deadline
        source.schedule(deadline: deadline, leeway: .milliseconds(100))
    }

    /// Whether `deadline` has passed; if not (the timer fired for an earlier deadline that has
    /// since moved), re-arms for it.
    func isDue(_ deadline: DispatchTime) -> Bool {
        guard DispatchTime.now() < deadline else { return true }
        arm(deadline)
        return false
    }

    func cancel() {
        guard !isCancelled else { return }
        isCancelled = true
        source?.cancel()
    }
}
