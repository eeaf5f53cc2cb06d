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
