public import Dispatch
import Synchronization

/// Something registered with an ``IOWorker`` that is told when its descriptor is ready.
protocol IOReadinessHandler: AnyObject {
    func handle(_ readiness: IOReadiness)
}

/// One event loop: a serial queue, the epoll set of every connection confined to it, and a thread
/// of its own that blocks in `epoll_wait` on that set. When the wait returns, the thread handles
/// what it reported (up to 64 ready descriptors), then keeps polling without blocking while polls
/// come back full, all inside a synchronous call on ``queue`` (`dispatch_sync_f`, which is
/// `queue.sync` without the block it allocates).
///
/// This is what makes a keep-alive request cheap: a Dispatch source per connection costs a
/// wake-up of libdispatch's manager thread (and two `epoll_ctl`) after every event, while here
/// one wake-up serves every connection that became ready meanwhile, and a request changes no
/// registration (`Benchmarks/IOModel` measures both). And a lone request is one thread wake-up:
/// a synchronous call on the uncontended queue runs the batch on the waiting thread itself, so the read,
/// the handler's task (which prefers ``executor`` and starts inline) and the write run there, with
/// at most 1 thread switch and 3 system calls a request (`epoll_wait`, `read`, `sendmsg`), where a
/// Dispatch source on the epoll descriptor cost 4 and 11 (libdispatch's manager thread waking a pool
/// thread). When the last gap between events was short, the thread polls up to 50 µs before it
/// sleeps again (`WorkerSpin`), so a steady stream of requests is served without waking it at all.
///
/// The queue stays the worker's identity and its lock: `sync` runs the batch with the queue's
/// identity (so work "on the worker's queue" is exactly that) and after anything already submitted
/// to it. Work submitted from other threads with `queue.async` (a connection handed over by a
/// listener on another worker, a handler's job coming back from an actor, the deadlines' Dispatch
/// timer) runs on Dispatch's pool while the thread waits, serialized with its batches by the queue.
///
/// The thread holds the epoll set and only a weak reference to the worker: when the worker goes
/// away, its `deinit` wakes the thread through an eventfd in the set, and the thread ends.
///
/// That is the ``IOBackend/epoll`` backend, the default on Linux. With
/// ``IOBackend/dispatchSources`` the worker has no thread of its own: on Darwin each descriptor
/// gets a Dispatch read and write source on the queue instead; on Linux the worker keeps its epoll
/// set and one Dispatch read source on the set's descriptor wakes the queue (see ``IOBackend``
/// for why). Connections see no difference.
///
/// Everything on a worker's queue shares one thread at a time: the connections' parsing and
/// writing, their timers, and the handler tasks that prefer the queue's ``executor``. A handler
/// that suspends (`await`) gives the queue back; one that blocks the thread (a blocking system
/// call, a long computation without suspension points) stalls every connection of its worker,
/// as on any event loop. Move such work elsewhere (a `Task.detached`, a thread of its own) and
/// await its result.
public final class IOWorker: @unchecked Sendable {
    // `@unchecked Sendable`: `handlers` and the selector's interest are touched only on `queue`
    // (asserted in debug builds); everything else is immutable.
    /// The serial queue that owns the worker's connections.
    public let queue: DispatchQueue
    /// Runs tasks on ``queue`` (a connection's handlers prefer it).
    public let executor: DispatchQueueExecutor
    /// How this worker learns of readiness.
    public let backend: IOBackend
    /// The epoll set (``IOBackend/epoll``, and ``IOBackend/dispatchSources`` on Linux), which the
    /// worker's thread waits on, or libdispatch for ``selectorSource``.
    let selector: EpollSelector?
    /// The sources of each descriptor (``IOBackend/dispatchSources`` on Darwin).
    private let dispatchSelector: DispatchSourceSelector?
    /// The Dispatch read source on the epoll set's descriptor that runs each batch on the queue
    /// (``IOBackend/dispatchSources`` on Linux).
    private let selectorSource: (any DispatchSourceRead)?
    // The stored state marked `@exclusivity(unchecked)` lives on one queue (see the type's notes).
    // Release builds do not check exclusive access to it at run time (those checks were 4% of a
    // request's instructions); debug builds, which the tests run, still do (Performance.md).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var handlers: [Int32: any IOReadinessHandler] = [:]
    /// The armed deadlines of the worker's connections, behind one Dispatch timer.
    let deadlines: WorkerDeadlines
    /// A read buffer's storage that a connection gave back when it went idle, for the next
    /// connection that reads: a keep-alive request then reads into memory another request freed
    /// on this queue, not into a new allocation, and an idle connection still holds no buffer.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var spareReadStorage: [UInt8] = []

    /// Descriptors registered since the events being handled were polled: what the batch holds
    /// for such a number may be about the socket that had it before, closed meanwhile, and is not
    /// delivered to the new one (level-triggered, a real readiness is reported again by the next
    /// poll). The thread's blocking poll runs off the queue, so that is every registration since
    /// the last batch ended (the listener handing over a connection while the thread waits) and
    /// those made during a batch (a connection accepted inline).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var registeredSincePoll: [Int32] = []

