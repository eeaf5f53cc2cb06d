internal import CNGHTTP2

/// An nghttp2 failure: what Whisker was doing and nghttp2's description of the error code.
public struct HTTP2Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed ("receiving", "submitting a response").
    public let operation: String
    /// nghttp2's error code (negative), e.g. -505 for a protocol error.
    public let code: Int32

    init(operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    public var description: String {
        "HTTP/2: \(operation) failed: \(String(cString: nghttp2_strerror(code))) (\(code))"
    }
}
