import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import WhiskerSockets

/// The worker's epoll set as connections come and go: a closed connection leaves it (before its
/// descriptor is closed), a peer that resets while reading is paused is noticed, and connections
/// are handed out in turn.
@Suite struct IOWorkerTests {
    /// A descriptor number closed and taken again while one batch of events is handled (a
    /// connection accepted on the worker starts inline): the batch's event for the closed socket
    /// must not reach the new one.
    ///
    /// Epoll only: it takes a number back at once (`dup2`) after deregistering it, which the
    /// Dispatch backend rules out by closing the descriptor itself once its sources are cancelled
    /// (see `dispatchSources_ManyConnectionsOpenedAndClosed_NeverCrossTheirEvents`).
    @Test func descriptorReusedWithinABatch_GetsNoneOfTheOldSocketsEvents() async throws {
        let worker = try IOWorker(label: "whisker.reuse-test", backend: .epoll)
        let seen = AsyncStream.makeStream(of: Int.self)
        worker.queue.async {
            var first: [Int32] = [0, 0], second: [Int32] = [0, 0], fresh: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, LibC.streamSocket, 0, &first) == 0)
            #expect(socketpair(AF_UNIX, LibC.streamSocket, 0, &second) == 0)
            #expect(socketpair(AF_UNIX, LibC.streamSocket, 0, &fresh) == 0)
            // The numbers taken again are far above what other tests' sockets get: with low ones,
            // the close and `dup2` below can swap out a socket of a test running beside this one
            // (the likely cause of a listener's "connect failed: Connection refused" in CI).
            first[0] = movedFarFromOtherTests(first[0])
            second[0] = movedFarFromOtherTests(second[0])
            let newcomer = ReadinessRecorder()
            var swapped = false
            // Whichever of the two is handled first closes the other and gives its number to a
            // fresh socket with nothing to read; the other's event is still in the batch.
            func swapOut(_ fd: Int32) {
                guard !swapped else { return }
                swapped = true
                worker.deregisterAndClose(fd)
                #expect(dup2(fresh[0], fd) == fd)
                try? worker.register(fd, interest: .read, handler: newcomer)
                let descriptors = first + second + fresh
                worker.queue.async {
                    seen.continuation.yield(newcomer.events)
                    for fd in [descriptors[0], descriptors[2]] { worker.deregisterAndClose(fd) }
                    for fd in [descriptors[1], descriptors[3], descriptors[4], descriptors[5]] { close(fd) }
                }
            }
            try? worker.register(first[0], interest: .read, handler: ReadinessRecorder { swapOut(second[0]) })
            try? worker.register(second[0], interest: .read, handler: ReadinessRecorder { swapOut(first[0]) })
            _ = write(first[1], "x", 1)
            _ = write(second[1], "x", 1)
        }
        var iterator = seen.stream.makeAsyncIterator()
        #expect(await iterator.next() == 0, "the old socket's event went to the new one")
    }

    @Test(arguments: IOBackend.allForTests) func closedConnection_LeavesTheEpollSet(backend: IOBackend) async throws {
        let (client, connection) = try await connectedPair(backend: backend)
        defer { close(client) }
        let counts = AsyncStream.makeStream(of: Int.self)
        connection.run { connection in
            connection.startReading {}
            counts.continuation.yield(connection.worker.registeredCount)
            connection.close()
            counts.continuation.yield(connection.worker.registeredCount)
        }
        var iterator = counts.stream.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == 0)
    }

    /// With reading paused the connection asks epoll for nothing, but a reset is still reported
    /// (level-triggered, over and over): the connection closes instead of spinning on it.
    ///
    /// Epoll only: a Dispatch read source suspended while reading is paused reports nothing, a
    /// reset included (there is no "hang-up whatever the interest" as epoll has); that backend
    /// finds the reset at the next read or write, once reading resumes or a response is written.
    @Test(.timeLimit(.minutes(1))) func peerReset_WhileReadingIsPaused_ClosesTheConnection() async throws {
        let (client, connection) = try await connectedPair(backend: .epoll)
        let events = AsyncStream.makeStream(of: String.self)
        connection.run { connection in
            connection.onClose = { events.continuation.yield("closed") }
            connection.startReading { events.continuation.yield("readable") }
            connection.pauseReading()
            events.continuation.yield("paused")
        }
        var iterator = events.stream.makeAsyncIterator()
        #expect(await iterator.next() == "paused")
        var reset = linger(l_onoff: 1, l_linger: 0)
        setsockopt(client, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
        close(client)  // with a zero linger: RST
        #expect(await iterator.next() == "closed", "no readable event while paused; the reset closes it")
    }

    @Test func group_HandsOutItsWorkersInTurn() throws {
        let group = try IOWorkerGroup(count: 3)
        let handedOut = (0..<6).map { _ in ObjectIdentifier(group.next()) }
        #expect(handedOut == (group.workers + group.workers).map(ObjectIdentifier.init))
    }

    /// WHISKER_IO_BACKEND: unset or empty, the platform's; a name, its backend; anything else an
    /// error naming the variable (a worker group, so a server, then refuses to start).
    @Test func theEnvironmentsBackend_IsNamed_OrRefused() throws {
        #expect(try IOBackend.named(inEnvironment: nil) == IOBackend.platformDefault)
        #expect(try IOBackend.named(inEnvironment: "") == IOBackend.platformDefault)
        #expect(try IOBackend.named(inEnvironment: "epoll") == .epoll)
        #expect(try IOBackend.named(inEnvironment: "dispatch") == .dispatchSources)
        let error = #expect(throws: SocketError.self) { try IOBackend.named(inEnvironment: "kqueue") }
        #expect(error?.description == "WHISKER_IO_BACKEND=kqueue: not an I/O backend: use epoll or dispatch")
    }
}

/// Counts the readiness events it is given, and runs `onEvent` for each. Used on its worker's
/// queue only, hence `@unchecked Sendable`.
final class ReadinessRecorder: IOReadinessHandler, @unchecked Sendable {
    private(set) var events = 0
    private let onEvent: () -> Void

    init(_ onEvent: @escaping () -> Void = {}) { self.onEvent = onEvent }

    func handle(_ readiness: IOReadiness) {
        events += 1
        onEvent()
    }
}
