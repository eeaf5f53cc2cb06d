#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import WhiskerSockets

extension SystemdSocketActivation {
    /// Listening sockets on 127.0.0.1, each on a free port, made the way a `.socket` unit makes
    /// them, to hand to a server as if systemd had passed them, without touching the process's
    /// `LISTEN_*` variables or descriptors 3, 4, ...
    ///
    ///     let activation = try SystemdSocketActivation.loopbackForTesting(names: ["http", "https"])
    ///     configuration.listeners = try activation.listeners(https: tls)   // WhiskerTLS
    ///     try await WhiskerServer(configuration: configuration).withRunningAddresses { addresses in
    ///         // addresses[0] is "http", addresses[1] is "https"
    ///     }
    ///
    /// A server that runs owns the sockets and closes them when it stops; if it never adopts
    /// them (it failed to start), close them with ``closeForTesting()``.
    /// - Parameter names: One `FileDescriptorName` per socket, in order.
    /// - Throws: `SocketError` when a socket cannot be made.
    public static func loopbackForTesting(names: [String]) throws(SocketError) -> SystemdSocketActivation {
        var descriptors: [Descriptor] = []
        do {
            for name in names {
                descriptors.append(Descriptor(fd: try makeLoopbackListeningSocket(), name: name))
            }
        } catch {
            SystemdSocketActivation(descriptors: descriptors).closeForTesting()
            throw error
        }
        return SystemdSocketActivation(descriptors: descriptors)
    }

    /// Closes every descriptor: for sockets that no server adopted.
    public func closeForTesting() {
        for descriptor in descriptors { close(descriptor.fd) }
    }
}

private func makeLoopbackListeningSocket() throws(SocketError) -> Int32 {
    let fd = openSocket(AF_INET, LibC.streamSocket, nonBlocking: false)
    guard fd >= 0 else { throw SocketError(call: "socket", code: errno) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(fd, 128) == 0 else {
        let code = errno
        close(fd)
        throw SocketError(call: "bind/listen(127.0.0.1:0)", code: code)
    }
    return fd
}
