import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import Testing
@testable import WhiskerSockets

/// The end of a connection's input is reported to its read handler once. Readiness is
/// level-triggered and the end stays readable: before, a handler that returned on it without
/// closing was called again and again, a worker spinning on one core for as long as the
/// connection lived (three such connections, left open by tests, once starved the whole library
/// test run until it hung).
@Suite(.timeLimit(.minutes(1))) struct EndOfInputTests {
    /// The attack's shape: the peer ends (a FIN, or a reset) and the handler does not close. It is
    /// called once; the worker then gets 50 chances to call it again (a round trip through its
    /// queue each, a poll or more between them) and takes none.
    @Test(arguments: IOBackend.allForTests, [false, true])
    func anEndTheHandlerLeavesOpen_IsReportedOnce(backend: IOBackend, reset: Bool) async throws {
        let (client, connection) = try await connectedPair(backend: backend)
        let calls = Atomic<Int>(0)
        let results = AsyncStream.makeStream(of: String.self)
        connection.run { connection in
            var buffer = ReadBuffer()
            connection.startReading {
                calls.add(1, ordering: .relaxed)
                do {
                    results.continuation.yield("\(try connection.read(into: &buffer))")
                } catch {
                    results.continuation.yield("error")
                }
            }
        }
        if reset {
            var zero = linger(l_onoff: 1, l_linger: 0)
            setsockopt(client, SOL_SOCKET, SO_LINGER, &zero, socklen_t(MemoryLayout<linger>.size))
        }
        close(client)
        var iterator = results.stream.makeAsyncIterator()
        #expect(await iterator.next() == (reset ? "error" : "endOfStream"))
        for _ in 0..<50 { await roundTrip(connection) }
        #expect(calls.load(ordering: .relaxed) == 1, "the end of the input was reported again")
        connection.run { $0.close() }
    }

    /// The legitimate traffic of that shape: a client that sends its request and shuts its write
    /// side (a half-close, as `curl --data @file` over some proxies) still gets the answer the
    /// server writes after it read the end.
    @Test(arguments: IOBackend.allForTests) func aHalfClosedPeer_StillGetsTheAnswerWrittenAfterTheEnd(backend: IOBackend) async throws {
        let (client, bound) = try await connectedPair(backend: backend)
        defer { close(client) }
        bound.run { connection in
            var buffer = ReadBuffer()
            var request: [UInt8] = []
            connection.startReading {
                switch try? connection.read(into: &buffer) {
                case .bytes?:
                    request += buffer.readBytes(buffer.readableBytes)
                case .endOfStream?:
                    // Answer later, outside the read turn, as a handler's task would.
                    let answer = "got \(request.count) bytes"
                    bound.run { connection in
                        connection.write(ArraySlice(answer.utf8)) { _ in connection.closeAfterFlush(linger: .seconds(1)) }
                    }
                case .wouldBlock?, nil:
                    break
                }
            }
        }
        _ = Array("request".utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
        shutdown(client, Int32(SHUT_WR))
        #expect(await readAll(client) == Array("got 7 bytes".utf8))
    }

    /// Waits until the connection's queue ran a job submitted now.
    private func roundTrip(_ connection: QueueBound<SocketConnection>) async {
        await withCheckedContinuation { continuation in connection.run { _ in continuation.resume() } }
    }
}
