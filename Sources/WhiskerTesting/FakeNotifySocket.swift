#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import WhiskerSockets

/// A stand-in for systemd's notification socket, for tests: a Unix datagram socket bound to a
/// fresh path under `/tmp`, which collects what `SystemdNotifier` sends.
///
///     let notify = try FakeNotifySocket()
///     configuration.systemdNotifier = notify.notifier
///     ... run the server ...
///     #expect(try notify.receive().contains("READY=1"))
public final class FakeNotifySocket: Sendable {
    /// The socket's path.
    public let path: String
    private let fd: Int32

    /// Binds a datagram socket at a new path; reads wait at most `timeout` seconds.
    public init(timeout: Int = 10) throws {
        path = "/tmp/whisker-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        fd = openSocket(AF_UNIX, LibC.datagramSocket, nonBlocking: false)
        guard fd >= 0 else { throw SocketError(call: "socket(AF_UNIX)", code: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw SocketError(call: "bind(\(path))", code: code)
        }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// A notifier that sends here.
    public var notifier: SystemdNotifier { SystemdNotifier(socketPath: path) }

    /// The next message, waiting at most the timeout.
    /// - Throws: `SocketError` (`EAGAIN`) when nothing arrived in time.
    public func receive() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw SocketError(call: "recv(\(path))", code: errno) }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }
}
