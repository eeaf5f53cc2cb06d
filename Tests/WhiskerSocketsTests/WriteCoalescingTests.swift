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

/// What a read handler writes leaves in one `sendmsg` when it returns (a read turn), counted in
/// system calls on a real socket; a write outside a turn leaves at once.
@Suite(.timeLimit(.minutes(1))) struct WriteCoalescingTests {
    /// Starts `connection` reading: each readable event reads once, then `answer` runs.
    private func serve(_ connection: QueueBound<SocketConnection>, answer: @escaping @Sendable (SocketConnection) -> Void) {
        connection.run { connection in
            var buffer = ReadBuffer()
            connection.startReading {
                guard case .bytes? = try? connection.read(into: &buffer) else { return }
                buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
                answer(connection)
            }
        }
    }

    private func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { LibC.send(fd, $0.baseAddress, $0.count, noSignalSendFlags) } == bytes.count)
    }

    private func counts(_ connection: QueueBound<SocketConnection>) async -> SystemCallCounts {
        await withCheckedContinuation { continuation in connection.run { continuation.resume(returning: $0.systemCalls) } }
    }

    @Test(arguments: IOBackend.allForTests) func sixteenAnswersToOneRead_LeaveInOneSendmsg_EachCompletedAtOnce(backend: IOBackend) async throws {
        let (client, connection) = try await connectedPair(backend: backend)
        defer { close(client) }
        let completed = AsyncStream.makeStream(of: Int.self)
        serve(connection) { connection in
            var done = 0
            for index in 0..<16 {
                connection.write(ArraySlice("answer \(index)\n".utf8)) { error in if error == nil { done += 1 } }
            }
            completed.continuation.yield(done)
        }
        send(client, "sixteen requests")
        var iterator = completed.stream.makeAsyncIterator()
        #expect(await iterator.next() == 16, "a write in a turn is accepted at once, so the next answer can follow")
        let expected = (0..<16).map { "answer \($0)\n" }.joined()
        #expect(String(decoding: await readAll(client, upTo: expected.utf8.count), as: UTF8.self) == expected)
        #expect(await counts(connection) == SystemCallCounts(reads: 1, writes: 1))
    }

    @Test(arguments: IOBackend.allForTests) func writeOutsideATurn_LeavesAtOnce(backend: IOBackend) async throws {
        let (client, connection) = try await connectedPair(backend: backend)
        defer { close(client) }
        connection.run { connection in
            connection.write(ArraySlice("one".utf8))
            connection.write(ArraySlice("two".utf8))
        }
        #expect(await readAll(client, upTo: 6) == Array("onetwo".utf8))
        #expect(await counts(connection).writes == 2, "no turn to wait for: each flushing write is a sendmsg")
    }

    @Test(arguments: IOBackend.allForTests) func aTurnPastItsBudget_FlushesThenAndThere_AndWaitsForTheKernel(backend: IOBackend) async throws {
        let (client, connection) = try await connectedPair(backend: backend)
        defer { close(client) }
        let piece = [UInt8](repeating: 0x61, count: SocketConnection.turnBudget / 2 + 1)
        let inTurn = AsyncStream.makeStream(of: (firstCompleted: Bool, writes: Int).self)
        serve(connection) { connection in
            var firstCompleted = false
            connection.write(piece[...]) { _ in firstCompleted = true }
            let completedBeforeTheSecond = firstCompleted
            connection.write(piece[...])
            inTurn.continuation.yield((completedBeforeTheSecond, connection.systemCalls.writes))
        }
        send(client, "go")
        var iterator = inTurn.stream.makeAsyncIterator()
        let seen = try #require(await iterator.next())
        #expect(seen.firstCompleted, "within the budget: accepted at once")
        #expect(seen.writes == 1, "past the budget the turn's bytes left before the turn ended")
        #expect(await readAll(client, upTo: 2 * piece.count).count == 2 * piece.count)
    }

    @Test(arguments: IOBackend.allForTests) func closeInATurn_StillSendsWhatTheTurnWrote(backend: IOBackend) async throws {
        let (client, connection) = try await connectedPair(backend: backend)
        defer { close(client) }
        serve(connection) { connection in
            connection.write(ArraySlice("last words".utf8))
            connection.close()
        }
        send(client, "bye")
        #expect(await readAll(client) == Array("last words".utf8))
    }

    @Test(arguments: IOBackend.allForTests) func sendmsgGathersUpToSixtyFourBuffers(backend: IOBackend) async throws {
        let (client, connection) = try await connectedPair(backend: backend)
        defer { close(client) }
        serve(connection) { connection in
            for _ in 0..<100 { connection.write(ArraySlice("x".utf8)) }
        }
        send(client, "go")
        #expect(await readAll(client, upTo: 100).count == 100)
        #expect(await counts(connection).writes == 2, "64 buffers, then the other 36")
    }
}
