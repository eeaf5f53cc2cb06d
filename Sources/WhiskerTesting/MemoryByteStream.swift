public import Dispatch
public import WhiskerSockets

/// A ``/WhiskerSockets/ByteStream`` in memory, to test a connection from exact bytes without sockets: the test
/// sends what a peer would (``send(_:)-(String)``, ``sendEnd()``) and awaits what the connection wrote
/// (``received(until:)``). Everything the connection sees happens on its worker's queue, as over a
/// socket, and a test can hold writes back (``blockWrites()``) to play a client that stopped reading.
///
/// Writes leave as they would leave a ``/WhiskerSockets/SocketConnection``: pieces written without a flush wait
/// for the next write that flushes, and what the connection writes while it handles one read
/// (a *read turn*) leaves when the turn ends, its completions run at once. ``writeCount`` counts
/// what leaves, one `sendmsg` each over a socket: the deterministic measure of writes per request.
///
///     let stream = try MemoryByteStream()
///     stream.queue.async { connection = HTTP1Connection(socket: stream, ...); connection.start() }
///     stream.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
///     let response = await stream.received { $0.contains("hello") }
public final class MemoryByteStream: ByteStream, @unchecked Sendable {
    // `@unchecked Sendable`: the mutable state is touched only on `queue`; the public methods
    // that other threads call hop onto it.
    public let worker: IOWorker
    public var queue: DispatchQueue { worker.queue }
    public let peer: SocketAddress
    public private(set) var isClosed = false
    public var onClose: (() -> Void)?
    public private(set) var writeBlockedSince: DispatchTime?

    private var inbound: [UInt8] = []
    private var inboundEnded = false
    private var onReadable: (() -> Void)?
    private var isPaused = false
    private var output: [UInt8] = []
    /// Written and not yet flushed, with the completions still to run when it leaves.
    private var unflushed: [UInt8] = []
    private var unflushedCompletions: [SocketConnection.WriteCompletion] = []
    private var isInReadTurn = false
    private var isFlushDue = false
    private var heldWrites: [(bytes: ArraySlice<UInt8>, completion: SocketConnection.WriteCompletion?)] = []
    private var waiters: [Waiter] = []

    private struct Waiter {
        let predicate: ([UInt8]) -> Bool
        let continuation: CheckedContinuation<[UInt8], Never>
    }

    /// A stream on a worker of its own, from `peer`.
    public convenience init(peer: SocketAddress? = nil) throws {
        try self.init(worker: IOWorker(label: "whisker.memory-stream"), peer: peer)
    }

    /// A stream on `worker`, shared with other streams (a fuzz target makes one stream per input).
    public init(worker: IOWorker, peer: SocketAddress? = nil) throws {
        self.worker = worker
        self.peer = try peer ?? SocketAddress(host: "127.0.0.1", port: 40000)
    }

    // MARK: The peer's side (any thread)

    /// Delivers `text`'s bytes as the peer sending them.
    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Delivers `bytes` as the peer sending them; the connection reads them on its queue.
    public func send(_ bytes: [UInt8]) {
        queue.async { [self] in
            inbound += bytes
            notifyReadable()
        }
    }

    /// The peer closes its side: reads return the end of the stream once `inbound` is drained.
    public func sendEnd() {
        queue.async { [self] in
            inboundEnded = true
            notifyReadable()
        }
    }

    /// Holds back what the connection writes from now on, as a peer that stopped reading does
    /// (``writeBlockedSince`` is set once a write waits); ``unblockWrites()`` lets it through.
    public func blockWrites() { queue.async { [self] in writeBlockedSince = writeBlockedSince ?? .now() } }

    /// Lets held writes through and completes them.
    public func unblockWrites() {
        queue.async { [self] in
            writeBlockedSince = nil
            let held = heldWrites
            heldWrites = []
            for held in held { write(held.bytes, flush: true, completion: held.completion) }
        }
    }

