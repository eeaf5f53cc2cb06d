public import HTTPTypes
public import WhiskerCore
import WhiskerSockets

/// One WebSocket connection, as its handler sees it: the messages the peer sends, as an
/// `AsyncSequence`, and ways to send, ping and close.
///
/// ```swift
/// try server.webSocket("/ws/echo") { socket in
///     for try await message in socket.messages {
///         try await socket.send(message)
///     }
/// }
/// ```
///
/// The sequence ends when the connection closes (the peer's close frame, ours, a broken rule, the
/// server's shutdown, the idle timeout); ``closeCode`` then says why. When the handler returns,
/// the connection closes with 1000 (normal closure); when it throws, with 1011 (internal error).
///
/// Backpressure both ways: the peer's messages are read only as fast as the handler takes them
/// (at most ``WebSocketLimits/maxBufferedMessages`` wait), and ``send(_:)`` returns once the frame
/// is in the kernel, so a peer that does not read holds the handler back instead of filling memory.
///
/// Every member may be called from any task: each one runs on the connection's queue.
public final class WebSocket: Sendable {
    private let connection: QueueBound<WebSocketConnection>
    /// The upgrade request's head (path, query, fields such as cookies or `Sec-WebSocket-Protocol`).
    public let request: HTTPRequest
    /// The upgrade request's context (peer, TLS, request id), as its route handler saw it.
    public let context: RequestContext?

    init(_ connection: WebSocketConnection, request: HTTPRequest, context: RequestContext?) {
        self.connection = QueueBound(connection, queue: connection.connection.stream.queue)
        self.request = request
        self.context = context
    }

    /// The peer's messages, whole (fragments joined), in order. Iterate it from one task at a time.
    public var messages: Messages { Messages(socket: self) }

    /// Sends `message` as one frame, and returns once it is in the kernel.
    /// - Parameter message: Text or binary.
    /// - Throws: ``WebSocketError`` when the connection is closing or closed.
    public func send(_ message: WebSocketMessage) async throws(WebSocketError) {
        let error: WebSocketError? = await withCheckedContinuation { continuation in
            connection.run { $0.send(message) { continuation.resume(returning: $0) } }
        }
        if let error { throw error }
    }

    /// Sends `text` as a text message.
    /// - Parameter text: The message.
    /// - Throws: ``WebSocketError`` when the connection is closing or closed.
    public func send(text: String) async throws(WebSocketError) { try await send(.text(text)) }

    /// Sends a ping (the peer answers with a pong, which is not delivered as a message).
    /// - Parameter payload: At most 125 bytes; more are cut off.
    /// - Throws: ``WebSocketError`` when the connection is closing or closed.
    public func ping(_ payload: [UInt8] = []) async throws(WebSocketError) {
        let error: WebSocketError? = await withCheckedContinuation { continuation in
            connection.run { $0.ping(payload) { continuation.resume(returning: $0) } }
        }
        if let error { throw error }
    }

    /// Starts the close handshake: sends a close frame with `code` and `reason`, and ends
    /// ``messages``; the TCP connection closes when the peer answers (or after
    /// ``WebSocketLimits/closeTimeout``). Does nothing if a close is already under way.
    /// - Parameters:
    ///   - code: A code valid on the wire (``WebSocketCloseCode/isValidOnWire``): 1000 by default.
    ///   - reason: A short text (cut to fit the 125 bytes of a control frame).
    public func close(_ code: WebSocketCloseCode = .normalClosure, reason: String = "") async {
        let code = code.isValidOnWire ? code : .internalError
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            connection.run {
                $0.sendClose(code, reason: reason)
                continuation.resume()
            }
        }
    }

    /// Why the connection closed, once it did (or is closing): the peer's code, ours, 1005 for a
    /// close frame without one, 1006 for a connection that ended without a close frame.
    public var closeCode: WebSocketCloseCode? {
        get async {
            await withCheckedContinuation { continuation in
                connection.run { continuation.resume(returning: $0.currentCloseCode) }
            }
        }
    }

    /// For tests: waits until the connection stops reading because the handler has not taken
    /// its messages, and returns how many wait (``WebSocketLimits/maxBufferedMessages``), or -1
    /// when the connection closed first.
    func readingPaused() async -> Int {
        await withCheckedContinuation { continuation in
            connection.run { $0.whenReadingPauses(continuation) }
        }
    }

    fileprivate func next() async -> WebSocketMessage? {
        await withCheckedContinuation { continuation in
            connection.run { $0.nextMessage(continuation) }
        }
    }

    /// The peer's messages: an `AsyncSequence` that ends when the connection closes.
    public struct Messages: AsyncSequence, Sendable {
        /// A message.
        public typealias Element = WebSocketMessage
        let socket: WebSocket

        /// The iterator.
        public func makeAsyncIterator() -> Iterator { Iterator(socket: socket) }

        /// Takes the messages one by one, each as the handler asks for it.
        public struct Iterator: AsyncIteratorProtocol {
            let socket: WebSocket

            /// The next message, or `nil` once the connection is closing or closed.
            public mutating func next() async throws -> WebSocketMessage? {
                await socket.next()
            }
        }
    }
}

/// Why a ``WebSocket`` could not send: the connection is closing or closed.
public struct WebSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public struct Kind: Sendable, Equatable {
        let name: String
        /// The connection is closing (a close frame went) or closed.
        public static let closed = Kind(name: "closed")
    }

    /// What went wrong.
    public let kind: Kind
    /// Why the connection closed, when known.
    public let closeCode: WebSocketCloseCode?

    init(_ kind: Kind, _ closeCode: WebSocketCloseCode?) {
        self.kind = kind
        self.closeCode = closeCode
    }

    /// The kind and the close code.
    public var description: String {
        "WebSocket \(kind.name)" + (closeCode.map { " (\($0))" } ?? "")
    }
}
