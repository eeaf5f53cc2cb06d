// The third model: a few epoll workers. A worker is one serial queue and one epoll set holding the
// connections it was given (level-triggered EPOLLIN, EPOLLOUT added only while a response waits on
// a full socket buffer). One Dispatch read source watches the epoll descriptor; when it fires, the
// worker takes the ready connections 64 at a time (epoll_wait with a timeout of 0) and serves them
// all on its queue: read(2), the same trivial parsing as the other models, send(2).
// `EpollSet` (the connections and how they are served) is shared with the loop models (Loop.swift).
import Dispatch
import Glibc

// Glibc's Swift module map leaves out <sys/epoll.h> and <sys/eventfd.h>: the calls are looked up in
// libc and called through C function pointers; the constants and struct epoll_event are spelled out.
func libcFunction<T>(_ name: String, as type: T.Type) -> T {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { fatalError("libc has no \(name)") }
    return unsafeBitCast(symbol, to: type)
}
let epollCreate1 = libcFunction("epoll_create1", as: (@convention(c) (Int32) -> Int32).self)
let epollCtl = libcFunction("epoll_ctl", as: (@convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32).self)
let epollWait = libcFunction("epoll_wait", as: (@convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32).self)
let EPOLLIN: UInt32 = 0x001, EPOLLOUT: UInt32 = 0x004, EPOLLERR: UInt32 = 0x008, EPOLLHUP: UInt32 = 0x010
let EPOLL_CTL_ADD: Int32 = 1, EPOLL_CTL_DEL: Int32 = 2, EPOLL_CTL_MOD: Int32 = 3

/// struct epoll_event with the fd in the low half of its 64-bit data (little-endian); the struct is
/// packed (12 bytes) on x86_64 and naturally aligned (16 bytes) elsewhere.
struct EpollEvent {
    var events: UInt32 = 0
    #if !arch(x86_64)
    var padding: UInt32 = 0
    #endif
    var fd: Int32 = -1
    var high: UInt32 = 0
}

/// Used only on its set's thread or queue; `@unchecked Sendable` so the `-tasks` models' tasks,
/// which run there too (their executor is that thread or queue), can hold it.
final class EpollConnection: @unchecked Sendable {
    let fd: Int32
    var pending: [UInt8] = []
    var unsent: [UInt8] = []
    var watchingWrites = false
    /// Set when the descriptor is closed: a task finishing later must not write to the descriptor's next owner.
    var closed = false

    init(fd: Int32) { self.fd = fd }
}

/// The handler of the `-tasks` models: nonisolated and async, awaiting one trivial async call (as a
/// generated handler awaits the user's), so a request pays the task machinery as Whisker's do.
/// That call does not suspend, so the task runs to its end inside `Task.immediate` and the
/// executor never sees a job (counted once: 0 enqueues in 20,000 requests, both executors). With
/// `IOMODEL_YIELD=1` in the environment the handler awaits `Task.yield()` instead: one real
/// suspension a request, its job enqueued on the preferred executor and run from there.
func handle() async -> [UInt8] {
    if yieldInHandler {
        await Task.yield()
    } else {
        await answerReady()
    }
    return response
}

let yieldInHandler = getenv("IOMODEL_YIELD").map { String(cString: $0) == "1" } ?? false

@inline(never)
func answerReady() async {}

/// One epoll set and the connections in it, used from one thread at a time (an `EpollWorker`'s
/// queue or a `LoopWorker`'s thread). With an `executor`, each complete request head is answered
/// from `Task.immediate(executorPreference: executor) { await handle() }`, as Whisker starts a
/// handler; without, inline.
final class EpollSet: @unchecked Sendable {
    let epfd = epollCreate1(O_CLOEXEC)
    var connections: [Int32: EpollConnection] = [:]
    var events = [EpollEvent](repeating: EpollEvent(), count: 64)
    var scratch = [UInt8](repeating: 0, count: 65536)
    var executor: (any TaskExecutor)?

    init() {
        precondition(epfd >= 0, "epoll_create1 failed")
    }

    /// The connection joins this set.
    func add(_ fd: Int32) {
        connections[fd] = EpollConnection(fd: fd)
        control(EPOLL_CTL_ADD, fd, EPOLLIN)
    }

