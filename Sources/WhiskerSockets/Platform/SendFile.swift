#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
package import Synchronization

// Sending a file's bytes to a socket without copying them through the process. Linux has
// sendfile(2) with an explicit offset (the file's own offset is left alone, so that one open file
// could serve several regions); Darwin's sendfile(2) takes different arguments and is not wired
// yet: there a file is read in chunks (`ResponseBodyWriter.writeFile`'s fallback).

/// True where ``sendFile(socket:file:offset:count:)`` works.
#if os(Linux)
let fileSendingIsAvailable = true
#else
let fileSendingIsAvailable = false
#endif

/// How many `sendfile(2)` calls this process made: for tests that check a file went out without
/// being copied through the process.
package let sendFileCallCount = Atomic<Int>(0)

/// Up to `count` bytes of `file` from `offset` into `socket` (sendfile(2)).
///
/// sendfile(2) takes no `MSG_NOSIGNAL`: to a peer that went away it raises `SIGPIPE`, which would
/// end the process. So `SIGPIPE` is blocked in the calling thread for the call, and one that the
/// call raised is taken from the thread's pending signals before the mask is restored (also when
/// the call returns a count: a sendfile that sent part of the region before the peer went away
/// raises it and reports the part): the process's handling of `SIGPIPE` is left as it was.
/// - Returns: The bytes sent, or -1 with `errno` set.
func sendFile(socket: Int32, file: Int32, offset: Int64, count: Int) -> Int {
    #if os(Linux)
    sendFileCallCount.add(1, ordering: .relaxed)
    var pipe = sigset_t()
    sigemptyset(&pipe)
    sigaddset(&pipe, SIGPIPE)
    var previous = sigset_t()
    pthread_sigmask(SIG_BLOCK, &pipe, &previous)
    var pending = sigset_t()
    sigpending(&pending)
    let wasPending = sigismember(&pending, SIGPIPE) == 1
    var position = off_t(offset)
    let result = sendfile(socket, file, &position, count)
    let code = errno
    if !wasPending {
        sigpending(&pending)
        if sigismember(&pending, SIGPIPE) == 1 {
            var now = timespec(tv_sec: 0, tv_nsec: 0)
            _ = sigtimedwait(&pipe, nil, &now)
        }
    }
    pthread_sigmask(SIG_SETMASK, &previous, nil)
    errno = code
    return result
    #else
    errno = EOPNOTSUPP
    return -1
    #endif
}
