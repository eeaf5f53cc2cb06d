import WhiskerHTTP

extension WhiskerServer.Limits {
    /// The limits the HTTP/1.1 parser enforces.
    package var parser: HTTP1ParserLimits {
        HTTP1ParserLimits(maxRequestLineLength: maxRequestLineLength, maxHeaderBytes: maxHeaderBytes, maxHeaderCount: maxHeaderCount, maxRequestBodySize: maxRequestBodySize)
    }

    /// The 413 for a request body of `size` bytes (its `Content-Length` when `declared`, else what
    /// arrived so far) if that is over ``maxRequestBodySize``, else `nil`.
    package func bodyRejection(size: Int64, declared: Bool) -> HTTPRejection? {
        parser.bodyRejection(size: size, declared: declared)
    }
}

extension HTTP1RequestParser {
    /// A parser for a server's limits.
    package init(limits: WhiskerServer.Limits = .init()) { self.init(limits: limits.parser) }
}
