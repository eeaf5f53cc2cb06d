#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// A listening stream socket (TCP, or a Unix domain socket) that accepts connections: in the epoll set of an ``IOWorker`` (the
/// server's way: a connection accepted there starts on that worker's queue with no hand-off to
/// another thread), or on a Dispatch read source of its own.
///
/// The socket is bound in the initializer (or adopted, already bound, from a supervisor such as
/// systemd with `init(inheritedDescriptor:)`), so a taken port is reported at once and port 0
/// is resolved to the port the system picked (``localAddress``). Accepting starts with
/// `start(onAccept:)`; ``stop()`` cancels the source, and the descriptor is closed in the
/// cancel handler, never before (swift-corelibs-libdispatch issue 833: closing first lets a
/// reused descriptor number confuse epoll).
///
///     let listener = try Listener(address: SocketAddress(host: "127.0.0.1", port: 0))
///     listener.start { socket in /* own the accepted socket */ }
///     print(listener.localAddress.port)
public final class Listener: IOReadinessHandler, @unchecked Sendable {
    // Safe to send: `source`, `isStopped`, the callbacks and the pause are touched only on `queue`
    // (asserted in debug builds); `fd`, `worker` and `localAddress` are immutable.
    /// The address the socket is bound to, with the port the system picked for port 0.
    public let localAddress: SocketAddress
    private let fd: Int32
    private let queue: DispatchQueue
    /// The worker whose epoll set watches the socket, or `nil` for a Dispatch source.
    private let worker: IOWorker?
    private var source: (any DispatchSourceRead)?
    private var isRegistered = false
    private var isStopped = false
    private var isAcceptPaused = false
    private var onAccept: (@Sendable (Socket) -> Void)?
    private var onError: (@Sendable (SocketError) -> Void)?
    /// The Unix domain socket file this listener made, removed when it stops.
    private let createdPath: String?

