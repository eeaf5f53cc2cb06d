import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable import WhiskerSockets

/// The Dispatch-source backend's own contract: sources follow the interest (a paused reader and an
/// idle writer hear nothing), nothing is delivered after a removal, the descriptor is closed only
/// once both sources are cancelled, and a number closed and taken again never carries an old
/// registration's events. Every wait is on an event, never a sleep.
@Suite(.timeLimit(.minutes(1))) struct DispatchSourceSelectorTests {
    @Test func interestChanges_ResumeAndSuspendTheSources() async throws {
        let queue = DispatchQueue(label: "whisker.dispatch-selector-test")
        let selector = DispatchSourceSelector(queue: queue)
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &pair) == 0)
        let (fd, peer) = (pair[0], pair[1])
        defer { close(peer) }
        let events = AsyncStream.makeStream(of: String.self)
        // A reader takes what is there, as a connection does; an event that finds nothing (one
        // queued before the last read) is not reported.
        let handler = ReadinessLog { readiness in
            guard readiness.isReadable else {
                events.continuation.yield("writable")
                return
            }
            var bytes = [UInt8](repeating: 0, count: 16)
            let count = read(fd, &bytes, bytes.count)
            if count > 0 { events.continuation.yield("read " + String(decoding: bytes[..<count], as: UTF8.self)) }
        }
        queue.sync { selector.add(fd, interest: .read, handler: handler) }
        var iterator = events.stream.makeAsyncIterator()

        _ = write(peer, "a", 1)
        #expect(await iterator.next() == "read a")
        // Paused: the suspended read source reports nothing, so the marker below is the next thing
        // seen; resumed, the byte that waited is reported.
        queue.sync { selector.modify(fd, interest: []) }
        _ = write(peer, "b", 1)
        queue.sync {
            events.continuation.yield("marker")
            selector.modify(fd, interest: .read)
        }
        #expect(await iterator.next() == "marker", "nothing while reading is paused")
        #expect(await iterator.next() == "read b", "the unread bytes once it resumes")

        // Writable only while asked for: one report, then suspended again, and the marker follows.
        queue.sync { selector.modify(fd, interest: .write) }
        #expect(await iterator.next() == "writable")
        queue.sync {
            selector.modify(fd, interest: [])
            events.continuation.yield("marker")
        }
        // Anything the write source had queued before it was suspended may still arrive; after
        // a round trip on the queue nothing more does.
        var next = await iterator.next()
        while next == "writable" { next = await iterator.next() }
        #expect(next == "marker")
        queue.sync { _ = events.continuation.yield("quiet") }
        #expect(await iterator.next() == "quiet", "a suspended write source does not spin")

        let closed = AsyncStream.makeStream(of: Void.self)
        queue.sync { selector.removeAndClose(fd) { closed.continuation.yield() } }
        var closedIterator = closed.stream.makeAsyncIterator()
        await closedIterator.next()
    }

    /// A blocked write through a connection: the write source is resumed while the kernel's buffer
    /// is full and the completion comes once the peer drains it.
    @Test func blockedWrite_CompletesOnceThePeerDrains() async throws {
        let (client, connection) = try await connectedPair(backend: .dispatchSources, clientReceiveBuffer: 16 * 1024, serverSendBuffer: 16 * 1024)
        defer { close(client) }
        let payload = [UInt8](repeating: 7, count: 4 << 20)
        let events = AsyncStream.makeStream(of: String.self)
        connection.run { connection in
            connection.write(payload[...], flush: true) { error in
                events.continuation.yield(error == nil ? "written" : "failed")
            }
            events.continuation.yield(connection.writeBlockedSince != nil ? "blocked" : "not blocked")
        }
        var iterator = events.stream.makeAsyncIterator()
        #expect(await iterator.next() == "blocked")
        var received = 0
        var chunk = [UInt8](repeating: 0, count: 65536)
        while received < payload.count {
            let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += count
        }
        #expect(received == payload.count)
        #expect(await iterator.next() == "written")
        connection.run { connection in
            events.continuation.yield(connection.writeBlockedSince == nil ? "drained" : "still blocked")
            connection.close()
        }
        #expect(await iterator.next() == "drained")
    }

    /// Removal, then the close: no event after the removal, the descriptor still open when it
    /// returns (the sources are not cancelled yet), closed when the callback says so.
    @Test func removal_DeliversNothingAfterwards_AndClosesOnlyOnceBothSourcesAreCancelled() async throws {
        let queue = DispatchQueue(label: "whisker.dispatch-close-test")
        let selector = DispatchSourceSelector(queue: queue)
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &pair) == 0)
        let (fd, peer) = (pair[0], pair[1])
        // Closed only once the sources are gone: a hang-up racing their cancellation is what
        // Linux's workers keep from libdispatch (IOBackend.dispatchSources).
        defer { close(peer) }
        let lateEvents = Atomic<Int>(0)
        let removed = Atomic<Bool>(false)
        let handler = ReadinessLog { _ in
            if removed.load(ordering: .relaxed) { lateEvents.add(1, ordering: .relaxed) }
        }
        let socketIdentity = identity(fd)
        let results = AsyncStream.makeStream(of: (openAfterRemoval: Bool, closedAfterCallback: Bool).self)
        queue.sync {
            selector.add(fd, interest: [.read, .write], handler: handler)
            // Readable and writable now: both sources have events on their way to the queue.
            _ = write(peer, "x", 1)
        }
        queue.sync {
            removed.store(true, ordering: .relaxed)
            var openAfterRemoval = false
            selector.removeAndClose(fd) {
                // Closed: the number names nothing, or (taken at once by a parallel test)
                // another socket.
                results.continuation.yield((openAfterRemoval, identity(fd) != socketIdentity))
            }
            openAfterRemoval = identity(fd) == socketIdentity
        }
        var iterator = results.stream.makeAsyncIterator()
        let result = try #require(await iterator.next())
        #expect(result.openAfterRemoval, "still open when removeAndClose returns: the sources are not cancelled yet")
        #expect(result.closedAfterCallback, "closed once both cancel handlers ran")
        // One more hop on the queue: any event still queued for the old sources has had its turn.
        #expect(queue.sync { selector.count } == 0)
        #expect(lateEvents.load(ordering: .relaxed) == 0, "no readiness after removeAndClose")
    }

    /// Hundreds of registrations made and ended in quick succession, a few at a time, so that
    /// descriptor numbers are reused at once: each handler sees only its own socket's byte and
    /// nothing after its removal. On the selector itself, and through a worker on the Dispatch
    /// backend (on Linux: its epoll set, polled by the handler of one Dispatch source).
    @Test(arguments: [false, true]) func manyConnectionsOpenedAndClosed_NeverCrossTheirEvents(throughAWorker: Bool) async throws {
        let worker = try IOWorker(label: "whisker.dispatch-churn-test", backend: .dispatchSources)
        let selector = DispatchSourceSelector(queue: worker.queue)
        let outcome = AsyncStream.makeStream(of: (handled: Int, crossed: Int).self)
        let churn = Churn(total: 400, inFlight: 8, done: { outcome.continuation.yield($0) },
            register: { fd, handler in
                if throughAWorker { try? worker.register(fd, interest: .read, handler: handler) }
                else { selector.add(fd, interest: .read, handler: handler) }
            },
            removeAndClose: { fd, then in
                if throughAWorker { worker.deregisterAndClose(fd, then: then) }
                else { selector.removeAndClose(fd, then: then) }
            })
        worker.queue.async { churn.start() }
        var iterator = outcome.stream.makeAsyncIterator()
        let result = try #require(await iterator.next())
        #expect(result.handled == 400)
        #expect(result.crossed == 0, "an event reached a handler that was not its socket's, or came after removal")
        let registered = await withCheckedContinuation { done in
            worker.queue.async { done.resume(returning: (worker.registeredCount, churn.unclosed)) }
        }
        #expect(registered == (0, 0))
        withExtendedLifetime(selector) {}
    }

    #if os(Linux)
    /// On Linux libdispatch never watches a worker's socket (its epoll backend can finalize a
    /// source twice when a hang-up races the sources' cancellation): a socket registered with a
    /// worker on the Dispatch backend is in the worker's own epoll set and in no other (the set
    /// is what libdispatch watches). Read from `/proc/self/fdinfo`, which lists the
    /// descriptors each epoll set holds.
    @Test func onLinux_ADispatchWorkersSockets_AreInItsOwnEpollSetOnly() async throws {
        let worker = try IOWorker(label: "whisker.dispatch-epoll-test", backend: .dispatchSources)
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &pair) == 0)
        let (fd, peer) = (pair[0], pair[1])
        let events = AsyncStream.makeStream(of: Bool.self)
        let handler = ReadinessLog { readiness in events.continuation.yield(readiness.isReadable) }
        worker.queue.sync { try? worker.register(fd, interest: [.read], handler: handler) }
        _ = write(peer, "x", 1)
        var iterator = events.stream.makeAsyncIterator()
        #expect(await iterator.next() == true, "the byte is reported")
        let own = try #require(worker.selector?.fd, "a Dispatch worker on Linux has an epoll set")
        // (Whether libdispatch's set holds the worker's at this moment depends on whether it has
        // re-armed it since the event: not checked.)
        #expect(epollSetsWatching(fd) == [own], "the socket is in the worker's set alone, not in libdispatch's")
        worker.queue.sync { worker.deregisterAndClose(fd) }
        close(peer)
    }
    #endif
}

