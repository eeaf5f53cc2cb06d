import Synchronization

/// A request body that streams from the socket as it is read, with backpressure.
///
/// Iterate it once. The server reads at most ``WhiskerServer/Limits/requestBodyBufferSize`` bytes
/// ahead of the reader; then it stops reading the socket, and TCP slows the client down. The first
/// read sends `100 Continue` to a client that asked for it. A client that disconnects, or a body
/// that breaks the framing or the size limit, ends the iteration with an error.
///
///     var received = 0
///     for try await chunk in body { received += chunk.count }
public final class RequestBody: AsyncSequence, Sendable {
    public typealias Element = ArraySlice<UInt8>
    public typealias Failure = any Error

    /// The `Content-Length` of the body, or `nil` for a chunked body.
    public let length: Int64?
    let channel: RequestBodyChannel

    init(length: Int64?, channel: RequestBodyChannel) {
        self.length = length
        self.channel = channel
    }

    /// Creates a body holding `bytes`, for tests and in-memory use.
    public convenience init(bytes: some Collection<UInt8>) {
        let channel = RequestBodyChannel(highWatermark: Int.max, onDemand: {})
        if !bytes.isEmpty { _ = channel.push(ArraySlice(bytes)) }
        channel.finish(error: nil)
        self.init(length: Int64(bytes.count), channel: channel)
    }

    /// Reads the body's chunks in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let channel: RequestBodyChannel
        let isFirstIterator: Bool

        public mutating func next() async throws -> ArraySlice<UInt8>? {
            guard isFirstIterator else { throw RequestBodyError.iteratedTwice }
            return try await channel.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(channel: channel, isFirstIterator: channel.claimIterator())
    }
}

/// Why reading a request body failed.
public struct RequestBodyError: Error, CustomStringConvertible, Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case iteratedTwice
        case connectionClosed
        case responseAlreadySent
        case rejected(String)
    }

    let kind: Kind

    /// The body was iterated a second time; it streams from the socket and can be read once.
    public static let iteratedTwice = RequestBodyError(kind: .iteratedTwice)
    /// The client went away before the body was complete.
    public static let connectionClosed = RequestBodyError(kind: .connectionClosed)

    /// The handler's response was sent before it read the whole body; the rest is discarded.
    public static let responseAlreadySent = RequestBodyError(kind: .responseAlreadySent)

    package static func rejected(_ rejection: HTTPRejection) -> Self { .init(kind: .rejected(rejection.description)) }

    public var description: String {
        switch kind {
        case .iteratedTwice: "the request body can be iterated only once"
        case .connectionClosed: "the client closed the connection before the request body was complete"
        case .responseAlreadySent: "the response was sent before the request body was read; the rest is discarded"
        case .rejected(let reason): "the request body was rejected: \(reason)"
        }
    }
}

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

    package init(highWatermark: Int, onDemand: @escaping @Sendable () -> Void, onConsume: (@Sendable (Int) -> Void)? = nil) {
        self.highWatermark = highWatermark
        self.onDemand = onDemand
        self.onConsume = onConsume
    }

    /// Whether the consumer has asked for the body (and so `100 Continue` may be sent).
    var isDemanded: Bool { state.withLock { $0.demanded } }

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
