import Testing
import WhiskerSockets
import WhiskerTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Listening on a Unix domain socket: the file's mode, a stale file from a process that is gone,
/// one another process still serves, a file that is not a socket, and the file removed at stop.
@Suite struct UnixDomainSocketTests {
    /// A fresh path in a directory of the test's own.
    private func path() throws -> String {
        try temporarySocketPath("whisker.sock")
    }

    private func fileMode(_ path: String) -> UInt32? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return UInt32(info.st_mode)
    }

    @Test func addresses_ReadAndPrintAsPaths_AndRefuseWhatCannotBeOne() throws {
        let address = try SocketAddress(unixPath: "/run/cats.sock")
        #expect(address.description == "unix:/run/cats.sock")
        #expect(address.unixPath == "/run/cats.sock" && address.port == 0 && address.family == AF_UNIX)
        #expect(throws: SocketAddressError.self) { try SocketAddress(unixPath: "") }
        #expect(throws: SocketAddressError.self) { try SocketAddress(unixPath: "/" + String(repeating: "a", count: SocketAddress.maxUnixPathLength)) }
        #expect(try SocketAddress(host: "127.0.0.1", port: 1).unixPath == nil)
    }

    @Test func aListener_ServesOnItsPath_WithItsMode_AndRemovesTheFileWhenItStops() async throws {
        let path = try path()
        let listener = try Listener(address: SocketAddress(unixPath: path), permissions: 0o660)
        #expect(listener.localAddress.unixPath == path)
        let mode = try #require(fileMode(path))
        #expect(mode & UInt32(S_IFMT) == UInt32(S_IFSOCK), "a socket file")
        #expect(mode & 0o777 == 0o660)
        let (client, accepted) = try await connectAndAccept(listener)
        defer { close(client) }
        #expect(accepted.peer.unixPath == "", "a connecting client's socket is unnamed")
        close(accepted.fd)
        await listener.stop()
        #expect(fileMode(path) == nil, "the file goes with the listener")
    }

    @Test func aStaleSocketFile_IsReplaced() throws {
        let path = try path()
        // A socket bound and closed without removing its file, as a process that crashed leaves it.
        let stale = socket(AF_UNIX, LibC.streamSocket, 0)
        try SocketAddress(unixPath: path).withSockAddr { (address, length) throws(SocketError) in
            guard bind(stale, address, length) == 0 else { throw SocketError(call: "bind", code: errno) }
        }
        close(stale)
        #expect(fileMode(path) != nil)
        let listener = try Listener(address: SocketAddress(unixPath: path))
        listener.stop()
    }

    @Test func aSocketAnotherListenerServes_IsAddressInUse_AndKept() async throws {
        let path = try path()
        let first = try Listener(address: SocketAddress(unixPath: path))
        let error = #expect(throws: SocketError.self) { try Listener(address: SocketAddress(unixPath: path)) }
        #expect(error?.isAddressInUse == true)
        #expect(error?.description.contains("another process accepts connections on \(path)") == true)
        #expect(fileMode(path) != nil, "the serving listener's file stays")
        await first.stop()
    }

    @Test func aFileThatIsNotASocket_IsRefused_AndLeftAlone() throws {
        let path = try path()
        let fd = open(path, O_CREAT | O_WRONLY, 0o600)
        close(fd)
        let error = #expect(throws: SocketError.self) { try Listener(address: SocketAddress(unixPath: path)) }
        #expect(error?.description.contains("exists and is not a socket") == true)
        let mode = try #require(fileMode(path))
        #expect(mode & UInt32(S_IFMT) == UInt32(S_IFREG), "still the regular file")
    }

    @Test func anInheritedUnixSocket_IsServed_AndItsFileKept() async throws {
        let path = try path()
        let fd = socket(AF_UNIX, LibC.streamSocket, 0)
        try SocketAddress(unixPath: path).withSockAddr { (address, length) throws(SocketError) in
            guard bind(fd, address, length) == 0 else { throw SocketError(call: "bind", code: errno) }
        }
        #expect(listen(fd, 8) == 0)
        let listener = try Listener(inheritedDescriptor: fd)
        #expect(listener.localAddress.unixPath == path)
        let (client, accepted) = try await connectAndAccept(listener)
        close(client)
        close(accepted.fd)
        await listener.stop()
        #expect(fileMode(path) != nil, "an inherited socket's file is its supervisor's")
    }
}
