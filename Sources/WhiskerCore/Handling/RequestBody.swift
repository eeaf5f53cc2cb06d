import HTTPTypes

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

    /// The `Content-Length` of the body, or `nil` for a chunked body (and for one the server
    /// decodes as it is read: its decoded length is not known before).
    public let length: Int64?
    let channel: RequestBodyChannel
    /// The refusal the connection answered for this body (past a limit, too slow, not decodable),
    /// whether or not the handler read far enough to see it.
    var rejection: HTTPRejection? { (channel.failure as? RequestBodyError)?.rejection }
    /// The most bytes the handler may read (its route's limit), or `nil` for no limit.
    let limit: Int64?
    /// Makes the decoder of a body that arrived coded (`Content-Encoding`), with the bound on
    /// its expansion; `nil` for a body read as it came.
    let decoding: Decoding?

    /// A coded body's decoder, made when the body is first iterated.
    struct Decoding: Sendable {
        let makeDecoder: @Sendable () -> (any RequestBodyDecoder)?
        let maxRatio: Int?
    }

    init(length: Int64?, channel: RequestBodyChannel, limit: Int64? = nil, decoding: Decoding? = nil) {
        self.length = length
        self.channel = channel
        self.limit = limit
        self.decoding = decoding
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
        let limit: Int64?
        let decoder: (any RequestBodyDecoder)?
        let maxRatio: Int?
        /// Bytes given to the reader (decoded), and taken from the channel (coded).
        var given: Int64 = 0
        var taken: Int64 = 0
        var isInputComplete = false

        public mutating func next() async throws -> ArraySlice<UInt8>? {
            guard isFirstIterator else { throw RequestBodyError.iteratedTwice }
            guard let decoder else {
                guard let chunk = try await channel.next() else { return nil }
                try account(chunk.count)
                return chunk
            }
            while true {
                let piece: ArraySlice<UInt8>?
                do {
                    piece = try decoder.output(upTo: Self.decodedPieceSize)
                } catch {
                    throw reject(error as? HTTPRejection ?? HTTPRejection(.badRequest, "the request body does not decode: \(error)"))
                }
                if let piece, !piece.isEmpty {
                    try account(piece.count)
                    return piece
                }
                if isInputComplete {
                    guard decoder.isComplete() else { throw reject(HTTPRejection(.badRequest, "the coded request body ends before its coding does")) }
                    return nil
                }
                if let chunk = try await channel.next() {
                    taken += Int64(chunk.count)
                    decoder.feed(chunk)
                } else {
                    isInputComplete = true
                }
            }
        }

        /// The most decoded bytes given at once: what a bomb can make the server hold.
        static let decodedPieceSize = 64 * 1024
        /// Decoded bytes within which the expansion ratio is not checked (small bodies of repeated
        /// bytes compress far better than any bound a large one should get).
        static let ratioAllowance: Int64 = 1 << 20

        /// Counts `count` more bytes for the reader; past the limit or the ratio, refuses the body.
        private mutating func account(_ count: Int) throws {
            given += Int64(count)
            if let limit, given > limit {
                throw reject(HTTPRejection(.contentTooLarge, "request body is larger than \(limit) bytes\(decoder == nil ? "" : " decoded")"))
            }
            if let maxRatio, given > Self.ratioAllowance, given > taken * Int64(maxRatio) {
                throw reject(HTTPRejection(.contentTooLarge, "request body decodes to more than \(maxRatio) times its coded size"))
            }
        }

        /// Has the connection answer `rejection` (if the response has not started) and returns
        /// the error the reader gets.
        private func reject(_ rejection: HTTPRejection) -> RequestBodyError {
            channel.reject(rejection)
            return .rejected(rejection)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(channel: channel, isFirstIterator: channel.claimIterator(), limit: limit,
                      decoder: decoding?.makeDecoder(), maxRatio: decoding?.maxRatio)
    }
}

/// Why reading a request body failed.
public struct RequestBodyError: Error, CustomStringConvertible, Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case iteratedTwice
        case connectionClosed
        case responseAlreadySent
        case rejected(HTTPRejection)
    }

    let kind: Kind

    /// The body was iterated a second time; it streams from the socket and can be read once.
    public static let iteratedTwice = RequestBodyError(kind: .iteratedTwice)
    /// The client went away before the body was complete.
    public static let connectionClosed = RequestBodyError(kind: .connectionClosed)

    /// The handler's response was sent before it read the whole body; the rest is discarded.
    public static let responseAlreadySent = RequestBodyError(kind: .responseAlreadySent)

    package static func rejected(_ rejection: HTTPRejection) -> Self { .init(kind: .rejected(rejection)) }

    /// The answer the connection gave for the request when it refused its body (413 past a
    /// limit, 408 when it stalled, 400 when it does not decode), or `nil` for other failures.
    public var rejection: HTTPRejection? {
        if case .rejected(let rejection) = kind { return rejection }
        return nil
    }

    public var description: String {
        switch kind {
        case .iteratedTwice: "the request body can be iterated only once"
        case .connectionClosed: "the client closed the connection before the request body was complete"
        case .responseAlreadySent: "the response was sent before the request body was read; the rest is discarded"
        case .rejected(let rejection): "the request body was rejected: \(rejection)"
        }
    }
}