    /// Waits until what the connection wrote so far satisfies `predicate` (or the stream closed),
    /// and returns all of it.
    public func received(until predicate: @escaping @Sendable ([UInt8]) -> Bool) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                if predicate(output) || isClosed {
                    continuation.resume(returning: output)
                } else {
                    waiters.append(Waiter(predicate: predicate, continuation: continuation))
                }
            }
        }
    }

    /// Everything the connection wrote so far. Read it on ``queue``.
    public var written: [UInt8] { output }

    /// How many times written bytes left the stream (one `sendmsg` each over a socket). Read it
    /// on ``queue``.
    public private(set) var writeCount = 0

    /// ``writeCount`` once every job already queued has run (the read turns of what was sent).
    public func writeCountNow() async -> Int {
        await withCheckedContinuation { continuation in queue.async { [self] in continuation.resume(returning: writeCount) } }
    }

    /// Waits until the stream is closed and returns everything the connection wrote.
    public func receivedUntilClose() async -> [UInt8] { await received { _ in false } }

    // MARK: ByteStream (on the queue)

    public func startReading(_ onReadable: @escaping () -> Void) {
        self.onReadable = onReadable
        notifyReadable()
    }

    public func read(into buffer: inout ReadBuffer) throws(SocketError) -> ReadResult {
        guard !isClosed else { return .endOfStream }
        if inbound.isEmpty { return inboundEnded ? .endOfStream : .wouldBlock }
        let count = inbound.count
        buffer.append(contentsOf: inbound)
        inbound = []
        return .bytes(count)
    }

    public func pauseReading() { isPaused = true }

    public func resumeReading() {
        guard isPaused else { return }
        isPaused = false
        notifyReadable()
    }

    public func write(_ bytes: ArraySlice<UInt8>, flush: Bool, completion: SocketConnection.WriteCompletion?) {
        guard !isClosed else {
            completion?(SocketError(call: "write", code: 32 /* EPIPE */))
            return
        }
        if writeBlockedSince != nil {
            heldWrites.append((bytes, completion))
            return
        }
        unflushed += bytes
        if isInReadTurn {
            isFlushDue = isFlushDue || flush
            completion?(nil)
            return
        }
        if let completion { unflushedCompletions.append(completion) }
        if flush { deliverUnflushed() }
    }

    public func closeAfterFlush(linger: DispatchTimeInterval) {
        // What waits for a flush leaves; held writes are dropped, as a reset would drop them.
        deliverUnflushed()
        close()
    }

    public func close() {
        guard !isClosed else { return }
        // What the read turn wrote is offered to the peer first, as a socket's close does.
        if isFlushDue { deliverUnflushed() }
        isClosed = true
        onReadable = nil
        let failed = unflushedCompletions + heldWrites.compactMap(\.completion)
        unflushed = []
        unflushedCompletions = []
        heldWrites = []
        for completion in failed { completion(SocketError(call: "write", code: 32 /* EPIPE */)) }
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.continuation.resume(returning: output) }
        let onClose = self.onClose
        self.onClose = nil
        onClose?()
    }

    // MARK: Private

    /// Writes what waits for a flush as one write, then runs its completions.
    private func deliverUnflushed() {
        isFlushDue = false
        guard !unflushed.isEmpty || !unflushedCompletions.isEmpty else { return }
        let completions = unflushedCompletions
        unflushedCompletions = []
        if !unflushed.isEmpty { writeCount += 1 }
        output += unflushed
        unflushed = []
        for completion in completions { completion(nil) }
        guard waiters.contains(where: { $0.predicate(output) }) else { return }
        let waiting = waiters
        waiters = waiting.filter { !$0.predicate(output) }
        for waiter in waiting where waiter.predicate(output) { waiter.continuation.resume(returning: output) }
    }

    /// Tells the connection there is something to read, as a readiness event would: later, on
    /// the queue, never inside the caller's stack.
    private func notifyReadable() {
        guard !isPaused, !isClosed, onReadable != nil, !inbound.isEmpty || inboundEnded else { return }
        queue.async { [self] in
            guard !isPaused, !isClosed, !inbound.isEmpty || inboundEnded else { return }
            isInReadTurn = true
            onReadable?()
            isInReadTurn = false
            if isFlushDue && !isClosed { deliverUnflushed() }
        }
    }
}