    func control(_ operation: Int32, _ fd: Int32, _ interest: UInt32) {
        var event = EpollEvent(events: interest, fd: fd)
        _ = epollCtl(epfd, operation, fd, &event)
    }

    /// epoll_wait into `events`; returns how many are ready (0 on EINTR).
    func wait(timeout: Int32) -> Int {
        let ready = events.withUnsafeMutableBytes { epollWait(epfd, $0.baseAddress, Int32(64), timeout) }
        return max(Int(ready), 0)
    }

    /// Serves one ready event of a connection in this set.
    func serve(_ event: EpollEvent) {
        // A connection closed earlier in this batch has left the table: skip its events.
        guard let connection = connections[event.fd] else { return }
        if event.events & EPOLLOUT != 0 && !flush(connection) { return }
        if event.events & (EPOLLIN | EPOLLERR | EPOLLHUP) != 0 { readable(connection) }
    }

    func readable(_ connection: EpollConnection) {
        let n = scratch.withUnsafeMutableBytes { read(connection.fd, $0.baseAddress, $0.count) }
        if n <= 0 {
            if n < 0 && errno == EAGAIN { return }
            drop(connection)
            return
        }
        connection.pending += scratch[0..<n]
        let (count, consumed) = completeHeads(connection.pending, from: 0)
        connection.pending.removeFirst(consumed)
        guard count > 0 else { return }
        if let executor {
            // One task per request; a task that suspends resumes on `executor`, after the work
            // queued there, so responses keep their order.
            for _ in 0..<count {
                Task.immediate(executorPreference: executor) { [self] in
                    let answer = await handle()
                    if !connection.closed { respond(connection, answer) }
                }
            }
            return
        }
        let wasEmpty = connection.unsent.isEmpty
        for _ in 0..<count { connection.unsent += response }
        if wasEmpty { _ = flush(connection) }
    }

    func respond(_ connection: EpollConnection, _ answer: [UInt8]) {
        let wasEmpty = connection.unsent.isEmpty
        connection.unsent += answer
        if wasEmpty { _ = flush(connection) }
    }

    /// Sends what the connection has waiting; watches EPOLLOUT only while some of it is left.
    /// Returns false if the connection was closed.
    func flush(_ connection: EpollConnection) -> Bool {
        let n = connection.unsent.withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n < 0 && errno != EAGAIN && errno != EINTR {
            drop(connection)
            return false
        }
        if n > 0 { connection.unsent.removeFirst(n) }
        let watch = !connection.unsent.isEmpty
        if watch != connection.watchingWrites {
            connection.watchingWrites = watch
            control(EPOLL_CTL_MOD, connection.fd, watch ? EPOLLIN | EPOLLOUT : EPOLLIN)
        }
        return true
    }

    /// Leaves the epoll set before the descriptor is closed.
    func drop(_ connection: EpollConnection) {
        control(EPOLL_CTL_DEL, connection.fd, 0)
        close(connection.fd)
        connection.closed = true
        connections[connection.fd] = nil
    }
}

/// A task executor over a serial queue, as WhiskerSockets' `DispatchQueueExecutor` (the
/// `epoll-tasks` model's handler tasks prefer their worker's queue).
final class QueueExecutor: TaskExecutor {
    let queue: DispatchQueue

    init(queue: DispatchQueue) { self.queue = queue }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// Its state is used on `queue` only (the acceptor hands it descriptors with `queue.async { set.add(fd) }`).
final class EpollWorker: @unchecked Sendable {
    let queue: DispatchQueue
    let set = EpollSet()
    var source: (any DispatchSourceRead)?

    /// - Parameter tasks: answer each request from a task preferring `queue` (`epoll-tasks`).
    init(index: Int, tasks: Bool) {
        queue = DispatchQueue(label: "worker \(index)")
        if tasks { set.executor = QueueExecutor(queue: queue) }
        let source = DispatchSource.makeReadSource(fileDescriptor: set.epfd, queue: queue)
        source.setEventHandler { [unowned self] in poll() }
        source.resume()
        self.source = source
    }

    func poll() {
        var ready = 0
        repeat {
            ready = set.wait(timeout: 0)
            for index in 0..<ready { set.serve(set.events[index]) }
        } while ready == 64
    }
}