    /// The libdispatch queue under ``queue`` (retained; the epoll backend's only), which the
    /// worker's thread enters with `dispatch_sync_f` at each wake-up: Swift's `queue.sync` wraps
    /// its closure in a block and a generic helper, and allocated for it at every wake-up.
    private let syncTarget: SyncTarget?

    /// Creates a worker with its queue (on Dispatch's global pool) and, for ``IOBackend/epoll``,
    /// its epoll set and its thread (named after `label`, as `top -H` and `perf` show it; Linux
    /// keeps 15 bytes, so `whisker.worker.3` is `worker.3`).
    /// - Parameters:
    ///   - label: The queue's label, as debuggers and `perf` show it, and its thread's name.
    ///   - backend: How the worker learns of readiness; ``IOBackend/default`` is the platform's
    ///     choice or what `WHISKER_IO_BACKEND` says.
    public init(label: String = "whisker.worker", backend: IOBackend = .default) throws(SocketError) {
        // The non-overcommit global queue: an overcommit target would start a thread whenever work waits.
        let queue = DispatchQueue(label: label, target: .global())
        QueueBound<IOWorker>.markOwned(queue)
        queue.setSpecific(key: labelKey, value: label)
        self.queue = queue
        self.executor = DispatchQueueExecutor(queue: queue)
        self.deadlines = WorkerDeadlines(queue: queue)
        self.backend = backend
        guard backend == .epoll else {
            #if os(Linux)
            dispatchSelector = nil
            syncTarget = nil
            let selector = try EpollSelector()
            self.selector = selector
            let source = Self.source(on: selector, queue: queue)
            selectorSource = source
            source.setEventHandler { [weak self] in self?.handleSourceEvent() }
            source.resume()
            #else
            selector = nil
            syncTarget = nil
            selectorSource = nil
            dispatchSelector = DispatchSourceSelector(queue: queue)
            #endif
            return
        }
        dispatchSelector = nil
        selectorSource = nil
        let selector = try EpollSelector()
        self.selector = selector
        syncTarget = SyncTarget(queue)
        try WorkerThread.start(name: WorkerThread.threadName(forLabel: label), selector: selector, worker: self)
    }

    deinit {
        if let selectorSource {
            // The cancel handler holds the epoll set until libdispatch stops watching it.
            selectorSource.cancel()
        } else {
            // The worker's thread finds it gone at its next wait and ends (the epoll set closes with it).
            selector?.wake()
        }
    }

    /// ``IOBackend/dispatchSources`` on Linux: a Dispatch read source on the epoll set's own
    /// descriptor, which is readable while anything in the set is ready. libdispatch watches that
    /// one descriptor for the worker's whole life and never a socket (``IOBackend`` says why); an
    /// epoll descriptor reports neither hang-ups nor errors.
    ///
    /// Its cancel handler holds the epoll set, so the descriptor is closed only once libdispatch
    /// has let go of it (the worker's `deinit` cancels the source).
    private static func source(on selector: EpollSelector, queue: DispatchQueue) -> any DispatchSourceRead {
        let source = DispatchSource.makeReadSource(fileDescriptor: selector.fd, queue: queue)
        source.setCancelHandler { withExtendedLifetime(selector) {} }
        return source
    }

    /// ``selectorSource``'s event: the set has something ready. Polls it without waiting and
    /// handles what it reports, on the queue. The poll runs after every registration made so far,
    /// so none of them can be a number's previous socket's (see ``registeredSincePoll``).
    private func handleSourceEvent() {
        guard let selector else { return }
        registeredSincePoll.removeAll(keepingCapacity: true)
        let count = selector.wait(timeout: 0)
        if count > 0 { handleBatchOnQueue(count) }
    }

    /// Handles the `count` events the worker's thread just waited for, then what is ready
    /// meanwhile, a batch at a time, until a poll comes back short of a full batch. Runs on the
    /// worker's thread, inside `dispatch_sync_f` on the queue: on the calling thread, with the queue's identity,
    /// after anything submitted to the queue before and before anything submitted after.
    func handleBatch(_ count: Int) {
        guard let syncTarget else { return }
        // The context lives on this stack for the length of the call, and the caller (the
        // worker's thread) holds the worker strongly for it: nothing is read after its owner is gone.
        var batch = Batch(worker: Unmanaged.passUnretained(self), count: count)
        withExtendedLifetime(self) {
            withUnsafeMutablePointer(to: &batch) { pointer in
                syncTarget.sync(pointer) { context in
                    let batch = context!.assumingMemoryBound(to: Batch.self).pointee
                    batch.worker.takeUnretainedValue().handleBatchOnQueue(batch.count)
                }
            }
        }
    }

