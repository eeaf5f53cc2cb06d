import Dispatch
import Synchronization
import Testing
import WhiskerSockets

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct ListenerTests {
    @Test func portZero_IsResolvedToTheBoundPort() throws {
        let listener = try Listener(address: SocketAddress(host: "127.0.0.1", port: 0))
        defer { listener.stop() }
        #expect(listener.localAddress.port > 0)
        #expect(listener.localAddress.host == "127.0.0.1")
    }

    @Test func takenPort_ThrowsAddressInUseNamingTheAddress() throws {
        let first = try Listener(address: SocketAddress(host: "127.0.0.1", port: 0))
        defer { first.stop() }
        let error = #expect(throws: SocketError.self) {
            try Listener(address: SocketAddress(host: "127.0.0.1", port: first.localAddress.port))
        }
        #expect(error?.isAddressInUse == true)
        #expect(error?.description.contains("bind(127.0.0.1:\(first.localAddress.port))") == true)
    }

    @Test func ipv4AndIPv6_CanShareAPortNumber() throws {
        let v6 = try Listener(address: SocketAddress(host: "::1", port: 0))
        defer { v6.stop() }
        let v4 = try Listener(address: SocketAddress(host: "127.0.0.1", port: v6.localAddress.port))
        defer { v4.stop() }
        #expect(v4.localAddress.port == v6.localAddress.port)
    }

    @Test(arguments: IOBackend.allForTests) func acceptedSocket_CarriesThePeerAddress_AndEchoesThroughSocketConnection(backend: IOBackend) async throws {
        let listener = try Listener(address: SocketAddress(host: "127.0.0.1", port: 0))
        defer { listener.stop() }
        let (client, socket) = try await connectAndAccept(listener)
        defer { close(client) }
        #expect(socket.peer.host == "127.0.0.1")

        // Echo one message through the connection's read and write paths, then close it.
        let worker = try IOWorker(backend: backend)
        let connection = QueueBound(SocketConnection(socket: socket, worker: worker), queue: worker.queue)
        let closed = AsyncStream.makeStream(of: Void.self)
        connection.run { connection in
            var buffer = ReadBuffer()
            connection.onClose = { closed.continuation.yield() }
            connection.startReading {
                guard case .bytes = try? connection.read(into: &buffer) else { return }
                let bytes = buffer.readBytes(buffer.readableBytes)
                connection.write(bytes) { _ in connection.closeAfterFlush() }
            }
        }
        _ = Array("ping".utf8).withUnsafeBytes { send(client, $0.baseAddress, 4, 0) }
        var reply = [UInt8](repeating: 0, count: 16)
        let count = reply.withUnsafeMutableBytes { recv(client, $0.baseAddress, 16, 0) }
        #expect(Array(reply[0..<max(count, 0)]) == Array("ping".utf8))
        // The server shut down its side: the next read is end of stream.
        #expect(reply.withUnsafeMutableBytes { recv(client, $0.baseAddress, 16, 0) } == 0)
        // Leave without closing the descriptor here: the `defer` closes it once. (A second close
        // would hit whatever socket a parallel test opened on the reused number.)
        shutdown(client, Int32(SHUT_RDWR))
        var closedIterator = closed.stream.makeAsyncIterator()
        #expect(await closedIterator.next() != nil, "the connection closes once the peer is gone")
    }

    @Test(arguments: IOBackend.allForTests) func onAWorker_AcceptsOnItsQueue_AndStopLeavesItsEpollSet(backend: IOBackend) async throws {
        let worker = try IOWorker(label: "whisker.listener-test", backend: backend)
        let listener = try Listener(address: SocketAddress(host: "127.0.0.1", port: 0), worker: worker)
        let (accepted, continuation) = AsyncStream.makeStream(of: String?.self)
        listener.start { socket in
            continuation.yield(IOWorker.currentLabel)
            close(socket.fd)
        }
        let client = socket(AF_INET, LibC.streamSocket, 0)
        defer { close(client) }
        try listener.localAddress.withSockAddr { (address, length) throws(SocketError) in
            #expect(connect(client, address, length) == 0)
        }
        var iterator = accepted.makeAsyncIterator()
        #expect(await iterator.next() == "whisker.listener-test", "accepted on the worker's queue: no hand-off")
        let registered = { await withCheckedContinuation { done in worker.queue.async { done.resume(returning: worker.registeredCount) } } }
        #expect(await registered() == 1, "the listening socket is in the worker's epoll set")
        await listener.stop()
        #expect(await registered() == 0, "and out of it before it is closed")
        let refused = socket(AF_INET, LibC.streamSocket, 0)
        defer { close(refused) }
        try listener.localAddress.withSockAddr { (address, length) throws(SocketError) in
            #expect(connect(refused, address, length) != 0, "closed: a new connection is refused")
        }
    }
}

/// Starts `listener`, connects a blocking client to it (of its address family), and returns the
/// client's descriptor (the caller closes it) and the socket the listener accepted for it.
func connectAndAccept(_ listener: Listener) async throws -> (client: Int32, accepted: Socket) {
    let (accepted, continuation) = AsyncStream.makeStream(of: Socket.self)
    listener.start { continuation.yield($0) }
    let client = socket(listener.localAddress.family, LibC.streamSocket, 0)
    do {
        try listener.localAddress.withSockAddr { (address, length) throws(SocketError) in
            guard connect(client, address, length) == 0 else { throw SocketError(call: "connect", code: errno) }
        }
    } catch {
        close(client)
        throw error
    }
    var iterator = accepted.makeAsyncIterator()
    return (client, try #require(await iterator.next()))
}
