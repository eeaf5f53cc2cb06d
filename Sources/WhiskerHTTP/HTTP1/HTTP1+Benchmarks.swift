public import HTTPTypes
import WhiskerSockets

/// Entry points for Benchmarks/Allocations' per-layer micro-benchmarks (`make bench-layers`):
/// the HTTP/1.1 parser and the response head writer, which are `package` and so out of reach of
/// the benchmark's own package. Not API: `@_spi(Benchmarks)`, for measuring only.
@_spi(Benchmarks) public enum HTTP1Benchmarks {
    /// Parses `bytes` as one request head with the server's default limits, as a connection's
    /// parser does when a read brings a whole head.
    /// - Returns: The request, or `nil` when `bytes` is not a whole valid head.
    public static func parseHead(_ bytes: [UInt8]) -> HTTPRequest? {
        var parser = HTTP1RequestParser(limits: limits)
        var buffer = ReadBuffer(bytes)
        guard case .head(let head)? = try? parser.next(&buffer) else { return nil }
        return head.request
    }

    /// The bytes of `response`'s HTTP/1.1 head, with a `Content-Length` of `contentLength`, kept
    /// alive, and `dateLine` (`Date: ...\r\n`) as the date, as an HTTP/1.1 connection writes it.
    public static func responseHead(_ response: HTTPResponse, contentLength: Int64, dateLine: [UInt8]) -> [UInt8] {
        let framing = ResponseFraming.decide(status: response.status, isHEAD: false, bodyLength: contentLength, isHTTP11: true, keepAlive: true)
        return ResponseHeadWriter.head(response, framing: framing, isHTTP11: true, dateLine: dateLine)
    }

    /// The current second's `Date: ...\r\n` line, as the server caches it.
    public static func dateLine() -> [UInt8] { DateCache.shared.headerLine() }

    /// `WhiskerServer.Limits`' defaults.
    private static let limits = HTTP1ParserLimits(maxRequestLineLength: 8 * 1024, maxHeaderBytes: 80 * 1024, maxHeaderCount: 100, maxRequestBodySize: 16 << 20)
}
