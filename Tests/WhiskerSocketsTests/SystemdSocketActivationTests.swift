import Testing
import WhiskerSockets

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES` as libsystemd does, from an injected
/// environment (the real one belongs to the whole test process).
@Suite struct SystemdSocketActivationParsingTests {
    @Test func twoNamedDescriptors_StartAtThree_InOrder() throws {
        let activation = try SystemdSocketActivation.parse(["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "http:https"], processID: 42)
        #expect(activation?.descriptors == [.init(fd: 3, name: "http"), .init(fd: 4, name: "https")])
    }

    @Test func withoutLISTEN_FDNAMES_EveryDescriptorIsNamedUnknown() throws {
        // systemd-socket-activate without --fdname sets no LISTEN_FDNAMES; libsystemd says "unknown".
        let activation = try SystemdSocketActivation.parse(["LISTEN_PID": "42", "LISTEN_FDS": "2"], processID: 42)
        #expect(activation?.descriptors.map(\.name) == ["unknown", "unknown"])
    }

    @Test func anEmptyName_IsKeptInItsPlace() throws {
        let activation = try SystemdSocketActivation.parse(["LISTEN_PID": "42", "LISTEN_FDS": "3", "LISTEN_FDNAMES": "a::c"], processID: 42)
        #expect(activation?.descriptors.map(\.name) == ["a", "", "c"])
    }

    @Test func noLISTEN_PID_OrNoLISTEN_FDS_OrZeroDescriptors_IsNotActivated() throws {
        #expect(try SystemdSocketActivation.parse([:], processID: 42) == nil)
        #expect(try SystemdSocketActivation.parse(["LISTEN_FDS": "1"], processID: 42) == nil)
        #expect(try SystemdSocketActivation.parse(["LISTEN_PID": "42"], processID: 42) == nil)
        #expect(try SystemdSocketActivation.parse(["LISTEN_PID": "42", "LISTEN_FDS": "0"], processID: 42) == nil)
    }

    @Test func anotherProcessesLISTEN_PID_IsIgnored_EvenWithMalformedCompanions() throws {
        // The variables leaked from a parent to a child: they are not this process's sockets.
        #expect(try SystemdSocketActivation.parse(["LISTEN_PID": "41", "LISTEN_FDS": "x", "LISTEN_FDNAMES": "a:b"], processID: 42) == nil)
    }

    @Test(arguments: [
        (["LISTEN_PID": "abc", "LISTEN_FDS": "1"], "LISTEN_PID", "abc"),
        (["LISTEN_PID": "-42", "LISTEN_FDS": "1"], "LISTEN_PID", "-42"),
        (["LISTEN_PID": "42", "LISTEN_FDS": "two"], "LISTEN_FDS", "two"),
        (["LISTEN_PID": "42", "LISTEN_FDS": "-1"], "LISTEN_FDS", "-1"),
        (["LISTEN_PID": "42", "LISTEN_FDS": "2147483647"], "LISTEN_FDS", "2147483647"),
        (["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "https"], "LISTEN_FDNAMES", "https"),
        (["LISTEN_PID": "42", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "http:https"], "LISTEN_FDNAMES", "http:https"),
    ])
    func malformedVariable_IsAnErrorNamingItAndItsValue(environment: [String: String], variable: String, value: String) {
        let error = #expect(throws: SystemdSocketActivationError.self) { try SystemdSocketActivation.parse(environment, processID: 42) }
        #expect(error?.variable == variable)
        #expect(error?.description.hasPrefix("socket activation: \(variable) ") == true, "\(String(describing: error))")
        #expect(error?.description.hasSuffix("got \"\(value)\"") == true, "\(String(describing: error))")
    }

    @Test func fromEnvironment_UnsetsTheVariables_EvenWhenTheyAreForAnotherProcess() throws {
        // LISTEN_PID 1 is never this test process, so no descriptor is touched.
        setenv("LISTEN_PID", "1", 1)
        setenv("LISTEN_FDS", "1", 1)
        setenv("LISTEN_FDNAMES", "https", 1)
        #expect(try SystemdSocketActivation.fromEnvironment() == nil)
        for name in SystemdSocketActivation.variableNames {
            #expect(getenv(name) == nil, "\(name) is unset")
        }
    }
}

/// Adopting an inherited listening socket: it must be a listening TCP socket; it becomes
/// non-blocking and close-on-exec, and accepts like a socket the listener bound itself.
@Suite struct InheritedListenerTests {
    @Test func inheritedListeningSocket_IsAdopted_AndAcceptsAConnection() async throws {
        let fd = try makeSocket(family: AF_INET, type: SOCK_STREAM, listening: true)
        let listener = try Listener(inheritedDescriptor: fd)
        defer { listener.stop() }
        #expect(listener.localAddress.host == "127.0.0.1")
        #expect(listener.localAddress.port > 0)
        #expect(fcntl(fd, F_GETFL) & O_NONBLOCK != 0, "non-blocking")
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0, "close-on-exec")

        let (client, socket) = try await connectAndAccept(listener)
        defer { close(client) }
        defer { close(socket.fd) }
        #expect(socket.peer.host == "127.0.0.1")
    }

    @Test func inheritedIPv6Socket_ReportsItsAddress() throws {
        let fd = try makeSocket(family: AF_INET6, type: SOCK_STREAM, listening: true)
        let listener = try Listener(inheritedDescriptor: fd)
        defer { listener.stop() }
        #expect(listener.localAddress.description == "[::1]:\(listener.localAddress.port)")
    }

    @Test func datagramSocket_IsRefused_NamingTheDescriptor() throws {
        let fd = try makeSocket(family: AF_INET, type: SOCK_DGRAM, listening: false)
        defer { close(fd) }
        let error = #expect(throws: SocketError.self) { try Listener(inheritedDescriptor: fd) }
        #expect(error?.code == EPROTOTYPE)
        #expect(error?.description.hasPrefix("inherited descriptor \(fd): not a stream (TCP) socket") == true, "\(String(describing: error))")
    }

    @Test func streamSocketThatIsNotListening_IsRefused() throws {
        let fd = try makeSocket(family: AF_INET, type: SOCK_STREAM, listening: false)
        defer { close(fd) }
        let error = #expect(throws: SocketError.self) { try Listener(inheritedDescriptor: fd) }
        #expect(error?.code == EINVAL)
        #expect(error?.description == "inherited descriptor \(fd): the socket is not listening (SO_ACCEPTCONN is 0)")
    }

    @Test func unixDomainListeningSocket_InTheAbstractNamespace_IsAdopted_NamedWithAnAt() throws {
        let fd = socket(AF_UNIX, LibC.streamSocket, 0)
        try #require(fd >= 0)
        // Bound to an abstract name (systemd's `ListenStream=@name`), so nothing is left on disk.
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let text = "whisker-activation-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let name = [0] + Array(text.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + name.count)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        try #require(bound == 0 && listen(fd, 8) == 0)
        let listener = try Listener(inheritedDescriptor: fd)
        #expect(listener.localAddress.description == "unix:@\(text)")
        listener.stop()
    }

    @Test func descriptorThatIsNotASocket_IsRefused() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let error = #expect(throws: SocketError.self) { try Listener(inheritedDescriptor: ends[0]) }
        #expect(error?.code == ENOTSOCK)
        #expect(error?.description.hasPrefix("getsockopt(inherited descriptor \(ends[0]), SO_TYPE) failed") == true, "\(String(describing: error))")
    }
}

/// A socket on the loopback address, port 0, made the way a `.socket` unit makes one (blocking,
/// inheritable), and listening if asked.
private func makeSocket(family: Int32, type: __socket_type, listening: Bool) throws -> Int32 {
    let fd = socket(family, Int32(type.rawValue), 0)
    guard fd >= 0 else { throw SocketError(call: "socket", code: errno) }
    let address = try SocketAddress(host: family == AF_INET6 ? "::1" : "127.0.0.1", port: 0)
    do {
        try address.withSockAddr { (pointer, length) throws(SocketError) in
            guard bind(fd, pointer, length) == 0 else { throw SocketError(call: "bind", code: errno) }
        }
        if listening, listen(fd, 16) != 0 { throw SocketError(call: "listen", code: errno) }
    } catch {
        close(fd)
        throw error
    }
    return fd
}
