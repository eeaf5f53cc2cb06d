import HTTPTypes

/// What the HTTP/1.1 parser refuses past (the server's `WhiskerServer.Limits`, as the parser sees
/// them): a request line, a header block, a header count and a request body too large.
package struct HTTP1ParserLimits: Sendable, Equatable {
    /// The longest request line; longer gets 414.
    package var maxRequestLineLength: Int
    /// The largest header block (request line and fields); larger gets 431.
    package var maxHeaderBytes: Int
    /// The most header fields; more get 431.
    package var maxHeaderCount: Int
    /// The largest request body, or `nil` for no limit; larger gets 413.
    package var maxRequestBodySize: Int64?

    package init(maxRequestLineLength: Int, maxHeaderBytes: Int, maxHeaderCount: Int, maxRequestBodySize: Int64?) {
        self.maxRequestLineLength = maxRequestLineLength
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxRequestBodySize = maxRequestBodySize
    }

    /// The 413 for a request body of `size` bytes (its `Content-Length` when `declared`, else what
    /// arrived so far) if that is over ``maxRequestBodySize``, else `nil`: the one body-size check
    /// of both protocols, before the handler starts and as the bytes come.
    package func bodyRejection(size: Int64, declared: Bool) -> HTTPRejection? {
        guard let max = maxRequestBodySize, size > max else { return nil }
        let what = declared ? "request body of \(size) bytes" : "request body"
        return HTTPRejection(.contentTooLarge, "\(what) is larger than \(max) bytes")
    }
}
