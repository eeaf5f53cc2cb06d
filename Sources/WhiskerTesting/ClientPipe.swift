#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import WhiskerCore
import WhiskerSockets

/// The two-way byte pipe under ``WhiskerTestTransport``'s HTTP/1.1 and HTTP/2 clients: a
/// connection held in memory (``InProcessPipe``) or a TCP socket (``SocketPipe``). Both push back:
/// `send` returns once the other side has room, so a large upload never waits whole in memory.
protocol ClientPipe: Sendable {
    /// Sends `bytes`; returns once the peer has room for more (throws once the pipe is closed).
    func send(_ bytes: [UInt8]) async throws
    /// The next bytes from the peer, as many as have arrived; empty at the end of the stream.
    /// Cancelling the task that waits disconnects the pipe, as a client that gives up leaves.
    func receive() async throws -> [UInt8]
    /// Closes both ways now (a client that leaves): what the peer still sends is dropped.
    func disconnect()
}

/// The pipe closed (by the server, or by the client's own ``ClientPipe/disconnect()``).
struct PipeClosedError: Error, CustomStringConvertible {
    var description: String { "the connection to the server closed" }
}

/// A connection to a server's routes in memory: the server's own connection code reads what the
/// client sends and writes its answer here, as over an accepted socket (``WhiskerServer`` `serve`),
/// and the client reads it. Unlike ``MemoryByteStream`` (which keeps everything for a test to
/// inspect) it holds at most about ``window`` bytes each way, as a socket's buffers would: a
/// client's send waits while the server does not read (a handler that reads its body slowly, or
/// a connection paused by its body's backpressure), and the server's writes complete late while
/// the client does not read.
final class InProcessPipe: ByteStream, ClientPipe, @unchecked Sendable {
    // `@unchecked Sendable`: the state is touched only on `queue`; the client's methods hop there.
    let worker: IOWorker
    var queue: DispatchQueue { worker.queue }
    let peer: SocketAddress
    private(set) var isClosed = false
    var onClose: (() -> Void)?
    var writeBlockedSince: DispatchTime? { nil }

    /// How many bytes each way may wait for the other side before it is held back.
    static let window = 256 * 1024
    /// The most one read gives the connection, as a socket read into a 64 KiB buffer would.
    static let readSize = 64 * 1024

    private var inbound: [UInt8] = []
    private var onReadable: (() -> Void)?
    private var isPaused = false
    private var isReadScheduled = false
    private var sendWaiters: [CheckedContinuation<Void, any Error>] = []
    private var outbound: [UInt8] = []
    private var heldCompletions: [SocketConnection.WriteCompletion] = []
    private var receiveWaiter: CheckedContinuation<[UInt8], any Error>?

    /// Opens a connection to `server`'s routes on `worker`. The server's routes are frozen.
    init(to server: WhiskerServer, worker: IOWorker) throws {
        self.worker = worker
        self.peer = try SocketAddress(host: "127.0.0.1", port: 40000)
        queue.sync { server.serve(self) }
    }

    // MARK: The client's side (any thread)

