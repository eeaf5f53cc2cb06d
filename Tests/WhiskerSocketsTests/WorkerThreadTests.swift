#if os(Linux)
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
@testable import WhiskerSockets

/// The epoll worker's own thread: it blocks in `epoll_wait` and handles each batch inside
/// `queue.sync`, so readiness and the tasks that prefer the worker run on it without a hand-off;
/// work submitted to the queue from elsewhere is served on Dispatch's pool while it waits,
/// serialized with its batches; a readiness it polled before a descriptor number was taken again
/// never reaches the new descriptor; and its thread ends when the worker goes away.
///
/// Threads are found by name in `/proc/self/task/*/comm` (each test labels its workers uniquely,
/// since tests run in parallel) and what a thread is doing by `/proc/self/task/TID/syscall`.
@Suite(.timeLimit(.minutes(1))) struct WorkerThreadTests {
    @Test func readinessAndATaskThatPrefersTheWorker_RunOnTheWorkersThread() async throws {
        let worker = try IOWorker(label: "loop.inline", backend: .epoll)
        let thread = try #require(await thread(named: "loop.inline"))
        let seen = AsyncStream.makeStream(of: (reader: Int, label: String?, task: Int).self)
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, LibC.streamSocket, 0, &pair) == 0)
        let (fd, peer) = (pair[0], pair[1])
        defer { close(peer) }
        worker.queue.async {
            try? worker.register(fd, interest: .read, handler: ReadinessRecorder {
                worker.deregisterAndClose(fd)
                let reader = WorkerThread.currentID, label = IOWorker.currentLabel
                // What a request's handler is: a task that prefers the worker's executor, started inline.
                Task.immediate(executorPreference: worker.executor) {
                    seen.continuation.yield((reader, label, WorkerThread.currentID))
                }
            })
            _ = write(peer, "x", 1)
        }
        var iterator = seen.stream.makeAsyncIterator()
        let event = try #require(await iterator.next())
        #expect(event.reader == thread, "the readiness was handled off the worker's thread")
        #expect(event.label == "loop.inline", "the batch ran without the queue's identity")
        #expect(event.task == thread, "the handler's task was handed to another thread")
    }

    /// While the worker's thread sleeps in `epoll_wait`, a job submitted from another thread (the
    /// listener handing over a connection) and a connection's timer run on Dispatch's pool with
    /// the queue's identity; a descriptor that job registers is then reported on the worker's thread.
    @Test func workFromAnotherThread_IsServedWhileTheThreadWaits() async throws {
        let worker = try IOWorker(label: "loop.submit", backend: .epoll)
        let thread = try #require(await thread(named: "loop.submit"))
        #expect(await eventually { isWaitingInEpoll(thread) })
        let seen = AsyncStream.makeStream(of: (event: String, thread: Int, loopWaits: Bool).self)
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, LibC.streamSocket, 0, &pair) == 0)
        let (fd, peer) = (pair[0], pair[1])
        defer { close(peer) }
        let timer = QueueBound(ConnectionTimer(worker: worker), queue: worker.queue)
        worker.queue.async {
            dispatchPrecondition(condition: .onQueue(worker.queue))
            seen.continuation.yield(("job", WorkerThread.currentID, isWaitingInEpoll(thread)))
            try? worker.register(fd, interest: .read, handler: ReadinessRecorder {
                worker.deregisterAndClose(fd)
                seen.continuation.yield(("readable", WorkerThread.currentID, false))
            })
            timer.run { timer in
                timer.start {
                    dispatchPrecondition(condition: .onQueue(worker.queue))
                    seen.continuation.yield(("timer", WorkerThread.currentID, isWaitingInEpoll(thread)))
                }
                timer.arm(.now() + .milliseconds(10))
            }
        }
        var iterator = seen.stream.makeAsyncIterator()
        let job = try #require(await iterator.next())
        #expect(job.event == "job" && job.thread != thread && job.loopWaits, "\(job)")
        let fired = try #require(await iterator.next())
        #expect(fired.event == "timer" && fired.thread != thread && fired.loopWaits, "\(fired)")
        _ = write(peer, "x", 1)
        let readable = try #require(await iterator.next())
        #expect(readable.event == "readable" && readable.thread == thread, "\(readable)")
    }

    /// The thread polls outside the queue; a job on the queue then closes a descriptor it
    /// reported and gives the number to a new socket with nothing to read before the batch runs:
    /// the batch's event for that number must not reach the new socket.
    @Test func readinessPolledBeforeANumberIsTakenAgain_NeverReachesTheNewSocket() async throws {
        let worker = try IOWorker(label: "loop.reuse", backend: .epoll)
        let thread = try #require(await thread(named: "loop.reuse"))
        #expect(await eventually { isWaitingInEpoll(thread) })
        var old: [Int32] = [0, 0], fresh: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, LibC.streamSocket, 0, &old) == 0)
        #expect(socketpair(AF_UNIX, LibC.streamSocket, 0, &fresh) == 0)
        // The number taken again is far above what other tests' sockets get.
        old[0] = movedFarFromOtherTests(old[0])
        let descriptors = old + fresh
        let result = AsyncStream.makeStream(of: (newcomerEvents: Int, loopLeftEpoll: Bool).self)
        worker.queue.async {
            try? worker.register(descriptors[0], interest: .read, handler: ReadinessRecorder())
            worker.queue.async {
                // Holding the queue: the thread wakes for the old socket and waits for the queue in
                // `queue.sync`, a futex (202 on x86_64), having queued itself before what follows.
                _ = write(descriptors[1], "x", 1)
                let left = spinUntil { syscall(of: thread) == "202" }
                worker.deregisterAndClose(descriptors[0])
                #expect(dup2(descriptors[2], descriptors[0]) == descriptors[0])
                let newcomer = ReadinessRecorder()
                try? worker.register(descriptors[0], interest: .read, handler: newcomer)
                // Queued after the thread's batch, which waits for this job.
                worker.queue.async {
                    result.continuation.yield((newcomer.events, left))
                    worker.deregisterAndClose(descriptors[0])
                    for fd in descriptors[1...] { close(fd) }
                }
            }
        }
        var iterator = result.stream.makeAsyncIterator()
        let outcome = try #require(await iterator.next())
        #expect(outcome.loopLeftEpoll, "the thread never woke for the old socket")
        #expect(outcome.newcomerEvents == 0, "the old socket's event went to the new one")
    }

    @Test func droppedWorkers_EndTheirThreads() async throws {
        var workers: [IOWorker] = []
        for index in 0..<20 { workers.append(try IOWorker(label: "loopdrop.\(index)", backend: .epoll)) }
        #expect(await eventually { threads(namedWithPrefix: "loopdrop.").count == 20 }, "a worker has no thread")
        // A worker that served a batch ends its thread too.
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, LibC.streamSocket, 0, &pair) == 0)
        let (fd, peer) = (pair[0], pair[1])
        defer { close(peer) }
        await withCheckedContinuation { continuation in
            let worker = workers[0]
            worker.queue.async {
                try? worker.register(fd, interest: .read, handler: ReadinessRecorder {
                    worker.deregisterAndClose(fd)
                    continuation.resume()
                })
                _ = write(peer, "x", 1)
            }
        }
        workers.removeAll()
        #expect(await eventually { threads(namedWithPrefix: "loopdrop.").isEmpty },
                "threads left: \(threads(namedWithPrefix: "loopdrop.").count)")
    }

    @Test func threadNames_FitLinuxsFifteenBytes() {
        #expect(WorkerThread.threadName(forLabel: "whisker.worker") == "whisker.worker")
        #expect(WorkerThread.threadName(forLabel: "whisker.worker.3") == "worker.3")
        #expect(WorkerThread.threadName(forLabel: "whisker.worker.12") == "worker.12")
        #expect(WorkerThread.threadName(forLabel: "averyveryverylonglabel") == "averyveryverylo")
    }
}

