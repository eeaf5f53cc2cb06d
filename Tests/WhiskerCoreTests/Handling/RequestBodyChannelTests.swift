import Synchronization
import Testing
@testable import WhiskerCore

/// The bounded buffer between the connection (producer) and the handler (consumer) of a request
/// body. Synchronisation is by events (the `onDemand` callback as an `AsyncStream`), never sleeps.
@Suite struct RequestBodyChannelTests {
    @Test func chunks_ArriveInOrder() async throws {
        let channel = RequestBodyChannel(highWatermark: 1024, onDemand: {})
        #expect(channel.push(bytes("one")))
        #expect(channel.push(bytes("two")))
        #expect(channel.push(bytes("three")))
        channel.finish(error: nil)
        #expect(try await readAll(channel) == ["one", "two", "three"])
    }

    @Test func push_ReturnsFalseAtTheHighWatermark() {
        let channel = RequestBodyChannel(highWatermark: 10, onDemand: {})
        #expect(channel.push(bytes("1234")))
        #expect(channel.push(bytes("5678")))
        #expect(!channel.push(bytes("90")))  // 10 bytes buffered: the producer should pause
    }

    @Test func push_OfOneChunkLargerThanTheWatermark_ReturnsFalse() {
        let channel = RequestBodyChannel(highWatermark: 4, onDemand: {})
        #expect(!channel.push(bytes("too large")))
    }

    @Test func onDemand_FiresOnTheFirstNextOnly() async throws {
        let demand = DemandSignal()
        let channel = RequestBodyChannel(highWatermark: 1024, onDemand: { demand.fire() })
        #expect(channel.push(bytes("a")))
        #expect(channel.push(bytes("b")))
        #expect(demand.calls == 0)
        #expect(!channel.isDemanded)
        #expect(try await channel.next() == bytes("a"))
        #expect(demand.calls == 1)  // this is when `100 Continue` may go out
        #expect(channel.isDemanded)
        #expect(try await channel.next() == bytes("b"))
        #expect(demand.calls == 1)  // the producer was never paused, so there is nothing to resume
    }

    @Test func onDemand_FiresAgainWhenAPausedProducersBufferDrainsToHalf() async throws {
        let demand = DemandSignal()
        let channel = RequestBodyChannel(highWatermark: 8, onDemand: { demand.fire() })
        #expect(channel.push(bytes("00")))
        #expect(try await channel.next() == bytes("00"))
        #expect(demand.calls == 1)

        #expect(channel.push(bytes("11")))
        #expect(channel.push(bytes("22")))
        #expect(channel.push(bytes("33")))
        #expect(!channel.push(bytes("44")))  // 8 of 8 bytes: paused
        #expect(try await channel.next() == bytes("11"))  // 6 left, above half
        #expect(demand.calls == 1)
        #expect(try await channel.next() == bytes("22"))  // 4 left: half, so read the socket again
        #expect(demand.calls == 2)
        #expect(try await channel.next() == bytes("33"))
        #expect(demand.calls == 2)  // resumed once, not on every read
        #expect(channel.push(bytes("55")))
    }

    @Test func finishWithoutError_EndsTheIterationAfterTheBufferedChunks() async throws {
        let channel = RequestBodyChannel(highWatermark: 1024, onDemand: {})
        #expect(channel.push(bytes("last")))
        channel.finish(error: nil)
        #expect(try await channel.next() == bytes("last"))
        #expect(try await channel.next() == nil)
        #expect(try await channel.next() == nil)
    }

    @Test func finishWithError_ThrowsToTheReaderAfterTheBufferedChunks() async throws {
        let channel = RequestBodyChannel(highWatermark: 1024, onDemand: {})
        #expect(channel.push(bytes("partial")))
        channel.finish(error: TestFailure.clientGone)
        #expect(try await channel.next() == bytes("partial"))
        await #expect(throws: TestFailure.clientGone) { try await channel.next() }
    }

    @Test func finish_OnlyTheFirstCountsAndLaterPushesAreDropped() async throws {
        let channel = RequestBodyChannel(highWatermark: 1024, onDemand: {})
        channel.finish(error: TestFailure.clientGone)
        channel.finish(error: nil)
        _ = channel.push(bytes("late"))
        await #expect(throws: TestFailure.clientGone) { try await channel.next() }
    }

