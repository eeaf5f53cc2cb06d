// The fourth model: event-loop threads, NIO's shape. A worker is a thread of its own (pthread) that
// blocks in epoll_wait(epfd, events, 64, -1) and serves the ready connections inline (read(2),
// parse, send(2), as EpollSet does for the epoll workers): no Dispatch source, no manager thread.
// Worker 0's set also holds the listener: it accepts and hands descriptors out round-robin, to
// itself directly, to another worker through that worker's lock-protected queue and a write to
// its eventfd (in its epoll set, to wake it). After each batch of events a worker runs what was
// queued for it: descriptors to add, and (`loop-tasks`) the jobs of the tasks preferring it; a
// LoopWorker is the Swift executor of those tasks (SerialExecutor and TaskExecutor).
import Dispatch
import Glibc
import Synchronization

let eventfdCreate = libcFunction("eventfd", as: (@convention(c) (UInt32, Int32) -> Int32).self)

/// What other threads (and tasks on this one) hand a loop worker: descriptors and jobs.
struct LoopInbox {
    var descriptors: [Int32] = []
    var jobs: [UnownedJob] = []
}

/// The state below `inbox` is used on the worker's thread only; `thread` is written by the thread
/// before `start()` returns and read-only afterwards, `listener` and `siblings` before `start()`.
final class LoopWorker: SerialExecutor, TaskExecutor, @unchecked Sendable {
    let index: Int
    let set = EpollSet()
    let wakeFD = eventfdCreate(0, O_NONBLOCK | O_CLOEXEC)
    private let inbox = Mutex(LoopInbox())
    private(set) var thread = pthread_t()
    /// Worker 0 only: the listener in its set, and the workers it hands connections to.
    var listener: Int32 = -1
    var siblings: [LoopWorker] = []
    private var next = 0
    /// Swapped with `inbox` after each batch, so the lock is held for two array swaps only.
    private var drained = LoopInbox()

    /// - Parameter tasks: answer each request from a task preferring this worker (`loop-tasks`).
    init(index: Int, tasks: Bool) {
        precondition(wakeFD >= 0, "eventfd failed")
        self.index = index
        set.control(EPOLL_CTL_ADD, wakeFD, EPOLLIN)
        if tasks { set.executor = self }
    }

    /// Starts the worker's thread; returns once the thread runs (so `thread` is set for `isOnLoop`).
    func start() {
        let started = DispatchSemaphore(value: 0)
        let box = Unmanaged.passRetained(StartBox(worker: self, started: started)).toOpaque()
        var created = pthread_t()
        let result = pthread_create(&created, nil, { context in
            let box = Unmanaged<StartBox>.fromOpaque(context!).takeRetainedValue()
            let worker = box.worker
            worker.thread = pthread_self()
            box.started.signal()
            worker.run()
        }, box)
        precondition(result == 0, "pthread_create failed")
        started.wait()
    }

    var isOnLoop: Bool { pthread_equal(pthread_self(), thread) != 0 }

    private func run() -> Never {
        while true {
            let ready = set.wait(timeout: -1)
            for index in 0..<ready {
                let event = set.events[index]
                if event.fd == wakeFD {
                    var count: UInt64 = 0
                    _ = read(wakeFD, &count, 8)
                } else if event.fd == listener {
                    acceptAll()
                } else {
                    set.serve(event)
                }
            }
            runQueued()
        }
    }

    /// Runs what was queued for this worker, until nothing is (a job may queue another).
    private func runQueued() {
        while true {
            inbox.withLock { swap(&$0, &drained) }
            if drained.descriptors.isEmpty && drained.jobs.isEmpty { return }
            for fd in drained.descriptors { set.add(fd) }
            if !drained.jobs.isEmpty {
                // Isolated to the loop as a serial executor too, so an actor running on it would
                // be correct; the price: a task that prefers the loop and resumes here hops once
                // more (nonisolated code leaves a serial executor: a second enqueue per suspension;
                // `runSynchronously(on: task)` alone saves it, measured with IOMODEL_YIELD=1).
                let serial = asUnownedSerialExecutor(), task = asUnownedTaskExecutor()
                for job in drained.jobs { job.runSynchronously(isolatedTo: serial, taskExecutor: task) }
            }
            drained.descriptors.removeAll(keepingCapacity: true)
            drained.jobs.removeAll(keepingCapacity: true)
        }
    }

    private func acceptAll() {
        var one: Int32 = 1
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let worker = siblings[next % siblings.count]
            next += 1
            if worker === self {
                set.add(fd)
            } else {
                worker.submit { $0.descriptors.append(fd) }
            }
        }
    }

    /// Queues work for the worker's thread, and wakes it through its eventfd unless this is that thread
    /// (which runs the queue after its current batch anyway).
    private func submit(_ change: (inout LoopInbox) -> Void) {
        inbox.withLock { change(&$0) }
        if !isOnLoop {
            var count: UInt64 = 1
            _ = write(wakeFD, &count, 8)
        }
    }

    // MARK: The executor of the `loop-tasks` model's handler tasks.

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        submit { $0.jobs.append(job) }
    }

    func isIsolatingCurrentContext() -> Bool? { isOnLoop }

    func checkIsolated() {
        precondition(isOnLoop, "not on loop worker \(index)'s thread")
    }
}

private final class StartBox {
    let worker: LoopWorker
    let started: DispatchSemaphore

    init(worker: LoopWorker, started: DispatchSemaphore) {
        self.worker = worker
        self.started = started
    }
}
