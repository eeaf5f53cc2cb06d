internal import COpenSSL

/// A TLS failure: what Whisker was doing, and OpenSSL's reasons, drained from its error queue.
///
///     TLS: loading the certificate chain from /etc/cat/cert.pem failed: PEM routines::no start line
public struct TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed, in words ("loading the private key from /path", "handshake").
    public let operation: String
    /// OpenSSL's reasons, oldest first ("SSL routines::unsupported protocol"); empty when OpenSSL
    /// gave none.
    public let reasons: [String]

    /// Creates an error; use `drainingErrorQueue(_:)` right after a failed OpenSSL call.
    public init(operation: String, reasons: [String]) {
        self.operation = operation
        self.reasons = reasons
    }

    /// Takes every error OpenSSL queued on this thread, so that none is left to be misreported by
    /// a later call on the same thread (the queue is per thread, and Dispatch reuses threads).
    static func drainingErrorQueue(_ operation: String) -> TLSError {
        TLSError(operation: operation, reasons: drainReasons())
    }

    /// Empties this thread's OpenSSL error queue, returning its reasons oldest first.
    package static func drainReasons() -> [String] {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { return reasons }
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            // "error:0A000102:SSL routines::unsupported protocol": keep the library and reason.
            let full = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let parts = full.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            reasons.append(parts.count == 3 && parts[0] == "error" ? String(parts[2]) : full)
        }
    }

    public var description: String {
        reasons.isEmpty ? "TLS: \(operation) failed" : "TLS: \(operation) failed: \(reasons.joined(separator: "; "))"
    }
}