    /// Creates a socket, sets `SO_REUSEADDR` (and `IPV6_V6ONLY` for IPv6, so `::` and
    /// `0.0.0.0` can both be bound), binds it and starts listening.
    ///
    /// For a Unix domain socket (``SocketAddress/init(unixPath:)``), a socket file left at the
    /// path by a process that is gone (nothing accepts on it) is removed first; a file that is not
    /// a socket, or a socket another process accepts on, is an error (`EADDRINUSE`) and is left
    /// alone. The new file gets `permissions` (for example `0o660`, so that only the owner and its
    /// group, say the proxy's, may connect) and is removed when the listener stops.
    /// - Parameters:
    ///   - address: The address to bind; port 0 picks a free port.
    ///   - backlog: The kernel's queue of connections not yet accepted.
    ///   - worker: The worker that accepts (on its queue, in its epoll set); `nil` for a Dispatch
    ///     source and a queue of the listener's own.
    ///   - permissions: A Unix domain socket file's mode; `nil` keeps what the umask gives.
    /// - Throws: ``SocketError`` naming the call and address, for example when the port is taken.
    public init(address: SocketAddress, backlog: Int32 = 1024, worker: IOWorker? = nil, permissions: UInt32? = nil) throws(SocketError) {
        let path = address.unixPath
        if let path { try Self.removeStaleSocket(at: path, address: address) }
        let fd = try checkedSystemCall("socket") { openSocket(address.family, LibC.streamSocket, nonBlocking: true) }
        var bound = false
        do {
            var one: Int32 = 1
            if path == nil {
                _ = try checkedSystemCall("setsockopt(SO_REUSEADDR)") { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) }
            }
            if address.isIPv6 {
                _ = try checkedSystemCall("setsockopt(IPV6_V6ONLY)") { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size)) }
            }
            try address.withSockAddr { (pointer, length) throws(SocketError) in
                _ = try checkedSystemCall("bind(\(address))") { bind(fd, pointer, length) }
            }
            bound = true
            if let path, let permissions {
                _ = try checkedSystemCall("chmod(\(path), \(String(permissions, radix: 8)))") { chmod(path, mode_t(permissions)) }
            }
            _ = try checkedSystemCall("listen(\(address))") { listen(fd, backlog) }
            localAddress = try Self.boundAddress(fd) ?? address
        } catch {
            close(fd)
            if bound, let path { unlink(path) }
            throw error
        }
        self.fd = fd
        self.createdPath = path
        self.worker = worker
        self.queue = worker?.queue ?? DispatchQueue(label: "whisker.listener.\(localAddress)")
    }

    /// Adopts a listening socket this process inherited, such as one systemd passed for socket
    /// activation (``SystemdSocketActivation``): checks that it is a listening stream socket (TCP,
    /// or a Unix domain socket: `ListenStream=/run/cats.sock`), makes it non-blocking and
    /// close-on-exec, and reads the address it is bound to. An inherited socket file is its
    /// supervisor's: it is not removed when the listener stops.
    ///
    ///     let listener = try Listener(inheritedDescriptor: 3)
    ///     print(listener.localAddress)   // 127.0.0.1:8080, as the .socket unit bound it
    ///
    /// The listener owns the descriptor from here on and closes it in ``stop()``; on error the
    /// descriptor is left open and untouched, for the caller to report or close.
    /// - Parameters:
    ///   - fd: An open descriptor of an IPv4, IPv6 or Unix domain `SOCK_STREAM` socket that is
    ///     already bound and listening.
    ///   - worker: As for ``init(address:backlog:worker:permissions:)``.
    /// - Throws: ``SocketError`` naming the descriptor: not open or not a socket (`EBADF`,
    ///   `ENOTSOCK`), a datagram or other non-stream socket (`EPROTOTYPE`), not listening
    ///   (`EINVAL`), or of another address family (`EAFNOSUPPORT`).
    public init(inheritedDescriptor fd: Int32, worker: IOWorker? = nil) throws(SocketError) {
        let target = "inherited descriptor \(fd)"
        let type = try Self.intOption(fd, SO_TYPE, "getsockopt(\(target), SO_TYPE)")
        guard type == LibC.streamSocket else {
            throw SocketError(call: target, code: EPROTOTYPE, reason: "not a stream (TCP) socket (SO_TYPE is \(type)); use ListenStream=, not ListenDatagram= or ListenSequentialPacket=")
        }
        guard try Self.intOption(fd, SO_ACCEPTCONN, "getsockopt(\(target), SO_ACCEPTCONN)") != 0 else {
            throw SocketError(call: target, code: EINVAL, reason: "the socket is not listening (SO_ACCEPTCONN is 0)")
        }
        guard let address = try Self.boundAddress(fd) else {
            throw SocketError(call: target, code: EAFNOSUPPORT, reason: "not an IPv4, IPv6 or Unix domain socket")
        }
        let statusFlags = try checkedSystemCall("fcntl(\(target), F_GETFL)") { fcntl(fd, F_GETFL) }
        _ = try checkedSystemCall("fcntl(\(target), F_SETFL, O_NONBLOCK)") { fcntl(fd, F_SETFL, statusFlags | O_NONBLOCK) }
        let descriptorFlags = try checkedSystemCall("fcntl(\(target), F_GETFD)") { fcntl(fd, F_GETFD) }
        _ = try checkedSystemCall("fcntl(\(target), F_SETFD, FD_CLOEXEC)") { fcntl(fd, F_SETFD, descriptorFlags | FD_CLOEXEC) }
        self.fd = fd
        self.localAddress = address
        self.createdPath = nil
        self.worker = worker
        self.queue = worker?.queue ?? DispatchQueue(label: "whisker.listener.\(address)")
    }

    private static func intOption(_ fd: Int32, _ option: Int32, _ call: @autoclosure () -> String) throws(SocketError) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = try checkedSystemCall(call()) { getsockopt(fd, SOL_SOCKET, option, &value, &length) }
        return value
    }

    private static func boundAddress(_ fd: Int32) throws(SocketError) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { (pointer) throws(SocketError) -> Int32 in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(SocketError) -> Int32 in
                try checkedSystemCall("getsockname") { getsockname(fd, address, &length) }
            }
        }
        return SocketAddress(&storage)
    }

    /// Makes room for a Unix domain socket at `path`: a socket file nothing accepts on (its
    /// process is gone) is removed; anything else there is refused, untouched.
    private static func removeStaleSocket(at path: String, address: SocketAddress) throws(SocketError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }  // Nothing there, or bind will say why.
        let call = "bind(\(address))"
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw SocketError(call: call, code: EADDRINUSE, reason: "\(path) exists and is not a socket; it is left alone")
        }
        let probe = openSocket(AF_UNIX, LibC.streamSocket, nonBlocking: true)
        guard probe >= 0 else { return }
        defer { close(probe) }
        let refused = (try? address.withSockAddr { (pointer, length) throws(SocketError) in
            connect(probe, pointer, length) == -1 && errno == ECONNREFUSED
        }) ?? false
        guard refused else {
            throw SocketError(call: call, code: EADDRINUSE, reason: "another process accepts connections on \(path)")
        }
        unlink(path)
    }

    /// Starts accepting. Each accepted connection arrives as a non-blocking ``Socket`` with
    /// `TCP_NODELAY` set; the callee owns it.
    /// - Parameters:
    ///   - onAccept: Called on the listener's queue for each connection.
    ///   - onError: Called on the listener's queue when accepting fails for a reason other than
    ///     a connection aborted before it was accepted; accepting pauses 100 ms after running out
    ///     of descriptors (`EMFILE`), so a full process does not spin.
    public func start(onAccept: @escaping @Sendable (Socket) -> Void, onError: @escaping @Sendable (SocketError) -> Void = { _ in }) {
        queue.async { [self] in
            guard !isStopped, source == nil, !isRegistered else { return }
            self.onAccept = onAccept
            self.onError = onError
            if let worker {
                do throws(SocketError) {
                    try worker.register(fd, interest: .read, handler: self)
                    isRegistered = true
                } catch {
                    onError(error)
                }
                return
            }
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            source.setEventHandler { [weak self] in self?.acceptPending() }
            let fd = self.fd
            source.setCancelHandler { close(fd) }
            self.source = source
            source.resume()
        }
    }

    /// The worker reports the socket readable: connections wait to be accepted.
    func handle(_ readiness: IOReadiness) {
        acceptPending()
    }

    private func acceptPending() {
        guard let onAccept, let onError, !isStopped else { return }
        // A bounded batch per event keeps one busy listener from starving other work on the pool.
        for _ in 0..<64 {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let result: IOResult<Int32>
            do {
                result = try withUnsafeMutablePointer(to: &storage) { (pointer) throws(SocketError) -> IOResult<Int32> in
                    try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(SocketError) -> IOResult<Int32> in
                        try systemCall(acceptCallName) { acceptNonBlocking(fd, address, &length) }
                    }
                }
            } catch {
                if error.code == ECONNABORTED || error.code == EPROTO { continue }
                onError(error)
                if error.code == EMFILE || error.code == ENFILE || error.code == ENOBUFS || error.code == ENOMEM {
                    pauseAccepting()
                }
                return
            }
            guard case .done(let client) = result else { return }
            if createdPath == nil, localAddress.unixPath == nil {
                var one: Int32 = 1
                setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            let peer = SocketAddress(&storage) ?? localAddress
            onAccept(Socket(fd: client, peer: peer))
        }
    }

    /// Out of descriptors: the listening socket stays readable, so stop watching it for a moment.
    private func pauseAccepting() {
        guard !isAcceptPaused, source != nil || isRegistered else { return }
        isAcceptPaused = true
        setWatching(false)
        queue.asyncAfter(deadline: .now() + .milliseconds(100)) { [self] in
            guard isAcceptPaused else { return }
            isAcceptPaused = false
            setWatching(true)
        }
    }

    /// Starts or stops watching the socket (a paused Dispatch source, or no interest in epoll).
    private func setWatching(_ watching: Bool) {
        if let worker, isRegistered {
            do throws(SocketError) {
                try worker.update(fd, interest: watching ? .read : [])
            } catch {
                onError?(error)
            }
        } else if let source {
            if watching { source.resume() } else { source.suspend() }
        }
    }

    /// Stops accepting and closes the listening socket, after accepting the connections already
    /// waiting in its backlog (up to 64). Connections already accepted are not touched.
    /// - Parameter onClosed: Called once the descriptor is closed, so a new connection is refused
    ///   by the system (on the listener's queue; at once if the listener was already stopped).
    public func stop(onClosed: @escaping @Sendable () -> Void = {}) {
        queue.async { [self] in
            guard !isStopped else { return onClosed() }
            // Connections the system completed before the stop (still in the backlog, which
            // closing the socket would reset) are accepted first, as if their readiness had been
            // handled before this job: what a peer saw connected is served, whichever thread was
            // quicker to this queue.
            if isRegistered || source != nil { acceptPending() }
            isStopped = true
            onAccept = nil
            onError = nil
            if let worker, isRegistered {
                // Out of the epoll set before the descriptor is closed, never after: the worker
                // closes it (with Dispatch sources, once they are cancelled, on this queue).
                isRegistered = false
                isAcceptPaused = false
                worker.deregisterAndClose(fd) { [self] in
                    removeCreatedFile()
                    onClosed()
                }
            } else if let source {
                if isAcceptPaused {
                    isAcceptPaused = false
                    source.resume()
                }
                let fd = self.fd
                source.setCancelHandler { [self] in
                    close(fd)
                    removeCreatedFile()
                    onClosed()
                }
                source.cancel()
            } else {
                close(fd)
                removeCreatedFile()
                onClosed()
            }
            source = nil
        }
    }

    /// The socket file this listener made goes with it: a new listener on the path needs no stale
    /// removal, and a client gets `ENOENT` rather than a refused connection.
    private func removeCreatedFile() {
        if let createdPath { unlink(createdPath) }
    }

    /// Stops accepting and returns once the listening socket is closed.
    public func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            stop { continuation.resume() }
        }
    }
}

/// An accepted, connected socket descriptor and its peer, not yet owned by a ``SocketConnection``.
public struct Socket: Sendable {
    /// The descriptor; whoever takes the socket closes it.
    public let fd: Int32
    /// The remote address.
    public let peer: SocketAddress

    /// Wraps a connected descriptor.
    /// - Parameters:
    ///   - fd: A connected, non-blocking stream socket.
    ///   - peer: The remote address.
    public init(fd: Int32, peer: SocketAddress) {
        self.fd = fd
        self.peer = peer
    }
}
