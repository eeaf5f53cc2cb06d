public import HTTPTypes

/// A response: status and header fields, and a body.
///
///     Response(status: .ok, headerFields: [.contentType: "text/plain"], body: .init(string: "hi\n"))
///
/// The server adds `Date`, `Content-Length` or `Transfer-Encoding`, and `Connection` itself;
/// any of those the handler set are replaced, so they are never sent twice.
public struct Response: Sendable {
    /// Status and header fields.
    public var head: HTTPResponse
    /// The body.
    public var body: ResponseBody

    /// Creates a response.
    /// - Parameters:
    ///   - head: The status and header fields.
    ///   - body: The body; empty by default.
    public init(head: HTTPResponse, body: ResponseBody = .empty) {
        self.head = head
        self.body = body
    }

    /// Creates a response from a status, header fields and a body.
    /// - Parameters:
    ///   - status: The status.
    ///   - headerFields: The header fields.
    ///   - body: The body; empty by default.
    public init(status: HTTPResponse.Status, headerFields: HTTPFields = [:], body: ResponseBody = .empty) {
        self.init(head: HTTPResponse(status: status, headerFields: headerFields), body: body)
    }
}

/// A response body: nothing, bytes in memory, or a stream written with backpressure.
public struct ResponseBody: Sendable {
    package enum Storage: Sendable {
        case empty
        case bytes(ArraySlice<UInt8>)
        case stream(length: Int64?, @Sendable (ResponseBodyWriter) async throws -> Void)
        /// No body: the `101 Switching Protocols` of an upgrade, and the protocol the connection
        /// continues in (WhiskerCore's `ProtocolSwitch`, boxed: this layer does not know it).
        case switchingProtocols(any AnyObject & Sendable)
    }

    package let storage: Storage

    /// No body (`Content-Length: 0` where a body is allowed).
    public static let empty = ResponseBody(storage: .empty)

    package init(storage: Storage) { self.storage = storage }

    /// A body of bytes already in memory, sent with `Content-Length`.
    /// - Parameter bytes: The bytes.
    public init(bytes: some Collection<UInt8>) {
        storage = .bytes(ArraySlice(bytes))
    }

    /// A UTF-8 text body, sent with `Content-Length`.
    /// - Parameter string: The text.
    public init(string: String) {
        storage = .bytes(ArraySlice(string.utf8))
    }

    /// A streamed body. The server sends the head first, then calls `write`, whose every
    /// `writer.write(_:)` returns once the bytes are in the kernel: a slow client slows the
    /// producer instead of filling memory.
    ///
    ///     ResponseBody(length: nil) { writer in
    ///         for try await chunk in source { try await writer.write(chunk) }
    ///     }
    ///
    /// - Parameters:
    ///   - length: The exact byte count, sent as `Content-Length`; `nil` sends `Transfer-Encoding:
    ///     chunked` (HTTP/1.1) or closes the connection at the end (HTTP/1.0). Writing a different
    ///     number of bytes than a known length ends the connection.
    ///   - write: Writes the body; throwing ends the connection.
    public init(length: Int64?, _ write: @escaping @Sendable (ResponseBodyWriter) async throws -> Void) {
        storage = .stream(length: length, write)
    }
}

extension Response {
    /// The body of a response the server makes itself (404, 413, a preflight, a health check),
    /// which is in memory or empty; never a stream.
    package var localBody: ArraySlice<UInt8> {
        switch body.storage {
        case .bytes(let bytes): return bytes
        case .empty, .switchingProtocols: return []
        case .stream:
            assertionFailure("a response the server makes itself has its body in memory")
            return []
        }
    }
}
