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
        // The number free on ::1 may be taken on 127.0.0.1 meanwhile (another test, another
        // process): then another number, a few times. Were the two sockets not separate, every
        // try would fail.
        for _ in 0..<10 {
            let v6 = try Listener(address: SocketAddress(host: "::1", port: 0))
            defer { v6.stop() }
            do {
                let v4 = try Listener(address: SocketAddress(host: "127.0.0.1", port: v6.localAddress.port))
                defer { v4.stop() }
                #expect(v4.localAddress.port == v6.localAddress.port)
                return
            } catch let error as SocketError where error.isAddressInUse {
                continue
            }
        }
        Issue.record("no port number was free on both ::1 and 127.0.0.1 in 10 tries")
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
        // The echo, then end of stream: the server shut down its side.
        #expect(await readAll(client) == Array("ping".utf8))
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

    /// A stop accepts the connections already waiting in the backlog (the peer saw them
    /// connected) but only a bounded batch of them: a flood of connections waiting at the stop
    /// cannot hold it up; the rest are reset when the socket closes. Both sides of that limit, with
    /// the worker's queue held while the clients connect, so that they all wait in the backlog.
    @Test(arguments: IOBackend.allForTests) func stop_WithAFewConnectionsWaiting_AcceptsEveryOne(backend: IOBackend) async throws {
        let outcome = try await stopWithConnectionsWaiting(40, backend: backend)
        #expect(outcome.accepted == 40, "a connection the peer saw connected was reset at the stop")
        #expect(outcome.ended == 40 && outcome.reset == 0, "\(outcome)")
    }

    @Test(arguments: IOBackend.allForTests) func stop_WithAFloodOfConnectionsWaiting_AcceptsABoundedBatch_AndResetsTheRest(backend: IOBackend) async throws {
        let clients = 300
        let outcome = try await stopWithConnectionsWaiting(clients, backend: backend)
        // The stop accepts at most 64; the worker may have served one readiness batch of 64
        // before the stop's job reached the queue.
        #expect(outcome.accepted >= 64 && outcome.accepted <= 128, "accepted \(outcome.accepted) of \(clients) at the stop")
        #expect(outcome.ended == outcome.accepted, "\(outcome)")
        #expect(outcome.reset == clients - outcome.accepted, "the connections left waiting were not reset: \(outcome)")
        #expect(outcome.stopSeconds < 5, "the stop took \(outcome.stopSeconds) s")
    }
}

/// Holds `backend` worker's queue while `count` clients connect to a listener on it (so they all
/// wait in its backlog), stops the listener, releases the queue, and reports how many the
/// listener accepted (each closed at once), what each client then read (end of stream or a reset),
/// and how long the stop took from the release.
private func stopWithConnectionsWaiting(_ count: Int, backend: IOBackend) async throws -> (accepted: Int, ended: Int, reset: Int, stopSeconds: Double) {
    let worker = try IOWorker(label: "whisker.listener-flood", backend: backend)
    let listener = try Listener(address: SocketAddress(host: "127.0.0.1", port: 0), backlog: 1024, worker: worker)
    let accepted = Atomic<Int>(0)
    listener.start { socket in
        accepted.add(1, ordering: .relaxed)
        close(socket.fd)
    }
    // The listener is in the worker's epoll set once its start job ran.
    await withCheckedContinuation { done in worker.queue.async { done.resume() } }
    // The queue is held by a job on Dispatch's pool (the test's own threads never block on it).
    let held = DispatchSemaphore(value: 0)
    await withCheckedContinuation { holding in
        worker.queue.async {
            holding.resume()
            held.wait()
        }
    }
    var isHeld = true
    defer { if isHeld { held.signal() } }
    var clients: [Int32] = []
    defer { for client in clients { close(client) } }
    for _ in 0..<count {
        let client = socket(AF_INET, LibC.streamSocket, 0)
        #expect(client >= 0)
        clients.append(client)
        try listener.localAddress.withSockAddr { (address, length) throws(SocketError) in
            guard connect(client, address, length) == 0 else { throw SocketError(call: "connect", code: errno) }
        }
        // A read never waits long: whatever the outcome, the test does not hang.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
    let stopped = AsyncStream.makeStream(of: Void.self)
    listener.stop { stopped.continuation.yield() }
    let released = ContinuousClock.now
    held.signal()
    isHeld = false
    var iterator = stopped.stream.makeAsyncIterator()
    _ = await iterator.next()
    let elapsed = released.duration(to: .now)
    let stopSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    var ended = 0, reset = 0
    for client in clients {
        var byte: UInt8 = 0
        let result = recv(client, &byte, 1, 0)
        if result == 0 { ended += 1 } else if result < 0 && errno == ECONNRESET { reset += 1 }
    }
    return (accepted.load(ordering: .relaxed), ended, reset, stopSeconds)
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
