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
/// - Returns: The bytes sent, or -1 with `errno` set.
@inline(__always)
func sendFile(socket: Int32, file: Int32, offset: Int64, count: Int) -> Int {
    #if os(Linux)
    sendFileCallCount.add(1, ordering: .relaxed)
    var position = off_t(offset)
    return sendfile(socket, file, &position, count)
    #else
    errno = EOPNOTSUPP
    return -1
    #endif
}