    /// What ``handleBatch(_:)`` hands its queue's job: the worker, unretained (the caller holds
    /// it), and how many events the thread polled.
    private struct Batch {
        let worker: Unmanaged<IOWorker>
        let count: Int
    }

    /// ``handleBatch(_:)``'s work, on the queue.
    private func handleBatchOnQueue(_ count: Int) {
        assertOnQueue()
        guard let selector else { return }
        var count = count
        while true {
            selector.forEachReady(count) { readiness in
                guard registeredSincePoll.isEmpty || !registeredSincePoll.contains(readiness.fd) else { return }
                handlers[readiness.fd]?.handle(readiness)
            }
            registeredSincePoll.removeAll(keepingCapacity: true)
            guard count == selector.capacity else { return }
            count = selector.wait(timeout: 0)
        }
    }

    /// Starts reporting `fd`'s readiness to `handler`, which the worker holds until
    /// ``deregisterAndClose(_:)``.
    func register(_ fd: Int32, interest: IOInterest, handler: any IOReadinessHandler) throws(SocketError) {
        assertOnQueue()
        guard let selector else {
            dispatchSelector?.add(fd, interest: interest, handler: handler)
            return
        }
        try selector.add(fd, interest: interest)
        handlers[fd] = handler
        registeredSincePoll.append(fd)
    }

    func update(_ fd: Int32, interest: IOInterest) throws(SocketError) {
        assertOnQueue()
        guard let selector else {
            dispatchSelector?.modify(fd, interest: interest)
            return
        }
        try selector.modify(fd, interest: interest)
    }

    /// Stops reporting `fd` and closes it: nothing of it is delivered after this returns (a
    /// readiness still in the current batch is dropped). The epoll backend closes it at once;
    /// with Dispatch sources it is closed on the queue once both sources are cancelled, as
    /// libdispatch requires, so its number is not reused while a source still watches it. The
    /// owner must not use `fd` after this.
    /// - Parameter onClosed: Called on the queue once `fd` is closed.
    func deregisterAndClose(_ fd: Int32, then onClosed: (() -> Void)? = nil) {
        assertOnQueue()
        guard let selector else {
            dispatchSelector?.removeAndClose(fd, then: onClosed)
            return
        }
        selector.remove(fd)
        handlers[fd] = nil
        _ = LibC.close(fd)
        onClosed?()
    }

    /// Gives `buffer`'s storage back to the worker, if it is empty (see ``lendReadStorage(to:)``).
    package func recycleReadStorage(of buffer: inout ReadBuffer) {
        assertOnQueue()
        buffer.releaseStorageIfEmpty(into: &spareReadStorage)
    }

    /// Gives a buffer with no storage the worker's spare one, if it has one, before a read.
    package func lendReadStorage(to buffer: inout ReadBuffer) {
        assertOnQueue()
        buffer.reuseStorage(from: &spareReadStorage)
    }

    /// The label of the worker whose queue runs the caller (a handler's task included), if any:
    /// for tests that check how connections are spread.
    package static var currentLabel: String? { DispatchQueue.getSpecific(key: labelKey) }

    /// The number of registered descriptors (for tests).
    package var registeredCount: Int {
        assertOnQueue()
        return handlers.count + (dispatchSelector?.count ?? 0)
    }

    @inline(__always) private func assertOnQueue() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(queue))
        #endif
    }
}

/// Identifies, on a worker's queue, which worker that is.
private let labelKey = DispatchSpecificKey<String>()

/// A fixed set of ``IOWorker``s that new connections are spread across, in turn.
///
///     let workers = try IOWorkerGroup(count: 2)
///     let connection = SocketConnection(socket: accepted, worker: workers.next())
public final class IOWorkerGroup: Sendable {
    /// The workers, in the order ``next()`` hands them out.
    public let workers: [IOWorker]
    private let nextIndex = Atomic<Int>(0)

    /// Creates `count` workers, labelled `whisker.worker.0`, `.1`, ….
    /// - Parameters:
    ///   - count: How many; at least 1.
    ///   - backend: How the workers learn of readiness (see ``IOBackend``); by default the
    ///     platform's choice, or what `WHISKER_IO_BACKEND` says.
    public init(count: Int, backend: IOBackend = .default) throws(SocketError) {
        // A bad WHISKER_IO_BACKEND stops the start, whichever backend was asked for.
        _ = try IOBackend.named(inEnvironment: IOBackend.environmentValue)
        var workers: [IOWorker] = []
        for index in 0..<max(1, count) { workers.append(try IOWorker(label: "whisker.worker.\(index)", backend: backend)) }
        self.workers = workers
    }

    /// The worker for the next connection (round robin).
    public func next() -> IOWorker {
        let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
        return workers[Int(UInt(bitPattern: index) % UInt(workers.count))]
    }

    /// One worker per processor this process may run on (its CPU affinity, as `taskset` sets it).
    public static var defaultCount: Int { availableProcessors() }
}

