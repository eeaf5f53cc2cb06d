import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import WhiskerSockets

extension IOBackend {
    /// Both backends: the tests of connections and workers run on each.
    static let allForTests: [IOBackend] = [.epoll, .dispatchSources]
}

/// A loopback TCP connection: the client's blocking descriptor and the server side as a `SocketConnection`.
func connectedPair(backend: IOBackend = .default, clientReceiveBuffer: Int32? = nil, serverSendBuffer: Int32? = nil, serverReceiveBuffer: Int32? = nil) async throws -> (Int32, QueueBound<SocketConnection>) {
    let listener = try Listener(address: SocketAddress(host: "127.0.0.1", port: 0))
    defer { listener.stop() }
    let (accepted, continuation) = AsyncStream.makeStream(of: Socket.self)
    listener.start { continuation.yield($0) }
    let client = socket(AF_INET, LibC.streamSocket, 0)
    if var size = clientReceiveBuffer { setsockopt(client, SOL_SOCKET, SO_RCVBUF, &size, 4) }
    try listener.localAddress.withSockAddr { (address, length) throws(SocketError) in
        #expect(connect(client, address, length) == 0)
    }
    var iterator = accepted.makeAsyncIterator()
    let socket = try #require(await iterator.next())
    if var size = serverSendBuffer { setsockopt(socket.fd, SOL_SOCKET, SO_SNDBUF, &size, 4) }
    if var size = serverReceiveBuffer { setsockopt(socket.fd, SOL_SOCKET, SO_RCVBUF, &size, 4) }
    let connection = SocketConnection(socket: socket, worker: try IOWorker(backend: backend))
    return (client, QueueBound(connection, queue: connection.queue))
}

/// Reads until end of stream, or until `limit` bytes arrived; stops at an error (a reset) with
/// what arrived before it.
func readAll(_ fd: Int32, upTo limit: Int = .max) async -> [UInt8] {
    await offThePool {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }
}

/// How an upload that the server stopped taking ended: the bytes the kernel took, and the
/// `errno` of a send that failed (a reset), or `nil` when the sends only blocked.
struct UploadOutcome: Sendable {
    var sent = 0
    var error: Int32?
}

/// Sends zeros on `fd` without blocking, as an uploading client does, until `limit` bytes went,
/// a send fails, or no byte could go for `stall` once `minimum` bytes went (the peer stopped
/// reading; before `minimum`, it waits for the peer however slow it is).
func sendUntilBlocked(_ fd: Int32, upTo limit: Int, stall: Duration, once minimum: Int = 0) async -> UploadOutcome {
    await offThePool {
        var outcome = UploadOutcome()
        let chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let stallMilliseconds = Int32(stall.components.seconds * 1000 + stall.components.attoseconds / 1_000_000_000_000_000)
        while outcome.sent < limit {
            let count = chunk.withUnsafeBytes { send(fd, $0.baseAddress, min($0.count, limit - outcome.sent), noSignalSendFlags | Int32(MSG_DONTWAIT)) }
            if count > 0 {
                outcome.sent += count
                continue
            }
            guard errno == EAGAIN || errno == EWOULDBLOCK else {
                outcome.error = errno
                break
            }
            var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            if poll(&waiting, 1, outcome.sent < minimum ? -1 : stallMilliseconds) == 0 { break }
        }
        return outcome
    }
}

/// Runs `body`, which blocks its thread (a blocking `recv`), on a queue of its own (Dispatch's
/// overcommit pool), not on the pool of as many threads as cores that tasks and the workers'
/// queues share: tests blocking two of those threads at once stall every other test meanwhile.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue(label: "whisker.test-blocking").async { continuation.resume(returning: body()) }
    }
}

/// `fd` moved to a number just under the process's descriptor limit (the old number closed), for a
/// test that closes a number and takes it again with `dup2`. The kernel gives a new socket the
/// lowest free number, so between that close and the `dup2` a test running beside this one could
/// otherwise open a socket with the number and lose it to the `dup2` (a listening socket swapped for
/// a Unix socket: its clients' connections refused) or to the close after (or `dup2` fails with
/// EBUSY). The library tests hold up to 2,500 descriptors at once, so the number is taken from just
/// under the limit, not from a fixed height.
func movedFarFromOtherTests(_ fd: Int32) -> Int32 {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    let floor = Int32(clamping: min(limit.rlim_cur, 1 << 16)) - 200
    let high = fcntl(fd, F_DUPFD, floor + Int32.random(in: 0..<100))
    #expect(high >= floor, "no free descriptor number under the limit")
    close(fd)
    return high
}
