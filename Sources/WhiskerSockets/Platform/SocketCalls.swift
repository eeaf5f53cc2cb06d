#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
private import CWhiskerSystem
#endif

// The socket calls that differ between Linux and Darwin. On Linux each is the one system call it
// was before this seam (socket(2) with SOCK_NONBLOCK | SOCK_CLOEXEC, accept4(2), MSG_NOSIGNAL);
// on Darwin, written from Apple's man pages (socket(2), accept(2), fcntl(2), setsockopt(2)), the
// flags are set after the call and SO_NOSIGPIPE stands in for MSG_NOSIGNAL. The Darwin side has
// not been compiled yet (README, "macOS").

/// Opens a socket (socket(2), protocol 0) that is close-on-exec and, when `nonBlocking`,
/// non-blocking. On Darwin a stream socket also gets `SO_NOSIGPIPE`, so that writing to a peer
/// that went away fails with `EPIPE` instead of raising `SIGPIPE`.
/// - Returns: The descriptor, or -1 with `errno` set (as socket(2)).
@inline(__always)
package func openSocket(_ family: Int32, _ type: Int32, nonBlocking: Bool) -> Int32 {
    #if os(Linux)
    socket(family, type | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #elseif canImport(Darwin)
    let fd = socket(family, type, 0)
    guard fd >= 0 else { return -1 }
    return prepareDescriptor(fd, nonBlocking: nonBlocking, noSignalPipe: type == SOCK_STREAM)
    #endif
}

/// Accepts a connection on the listening socket `fd` as a non-blocking, close-on-exec descriptor
/// (accept4(2) on Linux; accept(2) and fcntl(2) on Darwin, plus `SO_NOSIGPIPE`).
/// - Returns: The connection's descriptor, or -1 with `errno` set (as accept(2)).
@inline(__always)
func acceptNonBlocking(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>) -> Int32 {
    #if os(Linux)
    whisker_accept_nonblocking(fd, address, length)
    #elseif canImport(Darwin)
    let client = accept(fd, address, length)
    guard client >= 0 else { return -1 }
    return prepareDescriptor(client, nonBlocking: true, noSignalPipe: true)
    #endif
}

/// The bytes the kernel still holds in `fd`'s send queue for the peer (not sent, or sent and not
/// acknowledged): ioctl(SIOCOUTQ) on Linux, `SO_NWRITE` on Darwin; 0 when it cannot tell.
func kernelUnsentBytes(_ fd: Int32) -> Int {
    #if os(Linux)
    Int(max(0, whisker_unsent_bytes(fd)))
    #elseif canImport(Darwin)
    var count: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    return getsockopt(fd, SOL_SOCKET, SO_NWRITE, &count, &length) == 0 ? Int(count) : 0
    #endif
}

/// The name ``acceptNonBlocking(_:_:_:)``'s errors carry: the system call it makes.
var acceptCallName: String {
    #if os(Linux)
    "accept4"
    #else
    "accept"
    #endif
}

/// The flags for send(2), sendmsg(2) and sendto(2) that keep a write to a vanished peer from
/// raising `SIGPIPE`: `MSG_NOSIGNAL` on Linux; 0 on Darwin, which has no such flag and whose
/// sockets carry `SO_NOSIGPIPE` instead (``openSocket(_:_:nonBlocking:)``).
package var noSignalSendFlags: Int32 {
    @inline(__always) get {
        #if os(Linux)
        Int32(MSG_NOSIGNAL)
        #else
        0
        #endif
    }
}

#if canImport(Darwin)
/// Darwin: marks `fd` close-on-exec (fcntl `F_SETFD` `FD_CLOEXEC`), non-blocking (fcntl `F_SETFL`
/// with `O_NONBLOCK` added to `F_GETFL`'s flags) and, for a stream socket, `SO_NOSIGPIPE`
/// (setsockopt(2)). Returns `fd`, or closes it and returns -1 with the failing call's `errno`.
private func prepareDescriptor(_ fd: Int32, nonBlocking: Bool, noSignalPipe: Bool) -> Int32 {
    var succeeded = fcntl(fd, F_SETFD, FD_CLOEXEC) == 0
    if succeeded && nonBlocking {
        let flags = fcntl(fd, F_GETFL)
        succeeded = flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0
    }
    if succeeded && noSignalPipe {
        var on: Int32 = 1
        succeeded = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
    }
    if succeeded { return fd }
    let code = errno
    close(fd)
    errno = code
    return -1
}
#endif
