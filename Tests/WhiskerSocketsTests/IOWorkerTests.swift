import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import WhiskerSockets

/// The worker's epoll set as connections come and go: a closed connection leaves it (before its
/// descriptor is closed), a peer that resets while reading is paused is noticed, and connections
/// are handed out in turn.
@Suite struct IOWorkerTests {
    @Test func closedConnection_LeavesTheEpollSet() async throws {
        let (client, connection) = try await connectedPair()
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
    @Test(.timeLimit(.minutes(1))) func peerReset_WhileReadingIsPaused_ClosesTheConnection() async throws {
        let (client, connection) = try await connectedPair()
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
}