    @Test func requestBody_IteratedTwice_ThrowsIteratedTwice() async throws {
        let body = RequestBody(bytes: Array("hello".utf8))
        #expect(body.length == 5)
        var received: [UInt8] = []
        for try await chunk in body { received += chunk }
        #expect(received == Array("hello".utf8))
        await #expect(throws: RequestBodyError.iteratedTwice) {
            for try await _ in body {}
        }
    }

    @Test func requestBody_SecondIteratorBeforeTheFirstFinishes_ThrowsIteratedTwice() async throws {
        let body = RequestBody(bytes: Array("hello".utf8))
        var first = body.makeAsyncIterator()
        var second = body.makeAsyncIterator()
        await #expect(throws: RequestBodyError.iteratedTwice) { _ = try await second.next() }
        #expect(try await first.next() == bytes("hello"))
        #expect(try await first.next() == nil)
    }

    @Test func requestBodyOfNoBytes_YieldsNoChunks() async throws {
        let body = RequestBody(bytes: [UInt8]())
        var count = 0
        for try await _ in body { count += 1 }
        #expect(count == 0)
        #expect(body.length == 0)
    }

    @Test func waitingNext_IsResumedByALaterPush() async throws {
        let demand = DemandSignal()
        let channel = RequestBodyChannel(highWatermark: 1024, onDemand: { demand.fire() })
        let reader = Task { try await channel.next() }
        var demands = demand.stream.makeAsyncIterator()
        _ = await demands.next()  // the reader found nothing and is waiting (or about to)
        #expect(channel.push(bytes("late")))
        #expect(try await reader.value == bytes("late"))
    }

    @Test func waitingNext_IsResumedByFinish() async throws {
        let demand = DemandSignal()
        let channel = RequestBodyChannel(highWatermark: 1024, onDemand: { demand.fire() })
        let reader = Task { try await channel.next() }
        var demands = demand.stream.makeAsyncIterator()
        _ = await demands.next()
        channel.finish(error: nil)
        #expect(try await reader.value == nil)
    }

    @Test func waitingNext_IsResumedWithTheFinishError() async throws {
        let demand = DemandSignal()
        let channel = RequestBodyChannel(highWatermark: 1024, onDemand: { demand.fire() })
        let reader = Task { try await channel.next() }
        var demands = demand.stream.makeAsyncIterator()
        _ = await demands.next()
        channel.finish(error: TestFailure.clientGone)
        await #expect(throws: TestFailure.clientGone) { try await reader.value }
    }

    @Test func cancellingAWaitingReader_ThrowsCancellationError() async throws {
        let demand = DemandSignal()
        let channel = RequestBodyChannel(highWatermark: 1024, onDemand: { demand.fire() })
        let reader = Task { try await channel.next() }
        var demands = demand.stream.makeAsyncIterator()
        _ = await demands.next()
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
    }

    @Test func chunksPushedWhileTheReaderIterates_AllArriveInOrder() async throws {
        let demand = DemandSignal()
        let channel = RequestBodyChannel(highWatermark: 16, onDemand: { demand.fire() })
        let reader = Task { try await readAll(channel) }
        var demands = demand.stream.makeAsyncIterator()
        let expected = (0..<200).map { "chunk-\($0)" }
        for chunk in expected {
            // A producer that respects backpressure: after a full push, wait for demand.
            if !channel.push(bytes(chunk)) { _ = await demands.next() }
        }
        channel.finish(error: nil)
        #expect(try await reader.value == expected)
    }
}

// MARK: Helpers

private enum TestFailure: Error, Equatable {
    case clientGone
}

/// Counts `onDemand` calls and lets a test await each one.
private final class DemandSignal: Sendable {
    private let count = Mutex(0)
    let stream: AsyncStream<Int>
    private let continuation: AsyncStream<Int>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    var calls: Int { count.withLock { $0 } }

    func fire() {
        let calls = count.withLock { count in
            count += 1
            return count
        }
        continuation.yield(calls)
    }
}

private func bytes(_ text: String) -> ArraySlice<UInt8> { Array(text.utf8)[...] }

private func readAll(_ channel: RequestBodyChannel) async throws -> [String] {
    var chunks: [String] = []
    while let chunk = try await channel.next() { chunks.append(String(decoding: chunk, as: UTF8.self)) }
    return chunks
}
