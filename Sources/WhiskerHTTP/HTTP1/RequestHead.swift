package import HTTPTypes

/// How a request's body is delimited (RFC 9112 section 6).
package enum BodyFraming: Sendable, Equatable {
    /// No body: neither `Content-Length` nor `Transfer-Encoding` (or `Content-Length: 0`).
    case none
    /// Exactly this many bytes follow the head.
    case length(Int64)
    /// `Transfer-Encoding: chunked`.
    case chunked
}

/// A parsed and validated HTTP/1.x request head, and what it means for the connection.
package struct RequestHead: Sendable {
    /// The request as swift-http-types models it: method, `http` scheme, `Host` as the authority
    /// (and not among the fields, as in HTTP/2), and the target's path and query exactly as received.
    package var request: HTTPRequest
    /// `true` for HTTP/1.1, `false` for HTTP/1.0.
    package var isHTTP11: Bool
    /// How the body is delimited.
    package var framing: BodyFraming
    /// Whether the client allows the connection to stay open after this exchange.
    package var keepAlive: Bool
    /// Whether the client sent `Expect: 100-continue` (HTTP/1.1 with a body only) and waits for
    /// `100 Continue` before sending the body.
    package var expectsContinue: Bool
}

extension HTTPField.Name {
    /// `X-Request-ID`, read from requests and set on responses.
    package static let requestID = HTTPField.Name("X-Request-ID")!
    /// `X-Content-Type-Options`, `nosniff` on every problem answer: a browser never sniffs one (its
    /// detail may quote the request) as HTML or script.
    package static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}
