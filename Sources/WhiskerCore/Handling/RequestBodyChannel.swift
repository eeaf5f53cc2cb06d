import Synchronization

/// The bounded buffer between the connection's queue (producer) and the handler (consumer).
package final class RequestBodyChannel: Sendable {
    private struct State {
        var chunks: [ArraySlice<UInt8>] = []
        var head = 0
        var bufferedBytes = 0
        var finished = false
        var error: (any Error)?
        var waiter: CheckedContinuation<ArraySlice<UInt8>?, any Error>?
        var producerPaused = false
        var iteratorClaimed = false
        var demanded = false

        mutating func pop() -> ArraySlice<UInt8>? {
            guard head < chunks.count else { return nil }
            let chunk = chunks[head]
            chunks[head] = []
            head += 1
            bufferedBytes -= chunk.count
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            }
            return chunk
        }
    }

    private let state = Mutex(State())
    private let highWatermark: Int
    /// Called (off the connection's queue) on the first read and whenever a paused producer may
    /// read again; the connection hops to its queue to act on it.
    private let onDemand: @Sendable () -> Void
    /// Called with each chunk's size as the consumer takes it (HTTP/2 acknowledges bytes to the
    /// peer only then, so flow control reaches the client).
    private let onConsume: (@Sendable (Int) -> Void)?
    /// Called (off the connection's queue) when the reader refuses the body (past its route's
    /// limit, a coding that does not decode): the connection answers the rejection.
    private let onReject: (@Sendable (HTTPRejection) -> Void)?

    package init(
        highWatermark: Int, onDemand: @escaping @Sendable () -> Void, onConsume: (@Sendable (Int) -> Void)? = nil,
        onReject: (@Sendable (HTTPRejection) -> Void)? = nil
    ) {
        self.highWatermark = highWatermark
        self.onDemand = onDemand
        self.onConsume = onConsume
        self.onReject = onReject
    }

    /// The reader refuses the body: the connection answers `rejection`.
    func reject(_ rejection: HTTPRejection) { onReject?(rejection) }

    /// Whether the consumer has asked for the body (and so `100 Continue` may be sent).
    var isDemanded: Bool { state.withLock { $0.demanded } }

    /// The error the body ended with, if it ended with one.
    var failure: (any Error)? { state.withLock { $0.finished ? $0.error : nil } }

    func claimIterator() -> Bool {
        state.withLock { state in
            defer { state.iteratorClaimed = true }
            return !state.iteratorClaimed
        }
    }

    /// Adds a chunk. Returns false when the buffer is full: the producer should pause until `onDemand`.
    package func push(_ chunk: ArraySlice<UInt8>) -> Bool {
        let (waiter, full): (CheckedContinuation<ArraySlice<UInt8>?, any Error>?, Bool) = state.withLock { state in
            guard !state.finished else { return (nil, false) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, false)
            }
            state.chunks.append(chunk)
            state.bufferedBytes += chunk.count
            let full = state.bufferedBytes >= highWatermark
            if full { state.producerPaused = true }
            return (nil, full)
        }
        if let waiter {
            onConsume?(chunk.count)
            waiter.resume(returning: chunk)
        }
        return !full
    }

    /// Ends the body: `nil` for a complete body, or the error the reader will see.
    package func finish(error: (any Error)?) {
        let waiter: CheckedContinuation<ArraySlice<UInt8>?, any Error>? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            state.error = error
            defer { state.waiter = nil }
            return state.waiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    func next() async throws -> ArraySlice<UInt8>? {
        enum Step { case chunk(ArraySlice<UInt8>?), fail(any Error), wait }
        let (step, signal): (Step, Bool) = state.withLock { state in
            var signal = !state.demanded
            state.demanded = true
            if let chunk = state.pop() {
                if state.producerPaused && state.bufferedBytes <= highWatermark / 2 {
                    state.producerPaused = false
                    signal = true
                }
                return (.chunk(chunk), signal)
            }
            if state.finished {
                if let error = state.error { return (.fail(error), signal) }
                return (.chunk(nil), signal)
            }
            if state.producerPaused {
                state.producerPaused = false
                signal = true
            }
            return (.wait, signal)
        }
        if signal { onDemand() }
        switch step {
        case .chunk(let chunk):
            if let chunk { onConsume?(chunk.count) }
            return chunk
        case .fail(let error): throw error
        case .wait:
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let resumeNow: Result<ArraySlice<UInt8>?, any Error>? = state.withLock { state in
                        if Task.isCancelled { return .failure(CancellationError()) }
                        if let chunk = state.pop() { return .success(chunk) }
                        if state.finished { return state.error.map { .failure($0) } ?? .success(nil) }
                        state.waiter = continuation
                        return nil
                    }
                    if case .success(let chunk?)? = resumeNow { onConsume?(chunk.count) }
                    if let resumeNow { continuation.resume(with: resumeNow) }
                }
            } onCancel: {
                let waiter = state.withLock { state in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume(throwing: CancellationError())
            }
        }
    }
}
