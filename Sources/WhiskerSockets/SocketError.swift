#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An error from a socket system call, carrying the call's name and `errno`.
///
/// Its description reads as a sentence an operator can act on, for example
/// `bind(127.0.0.1:8080) failed: Address already in use (errno 98)`.
public struct SocketError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The system call that failed, with its target where one helps (`bind(127.0.0.1:8080)`).
    public var call: String
    /// The `errno` the call reported.
    public var code: Int32
    /// What was wrong when the calls succeeded but their answer was unusable (a descriptor that
    /// is not a listening socket), said instead of `strerror(code)`; `nil` otherwise.
    public var reason: String?

    /// Creates an error for a failed system call.
    /// - Parameters:
    ///   - call: The name of the call, optionally with its target.
    ///   - code: The `errno` value.
    ///   - reason: A description of the problem to use instead of `strerror(code)`, for a call
    ///     that succeeded with an answer the caller cannot use.
    public init(call: String, code: Int32, reason: String? = nil) {
        self.call = call
        self.code = code
        self.reason = reason
    }

    /// True when the address is already taken by another socket (`EADDRINUSE`).
    public var isAddressInUse: Bool { code == EADDRINUSE }

    /// True when the peer went away (`ECONNRESET`, `EPIPE`).
    public var isDisconnect: Bool { code == ECONNRESET || code == EPIPE }

    public var description: String {
        if let reason { return "\(call): \(reason)" }
        return "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}