#if os(Linux)
/// The epoll sets of this process that hold `fd`, from each one's `/proc/self/fdinfo` entry
/// (a `tfd:` line per descriptor it holds).
private func epollSetsWatching(_ fd: Int32) -> [Int32] {
    procEntries("/proc/self/fd").compactMap { name -> Int32? in
        guard let number = Int32(name), procLink("/proc/self/fd/" + name) == "anon_inode:[eventpoll]" else { return nil }
        let holds = (procFile("/proc/self/fdinfo/" + name) ?? "").split(separator: "\n").contains { line in
            line.hasPrefix("tfd:") && line.dropFirst(4).split(separator: " ").first.flatMap { Int32($0) } == fd
        }
        return holds ? number : nil
    }
}
#endif

/// A descriptor's identity (device and inode), empty when it is closed: after a close its number
/// may already name another test's descriptor.
private func identity(_ fd: Int32) -> [UInt] {
    var info = stat()
    return fstat(fd, &info) == 0 ? [UInt(info.st_dev), UInt(info.st_ino)] : []
}

/// Registers `total` socket pairs, `inFlight` at a time; each gets a byte of its own (its index),
/// and its handler checks it, removes (and closes) its socket, closes the peer once that is done,
/// and starts the next. Used on one queue only.
private final class Churn: @unchecked Sendable {
    let total: Int
    let inFlight: Int
    let done: ((handled: Int, crossed: Int)) -> Void
    let register: (Int32, any IOReadinessHandler) -> Void
    let removeAndClose: (Int32, @escaping () -> Void) -> Void
    var started = 0
    var handled = 0
    var crossed = 0
    /// How many of its sockets are not closed yet.
    private(set) var unclosed = 0