    func send(_ bytes: [UInt8]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { [self] in
                guard !isClosed else { return continuation.resume(throwing: PipeClosedError()) }
                inbound += bytes
                scheduleRead()
                if inbound.count <= Self.window { continuation.resume() } else { sendWaiters.append(continuation) }
            }
        }
    }

    func receive() async throws -> [UInt8] {
        try await withTaskCancellationHandler { try await receiveNow() } onCancel: { disconnect() }
    }

    private func receiveNow() async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                if !outbound.isEmpty {
                    continuation.resume(returning: takeOutbound())
                } else if isClosed {
                    continuation.resume(returning: [])
                } else {
                    receiveWaiter = continuation
                }
            }
        }
    }

    func disconnect() {
        queue.async { [self] in closeNow() }
    }

    // MARK: ByteStream (on the queue)

    func startReading(_ onReadable: @escaping () -> Void) {
        self.onReadable = onReadable
        scheduleRead()
    }

    func read(into buffer: inout ReadBuffer) throws(SocketError) -> ReadResult {
        guard !isClosed else { return .endOfStream }
        guard !inbound.isEmpty else { return .wouldBlock }
        let count = min(inbound.count, Self.readSize)
        buffer.append(contentsOf: inbound[..<count])
        inbound.removeFirst(count)
        if inbound.count <= Self.window, !sendWaiters.isEmpty {
            let waiting = sendWaiters
            sendWaiters = []
            for waiter in waiting { waiter.resume() }
        }
        return .bytes(count)
    }

    func pauseReading() { isPaused = true }

    func resumeReading() {
        guard isPaused else { return }
        isPaused = false
        scheduleRead()
    }

    func write(_ bytes: ArraySlice<UInt8>, flush: Bool, completion: SocketConnection.WriteCompletion?) {
        guard !isClosed else {
            completion?(SocketError(call: "write", code: EPIPE))
            return
        }
        outbound += bytes
        if let completion {
            if outbound.count <= Self.window { completion(nil) } else { heldCompletions.append(completion) }
        }
        if let waiter = receiveWaiter, !outbound.isEmpty {
            receiveWaiter = nil
            waiter.resume(returning: takeOutbound())
        }
    }

    func closeAfterFlush(linger: DispatchTimeInterval) {
        // What was written is already the client's to read: it has gone out.
        let held = heldCompletions
        heldCompletions = []
        for completion in held { completion(nil) }
        closeNow()
    }

    func close() {
        closeNow()
    }

    // MARK: Private

    private func closeNow() {
        guard !isClosed else { return }
        isClosed = true
        onReadable = nil
        inbound = []
        let held = heldCompletions
        heldCompletions = []
        for completion in held { completion(SocketError(call: "write", code: EPIPE)) }
        let waiting = sendWaiters
        sendWaiters = []
        for waiter in waiting { waiter.resume(throwing: PipeClosedError()) }
        if let waiter = receiveWaiter {
            receiveWaiter = nil
            waiter.resume(returning: takeOutbound())
        }
        let onClose = self.onClose
        self.onClose = nil
        onClose?()
    }

    /// What the server wrote, handed to the client; held writes complete.
    private func takeOutbound() -> [UInt8] {
        let bytes = outbound
        outbound = []
        let held = heldCompletions
        heldCompletions = []
        for completion in held { completion(nil) }
        return bytes
    }

    /// Tells the connection there is something to read, later, on the queue (as a readiness event
    /// would), and again after each read while bytes are left: the connection reads once per event.
    private func scheduleRead() {
        guard !isReadScheduled, !isPaused, !isClosed, onReadable != nil, !inbound.isEmpty else { return }
        isReadScheduled = true
        queue.async { [self] in
            isReadScheduled = false
            guard !isPaused, !isClosed, !inbound.isEmpty else { return }
            onReadable?()
            scheduleRead()
        }
    }
}

/// A TCP connection to a running server, for ``WhiskerTestTransport``'s live mode: a blocking
/// socket whose sends and receives run on two Dispatch queues of their own (never on Swift's
/// cooperative pool, which the server's handlers need), so that the client reads while it sends.
final class SocketPipe: ClientPipe, @unchecked Sendable {
    // `@unchecked Sendable`: `fd` is immutable; each queue serialises its own direction.
    private let fd: Int32
    private let sendQueue = DispatchQueue(label: "whisker.test-transport.send")
    private let receiveQueue = DispatchQueue(label: "whisker.test-transport.receive")

    /// Connects to `address`; any one receive may wait `timeout` (then it fails).
    static func connect(to address: SocketAddress, timeout: Duration) async throws -> SocketPipe {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "whisker.test-transport.connect").async {
                continuation.resume(with: Result { () throws -> SocketPipe in
                    SocketPipe(fd: try connectedSocket(to: address, timeout: timeout, noDelay: true))
                })
            }
        }
    }

    private init(fd: Int32) { self.fd = fd }

    deinit { LibC.close(fd) }

    func send(_ bytes: [UInt8]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            sendQueue.async { [fd] in
                continuation.resume(with: Result { () throws(SocketError) in
                    var offset = 0
                    while offset < bytes.count {
                        let written = bytes[offset...].withUnsafeBytes { LibC.send(fd, $0.baseAddress, $0.count, noSignalSendFlags) }
                        if written < 0 {
                            if errno == EINTR { continue }
                            throw SocketError(call: "send", code: errno)
                        }
                        offset += written
                    }
                })
            }
        }
    }

    func receive() async throws -> [UInt8] {
        try await withTaskCancellationHandler { try await receiveNow() } onCancel: { disconnect() }
    }

    private func receiveNow() async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            receiveQueue.async { [fd] in
                continuation.resume(with: Result { () throws -> [UInt8] in
                    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
                    while true {
                        let count = chunk.withUnsafeMutableBytes { LibC.recv(fd, $0.baseAddress, $0.count, 0) }
                        if count >= 0 { return Array(chunk[..<count]) }
                        if errno == EINTR { continue }
                        if errno == EAGAIN { throw WhiskerTestTransportError("timed out waiting for the server") }
                        throw SocketError(call: "recv", code: errno)
                    }
                })
            }
        }
    }

    func disconnect() {
        // Wakes a receive or send in progress; the descriptor itself closes with the last reference.
        _ = LibC.shutdown(fd, Int32(SHUT_RDWR))
    }
}
