#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells systemd (or any supervisor that speaks its protocol) what the service is doing, as
/// `sd_notify(3)` does, without linking libsystemd: one datagram per message to the Unix socket
/// named by `$NOTIFY_SOCKET` (a path, or `@name` for the abstract namespace).
///
///     let notifier = SystemdNotifier(socketPath: "/run/systemd/notify")
///     notifier.notify("READY=1\nSTATUS=listening on 127.0.0.1:8080")
///
/// With `Type=notify` in the unit, systemd considers the service started only after `READY=1`.
public struct SystemdNotifier: Sendable, Equatable {
    /// The socket's path, or `@name` for an abstract socket.
    public let socketPath: String

    /// A notifier for `socketPath`.
    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// The notifier `$NOTIFY_SOCKET` names, or `nil` when the process was not started by a
    /// supervisor that wants notifications.
    /// On Darwin (no systemd) always `nil`.
    public static func fromEnvironment() -> SystemdNotifier? {
        #if os(Linux)
        guard let value = getenv("NOTIFY_SOCKET"), let path = String(validatingCString: value), !path.isEmpty else { return nil }
        return SystemdNotifier(socketPath: path)
        #else
        return nil
        #endif
    }

    /// Sends `state` (newline-separated `KEY=value` assignments, e.g. `READY=1`, `STOPPING=1`,
    /// `STATUS=...`).
    /// - Returns: Whether the datagram was sent; a supervisor that went away is not an error worth
    ///   more than a `false`.
    @discardableResult
    ///   On Darwin (no systemd) always `false`, and nothing is sent.
    public func notify(_ state: String) -> Bool {
        #if os(Linux)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        let isAbstract = path.first == UInt8(ascii: "@")
        if isAbstract { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        // An abstract name is exactly its bytes; a path is NUL-terminated (the struct is zeroed).
        let length = MemoryLayout<sa_family_t>.size + path.count + (isAbstract ? 0 : 1)
        let fd = openSocket(AF_UNIX, LibC.datagramSocket, nonBlocking: false)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                message.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sockaddrPointer, socklen_t(length)) }
            }
        }
        return sent == message.count
        #else
        return false
        #endif
    }
}
