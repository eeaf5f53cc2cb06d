#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The outcome of a non-blocking system call that did not fail.
@usableFromInline
enum IOResult<Value> {
    /// The call completed with this value.
    case done(Value)
    /// The call would have blocked (`EAGAIN` / `EWOULDBLOCK`); wait for readiness and retry.
    case wouldBlock
}

/// Runs a system call that returns -1 on error: retries `EINTR`, reports `EAGAIN` as
/// ``IOResult/wouldBlock``, and throws a ``SocketError`` naming the call for anything else.
@inline(__always)
@usableFromInline
func systemCall<Value: BinaryInteger>(
    _ name: @autoclosure () -> String,
    _ body: () -> Value
) throws(SocketError) -> IOResult<Value> {
    while true {
        let result = body()
        if result != -1 { return .done(result) }
        let code = errno
        switch code {
        case EINTR: continue
        case EAGAIN, EWOULDBLOCK: return .wouldBlock
        default: throw SocketError(call: name(), code: code)
        }
    }
}

/// Runs a blocking-style system call that returns -1 on error; `EAGAIN` is an error here.
@inline(__always)
@usableFromInline
func checkedSystemCall<Value: BinaryInteger>(
    _ name: @autoclosure () -> String,
    _ body: () -> Value
) throws(SocketError) -> Value {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw SocketError(call: name(), code: code)
    }
}
