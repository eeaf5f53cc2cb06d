import Dispatch

#if os(Linux)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
private import CWhiskerSystem

/// The thread of an epoll ``IOWorker``: it blocks in `epoll_wait` on the worker's set itself and
/// hands each batch of ready descriptors to the worker, which handles it inside a synchronous call
/// on its queue (``SyncTarget``).
///
/// It holds the selector (so the epoll descriptor stays open while it waits on it) and only a weak
/// reference to the worker: the worker's `deinit` calls ``EpollSelector/wake()``, the thread's
/// next wait returns at once, finds the worker gone and ends; the epoll descriptor closes with the
/// last of the two references. Between waits the thread holds the worker strongly only for the
/// length of a batch.
enum WorkerThread {
    /// The stack of a worker's thread: 8 MiB, glibc's default under the usual `ulimit -s` and what
    /// Dispatch's pool threads, which ran the same code before, get. A request's synchronous work
    /// (parsing, the handler's code until it suspends, JSON coding, validation) runs on it; pages
    /// are mapped only as they are touched.
    static let stackSize = 8 << 20

    /// Starts the thread of `worker`, named `name` (see ``threadName(forLabel:)``).
    /// - Throws: ``SocketError`` with `pthread_create`'s error.
    static func start(name: String, selector: EpollSelector, worker: IOWorker) throws(SocketError) {
        let context = Context(name: name, selector: selector, worker: worker)
        let opaque = Unmanaged.passRetained(context).toOpaque()
        let result = whisker_thread_start({ opaque in
            Unmanaged<Context>.fromOpaque(opaque!).takeRetainedValue().run()
            return nil
        }, opaque, UInt(stackSize))
        guard result == 0 else {
            Unmanaged<Context>.fromOpaque(opaque).release()
            throw SocketError(call: "pthread_create", code: result)
        }
    }

    /// The name a worker's thread gets for a queue `label`: the label when it fits in the 15 bytes
    /// Linux keeps (`whisker.worker`), else the label without its first dot-separated part
    /// (`whisker.worker.3` becomes `worker.3`), else its first 15 bytes.
    static func threadName(forLabel label: String) -> String {
        let limit = 15
        if label.utf8.count <= limit { return label }
        if let dot = label.firstIndex(of: "."), case let rest = label[label.index(after: dot)...],
           !rest.isEmpty, rest.utf8.count <= limit {
            return String(rest)
        }
        return String(decoding: label.utf8.prefix(limit), as: UTF8.self)
    }

    /// The calling thread's kernel id (as `/proc/self/task` lists it): for tests that check which
    /// thread ran what.
    package static var currentID: Int { whisker_thread_id() }

    /// What the thread holds.
    private final class Context {
        let name: String
        let selector: EpollSelector
        weak var worker: IOWorker?

        init(name: String, selector: EpollSelector, worker: IOWorker) {
            self.name = name
            self.selector = selector
            self.worker = worker
        }

        func run() {
            _ = whisker_thread_set_name(name)
            var spin = WorkerSpin(budget: WorkerSpin.defaultBudget)
            while true {
                var count = 0
                if spin.shouldSpin {
                    let start = DispatchTime.now().uptimeNanoseconds
                    repeat {
                        count = selector.wait(timeout: 0)
                    } while count == 0 && DispatchTime.now().uptimeNanoseconds &- start < spin.budget
                    spin.spun(found: count > 0)
                }
                if count == 0 {
                    let start = DispatchTime.now().uptimeNanoseconds
                    count = selector.wait(timeout: -1)
                    spin.slept(waited: DispatchTime.now().uptimeNanoseconds &- start)
                }
                guard !selector.wasWoken, let worker else { return }
                worker.handleBatch(count)
            }
        }
    }
}

/// The libdispatch queue under a worker's `DispatchQueue`, entered with `dispatch_sync_f`.
///
/// Swift's `queue.sync { }` wraps its closure in a block and a generic helper that allocated at
/// every wake-up of the worker's thread; `dispatch_sync_f` takes a C function and a context
/// pointer and allocates nothing. The overlay does not expose the C queue, so it is asked for
/// once, from a job on the queue (`dispatch_get_current_queue`), and held retained until the
/// worker goes.
final class SyncTarget {
    private let queue: UnsafeMutableRawPointer

    /// The C queue of `queue` (a serial queue nothing else runs on yet).
    init(_ queue: DispatchQueue) {
        self.queue = queue.sync { whisker_dispatch_current_queue() }
    }

    deinit { whisker_dispatch_release(queue) }

    /// Runs `work(context)` on the queue, on this thread when the queue is free (as `sync` does),
    /// and returns once it ran. `context` must stay valid until then.
    func sync(_ context: UnsafeMutableRawPointer, _ work: @convention(c) (UnsafeMutableRawPointer?) -> Void) {
        whisker_dispatch_sync(queue, context, work)
    }
}
#else
#if canImport(Darwin)
import Darwin
#endif

/// No `dispatch_sync_f` target here: only the epoll backend, Linux-only, enters its queue that way.
final class SyncTarget {
    init(_ queue: DispatchQueue) {}
    func sync(_ context: UnsafeMutableRawPointer, _ work: @convention(c) (UnsafeMutableRawPointer?) -> Void) {}
}

/// No worker threads here: only the epoll backend, Linux-only, has them.
enum WorkerThread {
    static func start(name: String, selector: EpollSelector, worker: IOWorker) throws(SocketError) {
        throw SocketError(call: "pthread_create", code: ENOSYS)
    }
    static func threadName(forLabel label: String) -> String { label }
    package static var currentID: Int { 0 }
}
#endif
