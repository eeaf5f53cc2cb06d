public import HTTPTypes
public import WhiskerSockets

/// A request as a handler sees it.
public struct Request: Sendable {
    /// Method, scheme, authority (`Host`), path and query exactly as received, and header fields.
    public var head: HTTPRequest
    /// The body, or `nil` when the request has none (no `Content-Length` or `Transfer-Encoding`,
    /// or `Content-Length: 0`). Read it once; it streams from the socket as you read.
    public var body: RequestBody?
    /// The matched route's path parameters, still percent-encoded.
    public var pathParameters: PathParameters
    /// The client's address.
    public var peer: SocketAddress

    /// Creates a request (handlers receive them from the server; tests may make their own).
    /// - Parameters:
    ///   - head: The request head.
    ///   - body: The body, or `nil` for none.
    ///   - pathParameters: The path parameters.
    ///   - peer: The client's address.
    public init(head: HTTPRequest, body: RequestBody?, pathParameters: PathParameters = .init(), peer: SocketAddress) {
        self.head = head
        self.body = body
        self.pathParameters = pathParameters
        self.peer = peer
    }
}

/// Handles one request: the unit a ``WhiskerServer`` routes to.
///
/// Throwing before the response is returned sends a 500 and logs the error; a response body that
/// throws while streaming ends the connection (the status was already sent).
public typealias HTTPHandler = @Sendable (Request) async throws -> Response
