package import HTTPTypes

/// How a response's body is delimited on the wire, decided from the request and the response
/// alone (RFC 9112 section 6.3), with no I/O, so every case is unit-tested.
package struct ResponseFraming: Sendable, Equatable {
    /// The `Content-Length` to send, if any.
    package var contentLength: Int64?
    /// Whether to send `Transfer-Encoding: chunked` (and chunk the body).
    package var chunked: Bool
    /// Whether body bytes go on the wire (false for HEAD, 1xx, 204 and 304).
    package var sendsBody: Bool
    /// Whether the connection stays open after this response.
    package var keepAlive: Bool

    package init(contentLength: Int64?, chunked: Bool, sendsBody: Bool, keepAlive: Bool) {
        self.contentLength = contentLength
        self.chunked = chunked
        self.sendsBody = sendsBody
        self.keepAlive = keepAlive
    }

    /// Decides the framing.
    /// - Parameters:
    ///   - status: The response status.
    ///   - isHEAD: Whether the request was HEAD (headers as for GET, no body).
    ///   - bodyLength: The body's length when known (bytes, or a stream of known length), `nil`
    ///     for a stream of unknown length.
    ///   - isHTTP11: Whether the request was HTTP/1.1.
    ///   - keepAlive: Whether the request allows keep-alive and the server wants it.
    package static func decide(status: HTTPResponse.Status, isHEAD: Bool, bodyLength: Int64?, isHTTP11: Bool, keepAlive: Bool) -> ResponseFraming {
        // 1xx, 204 and 304 never carry a body or framing headers (RFC 9110 sections 8.6, 15).
        if status.kind == .informational || status == .noContent || status == .notModified {
            return ResponseFraming(contentLength: nil, chunked: false, sendsBody: false, keepAlive: keepAlive)
        }
        if let bodyLength {
            return ResponseFraming(contentLength: bodyLength, chunked: false, sendsBody: !isHEAD, keepAlive: keepAlive)
        }
        if isHTTP11 {
            return ResponseFraming(contentLength: nil, chunked: true, sendsBody: !isHEAD, keepAlive: keepAlive)
        }
        // HTTP/1.0 has no chunked coding: the end of the body is the end of the connection.
        return ResponseFraming(contentLength: nil, chunked: false, sendsBody: !isHEAD, keepAlive: isHEAD && keepAlive)
    }
}
