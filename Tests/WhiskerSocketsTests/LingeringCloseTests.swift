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

/// `closeAfterFlush` shuts down the write side and reads until the peer closes, so that input the
/// server never read does not turn the close into a reset that destroys the response.
@Suite struct LingeringCloseTests {
    @Test(arguments: IOBackend.allForTests) func peerThatCloses_EndsTheLinger_AndItsDeadlineIsForgotten(backend: IOBackend) async throws {
        let (client, connection) = try await connectedPair(backend: backend)
        defer { close(client) }
        let events = AsyncStream.makeStream(of: String.self)
        connection.run { connection in
            connection.onClose = { events.continuation.yield("closed, deadline pending: \(LingerDeadlines.shared.contains(connection))") }
            connection.write(Array("bye".utf8)[...])
            connection.closeAfterFlush(linger: .seconds(60))
            events.continuation.yield("lingering, deadline pending: \(LingerDeadlines.shared.contains(connection))")
        }
        var iterator = events.stream.makeAsyncIterator()
        #expect(await iterator.next() == "lingering, deadline pending: true", "a peer that has not closed has a deadline")
        #expect(await readAll(client) == Array("bye".utf8), "the response, then end of stream")
        shutdown(client, Int32(SHUT_WR))
        // Closed when the peer closed, not after 60 s, and no pending deadline holds the connection.
        #expect(await iterator.next() == "closed, deadline pending: false")
    }

    @Test(arguments: IOBackend.allForTests) func peerThatNeverCloses_IsClosedAtTheDeadline(backend: IOBackend) async throws {
        let (client, connection) = try await connectedPair(backend: backend)
        defer { close(client) }
        let closed = AsyncStream.makeStream(of: Void.self)
        connection.run { connection in
            connection.onClose = { closed.continuation.yield() }
            connection.write(Array("bye".utf8)[...])
            connection.closeAfterFlush(linger: .milliseconds(100))
        }
        var iterator = closed.stream.makeAsyncIterator()
        #expect(await iterator.next() != nil, "the deadline closes a peer that keeps its side open")
        #expect(await readAll(client) == Array("bye".utf8))
    }

    @Test(arguments: IOBackend.allForTests) func unreadInputFromThePeer_DoesNotResetAwayTheResponse(backend: IOBackend) async throws {
        // The client's small receive buffer keeps most of the response in the server's send queue
        // after the write completed, which is what a reset would throw away.
        let (client, connection) = try await connectedPair(backend: backend, clientReceiveBuffer: 16 * 1024, serverSendBuffer: 512 * 1024)
        defer { close(client) }
        // The peer sent bytes the server never reads (a body it refused, say).
        let junk = [UInt8](repeating: 0x61, count: 10_000)
        #expect(junk.withUnsafeBytes { send(client, $0.baseAddress, $0.count, noSignalSendFlags) } == junk.count)
        let response = [UInt8](repeating: 0x62, count: 300_000)
        let flushed = AsyncStream.makeStream(of: Void.self)
        connection.run { connection in
            connection.write(response[...]) { _ in flushed.continuation.yield() }
            connection.closeAfterFlush(linger: .seconds(5))
        }
        var iterator = flushed.stream.makeAsyncIterator()
        _ = await iterator.next()
        // The whole response and a clean end of stream, not ECONNRESET part way.
        let received = await readAll(client)
        #expect(received.count == response.count)
    }

    @Test(arguments: IOBackend.allForTests) func peerStillUploadingPastTheBudget_IsNotReset_ButClosedAtTheDeadline(backend: IOBackend) async throws {
        // A client still sending the body its answer refused (curl uploading 4 MiB of zstd that
        // named too large a window): the server discards 1 MiB of it, then stops reading. A close
        // at that point would be a reset, and the client's next send would fail before it read
        // the answer (curl then reports the 100 Continue it had, not the 400).
        let (client, connection) = try await connectedPair(backend: backend, serverReceiveBuffer: 64 * 1024)
        defer { close(client) }
        var sendBuffer: Int32 = 64 * 1024
        setsockopt(client, SOL_SOCKET, SO_SNDBUF, &sendBuffer, 4)
        let closed = AsyncStream.makeStream(of: Void.self)
        connection.run { connection in
            connection.onClose = { closed.continuation.yield() }
            connection.write(Array("refused".utf8)[...])
            connection.closeAfterFlush(linger: .seconds(10))
        }
        // The server reads its 1 MiB however late a busy host runs its worker; past that, a
        // second without progress means it stopped. The deadline comes well after either.
        let upload = await sendUntilBlocked(client, upTo: 16 << 20, stall: .seconds(1), once: 1 << 20)
        #expect(upload.error == nil, "the sends block, they are not reset (errno \(upload.error ?? 0))")
        #expect(upload.sent >= 1 << 20, "the server read and dropped its 1 MiB")
        #expect(upload.sent < 2 << 20, "then took no more than its buffers hold: \(upload.sent) bytes")
        #expect(await readAll(client) == Array("refused".utf8), "the answer, then the end of stream")
        var iterator = closed.stream.makeAsyncIterator()
        // The deadline still ends a peer that keeps the connection full.
        #expect(await iterator.next() != nil)
    }
}

/// A peer that said it is done (`Connection: close`) and sent nothing more is closed without the
/// linger: nothing unread means the close ends in a FIN, never a reset.
@Suite struct CloseWithoutLingerTests {
    @Test(arguments: IOBackend.allForTests) func nothingUnread_ClosesAtOnce_WithTheWholeResponse(backend: IOBackend) async throws {
        let (client, connection) = try await connectedPair(backend: backend)
        defer { close(client) }
        let closed = AsyncStream.makeStream(of: Bool.self)
        connection.run { connection in
            connection.onClose = { closed.continuation.yield(LingerDeadlines.shared.contains(connection)) }
            connection.write(Array("bye".utf8)[...])
            connection.closeAfterFlush(lingeringOnlyForUnreadInput: .seconds(60))
        }
        var iterator = closed.stream.makeAsyncIterator()
        // The client keeps its side open: only a close without the linger ends the connection.
        #expect(await iterator.next() == false, "closed at once, no linger deadline")
        #expect(await readAll(client) == Array("bye".utf8), "the response, then end of stream (no reset)")
    }

    @Test(arguments: IOBackend.allForTests) func unreadInput_StillLingers_UntilThePeerCloses(backend: IOBackend) async throws {
        let (client, connection) = try await connectedPair(backend: backend)
        defer { close(client) }
        let junk = Array("more".utf8)
        #expect(junk.withUnsafeBytes { send(client, $0.baseAddress, $0.count, noSignalSendFlags) } == junk.count)
        let events = AsyncStream.makeStream(of: String.self)
        connection.run { connection in
            connection.onClose = { events.continuation.yield("closed") }
            connection.write(Array("bye".utf8)[...])
            connection.closeAfterFlush(lingeringOnlyForUnreadInput: .seconds(60))
            events.continuation.yield("lingering: \(LingerDeadlines.shared.contains(connection))")
        }
        var iterator = events.stream.makeAsyncIterator()
        #expect(await iterator.next() == "lingering: true", "bytes the server never read: it lingers")
        #expect(await readAll(client) == Array("bye".utf8))
        shutdown(client, Int32(SHUT_WR))
        #expect(await iterator.next() == "closed")
    }
}