/// The kernel id of the thread of this process named `name`, once it exists.
private func thread(named name: String) async -> Int? {
    var found: Int?
    _ = await eventually {
        found = threads(namedWithPrefix: name).first { threadName($0) == name }
        return found != nil
    }
    return found
}

/// The kernel ids of this process's threads whose name starts with `prefix`.
private func threads(namedWithPrefix prefix: String) -> [Int] {
    procEntries("/proc/self/task").compactMap(Int.init).filter { threadName($0)?.hasPrefix(prefix) == true }
}

private func threadName(_ id: Int) -> String? {
    procFile("/proc/self/task/\(id)/comm")?.split(separator: "\n").first.map(String.init)
}

/// The first word of `/proc/self/task/TID/syscall`: the number of the system call the thread is
/// blocked in, or `running`.
private func syscall(of id: Int) -> String? {
    procFile("/proc/self/task/\(id)/syscall")?.split(separator: " ").first.map(String.init)
}

/// Whether the thread is blocked in `epoll_wait` (232) or `epoll_pwait` (281), x86_64's numbers.
private func isWaitingInEpoll(_ id: Int) -> Bool {
    let call = syscall(of: id)
    return call == "232" || call == "281"
}

/// Checks `condition` every millisecond for up to 10 s: for what the kernel shows and no event
/// announces (a thread's state, its end).
private func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<10_000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}

/// As ``eventually(_:)``, blocking the calling thread (a job that holds the worker's queue).
private func spinUntil(_ condition: () -> Bool) -> Bool {
    for _ in 0..<10_000 {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
}
#endif