    init(total: Int, inFlight: Int, done: @escaping ((handled: Int, crossed: Int)) -> Void,
         register: @escaping (Int32, any IOReadinessHandler) -> Void,
         removeAndClose: @escaping (Int32, @escaping () -> Void) -> Void) {
        self.total = total
        self.inFlight = inFlight
        self.done = done
        self.register = register
        self.removeAndClose = removeAndClose
    }

    func start() {
        for _ in 0..<inFlight { startOne() }
    }

    private func startOne() {
        guard started < total else { return }
        let index = started
        started += 1
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &pair) == 0 else {
            crossed += 1
            return
        }
        let (fd, peer) = (pair[0], pair[1])
        var isLive = true
        unclosed += 1
        let handler = ReadinessLog { [self] readiness in
            guard isLive, readiness.fd == fd else { crossed += 1; return }
            var byte: UInt8 = 0
            let count = read(fd, &byte, 1)
            if count == -1 && errno == EAGAIN { return }
            if count != 1 || byte != UInt8(truncatingIfNeeded: index) { crossed += 1 }
            isLive = false
            removeAndClose(fd) { [self] in
                close(peer)
                unclosed -= 1
            }
            handled += 1
            if handled == total { done((handled, crossed)) } else { startOne() }
        }
        register(fd, handler)
        var byte = UInt8(truncatingIfNeeded: index)
        _ = write(peer, &byte, 1)
    }
}

/// Runs `onEvent` for each readiness it is given (on its worker's queue), hence `@unchecked Sendable`.
final class ReadinessLog: IOReadinessHandler, @unchecked Sendable {
    private let onEvent: (IOReadiness) -> Void

    init(_ onEvent: @escaping (IOReadiness) -> Void) { self.onEvent = onEvent }

    func handle(_ readiness: IOReadiness) { onEvent(readiness) }
}
