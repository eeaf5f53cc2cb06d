public import Dispatch

/// A task executor that runs jobs on a serial Dispatch queue.
///
/// A connection's handler tasks prefer its queue (`Task(executorPreference:)`), so a request is
/// parsed, handled and answered on one queue, usually on one thread, instead of hopping to Swift's
/// cooperative pool and back; each hop is a thread wake-up and costs more than the rest of a small
/// request. Code that hops to an actor still does so, and comes back here afterwards.
public final class DispatchQueueExecutor: TaskExecutor {
    /// The queue jobs run on.
    public let queue: DispatchQueue

    /// Creates an executor for `queue`.
    /// - Parameter queue: A serial queue.
    public init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Runs `job` on ``queue``, after the work already queued there; the Swift runtime calls this
    /// for every task that prefers this executor.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
