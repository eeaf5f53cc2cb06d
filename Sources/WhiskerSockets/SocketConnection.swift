#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import Dispatch

/// The I/O of one connected socket, registered with an ``IOWorker`` and confined to its queue.
///
/// Every method must be called on ``queue``, and every callback runs there. Reads are
/// readiness-driven: ``startReading(_:)`` installs a handler that is called when bytes (or the
/// end of stream) can be read, and the handler calls `read(into:)` until it has what it needs
/// or the socket would block. Writes are queued and flushed with `sendmsg` (gathering up to
/// 64 buffers, `MSG_NOSIGNAL` so a vanished peer is an error, not `SIGPIPE`); each write's
/// completion runs once its bytes are in the kernel, which is the backpressure signal.
///
/// Writes made while the read handler runs (a *read turn*: the responses to what that read
/// brought, pipelined HTTP/1.1 requests or a batch of HTTP/2 streams, and TLS records around
/// them) leave together in one `sendmsg` when the handler returns, not one each: a write in a
/// turn is accepted, and its completion runs at once, while the turn has queued at most
/// `turnBudget` bytes; past that the queue is flushed then and there, and completions wait for
/// the kernel again. A write outside a turn (a handler that answered later, a timer) is flushed
/// at once, so a lone response never waits for anything.
///
/// The worker's epoll set watches the descriptor for reading while reading is started and not
/// paused, and for writing only while queued bytes wait for the kernel; pausing, resuming and a
/// blocked write are the only changes of interest, so a keep-alive request changes none. The
/// descriptor leaves the epoll set before it is closed, never after (a reused descriptor number
/// must not inherit a registration): the worker closes it (``IOBackend/dispatchSources``: once
/// its sources are cancelled).
public final class SocketConnection: ByteStream, IOReadinessHandler {
    /// The worker whose queue owns this connection's state and whose epoll set watches it.
    public let worker: IOWorker
    /// The serial queue that owns this connection's state (the worker's).
    public var queue: DispatchQueue { worker.queue }
    /// The remote address.
    public let peer: SocketAddress
    private let fd: Int32
    // The stored state marked `@exclusivity(unchecked)` lives on one queue (see the type's notes).
    // Release builds do not check exclusive access to it at run time (those checks were 4% of a
    // request's instructions); debug builds, which the tests run, still do (Performance.md).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var isReading = false
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var isReadPaused = false
    /// A read found the end of the input (end of stream, or an error such as a reset): no read can
    /// bring more, so the connection stops asking for readability once the read turn that found it
    /// ends. Level-triggered, the end stays readable: a handler that returned on it without closing
    /// would be called again and again, a core spinning for as long as the connection lives.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var isInputEnded = false
    /// Queued bytes wait for the kernel to take more: the worker watches for writability.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var isWaitingToWrite = false
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var isRegistered = false
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var interest: IOInterest = []
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var onReadable: (() -> Void)?
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var pending: [PendingWrite] = []
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var pendingHead = 0
    /// Bytes queued and not yet taken by the kernel.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var queuedBytes = 0
    /// The read handler is running: flushing writes wait for its end (see the type's notes).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var isInReadTurn = false
    /// A write of the current read turn asked for a flush.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var isFlushDue = false
    /// What a read turn may queue, its writes completed at once, before it flushes anyway: a
    /// client that pipelines many requests for large responses cannot make the server buffer
    /// all of them.
    static let turnBudget = 64 * 1024
    /// The system calls made for this connection, for tests that hold the I/O per request.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    package private(set) var systemCalls = SystemCallCounts()
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var lingerState: LingerState = .none
    /// True once ``close()`` ran: nothing more is read or written.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    public private(set) var isClosed = false
    /// Called once, on the queue, after the connection closed (by either side).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    public var onClose: (() -> Void)?

    /// Since when queued bytes have been waiting for the kernel to take more (the last time a
    /// blocked write made progress); `nil` while writes are not blocked.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    public private(set) var writeBlockedSince: DispatchTime?
    /// Since when queued bytes have waited without a break, and the bytes the peer took since.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    public private(set) var writeBacklog: WriteBacklog?

    /// Called when a queued write has reached the kernel (`nil`) or failed.
    public typealias WriteCompletion = (SocketError?) -> Void

    private struct PendingWrite {
        var bytes: ArraySlice<UInt8>
        var completion: WriteCompletion?
        /// A region of a file to `sendfile(2)` instead of bytes (``writeFile(descriptor:offset:count:completion:)``).
        var file: FileRegion? = nil
    }

    private struct FileRegion {
        let descriptor: Int32
        var offset: Int64
        var remaining: Int
    }

    private enum LingerState {
        case none
        /// Close once the queue drains, then discard what the peer still sends until EOF.
        case closeAfterFlush(linger: DispatchTimeInterval, onlyForUnreadInput: Bool)
        case discarding(budget: Int)
        /// Closed for idleness with bytes the peer has not taken (``closeIdle(lookingAgainAfter:minimumBytesPerSecond:)``):
        /// the write side is shut, input is discarded, and every `period` the peer's progress decides.
        case draining(IdleDrainCheck, period: Duration, minimumBytesPerSecond: Double?, budget: Int)
    }

    /// Takes ownership of an accepted socket.
    /// - Parameters:
    ///   - socket: The connected socket; this connection closes it.
    ///   - worker: The worker that will own the connection; use the connection on its queue only.
    public init(socket: Socket, worker: IOWorker) {
        self.fd = socket.fd
        self.peer = socket.peer
        self.worker = worker
    }

    @inline(__always) private func assertOnQueue() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(queue))
        #endif
    }

    // MARK: Reading

    /// Starts delivering readiness to `onReadable`, which should call `read(into:)`.
    public func startReading(_ onReadable: @escaping () -> Void) {
        assertOnQueue()
        guard !isClosed, !isReading else { return }
        self.onReadable = onReadable
        isReading = true
        updateInterest()
    }

    /// Stops readiness events until ``resumeReading()``: the peer's bytes wait in the kernel,
    /// and TCP flow control slows the peer down. This is how request-body backpressure reaches the client.
    public func pauseReading() {
        assertOnQueue()
        guard !isReadPaused, !isClosed else { return }
        isReadPaused = true
        updateInterest()
    }

    /// Undoes ``pauseReading()``.
    public func resumeReading() {
        assertOnQueue()
        guard isReadPaused, !isClosed else { return }
        isReadPaused = false
        updateInterest()
    }

    /// Tells the worker what the connection waits for now; registers on first need.
    private func updateInterest() {
        var wanted: IOInterest = []
        if isReading && !isReadPaused && !isInputEnded { wanted.insert(.read) }
        if isWaitingToWrite { wanted.insert(.write) }
        guard wanted != interest || !isRegistered else { return }
        do {
            if isRegistered {
                try worker.update(fd, interest: wanted)
            } else {
                try worker.register(fd, interest: wanted, handler: self)
                isRegistered = true
            }
            interest = wanted
        } catch {
            close(failingWritesWith: error)
        }
    }

    /// The worker reports readiness: flush a blocked write, deliver a readable event. An error or
    /// hang-up while neither is wanted (reading paused, nothing to write) means the peer is gone:
    /// close, as a read or write would find.
    func handle(_ readiness: IOReadiness) {
        if isWaitingToWrite && (readiness.isWritable || readiness.isFailed) { flush() }
        guard !isClosed else { return }
        if interest.contains(.read) && (readiness.isReadable || readiness.isFailed) {
            if case .discarding = lingerState { discardInput(); return }
            if case .draining = lingerState { discardDrainingInput(); return }
            readTurn()
        } else if readiness.isFailed && !interest.contains(.write) {
            close()
        }
    }

    /// Runs the read handler; what it wrote leaves in one flush when it returns. A turn that found
    /// the end of the input is the last: readability is no longer asked for (a reset or a hang-up
    /// still closes the connection, see ``handle(_:)``).
    private func readTurn() {
        isInReadTurn = true
        onReadable?()
        isInReadTurn = false
        flushTurn()
        if isInputEnded && interest.contains(.read) && !isClosed { updateInterest() }
    }

    /// Writes what the read turn queued, if it asked for a flush and the socket is still open.
    private func flushTurn() {
        guard isFlushDue else { return }
        isFlushDue = false
        if !isClosed && !isWaitingToWrite { flush() }
    }

    /// Reads once into `buffer`.
    /// - Throws: ``SocketError``, for example `ECONNRESET` when the peer reset the connection.
    public func read(into buffer: inout ReadBuffer) throws(SocketError) -> ReadResult {
        try read(into: &buffer, chunk: 64 * 1024)
    }

    /// Reads once into `buffer`, asking for at most `chunk` bytes more than the buffer holds free.
    public func read(into buffer: inout ReadBuffer, chunk: Int) throws(SocketError) -> ReadResult {
        assertOnQueue()
        if isClosed { return .endOfStream }
        systemCalls.reads += 1
        return try noticingTheEnd { () throws(SocketError) in ReadResult(try buffer.read(from: fd, chunk: chunk)) }
    }

    /// Runs one read, noting whether it found the end of the input (see `isInputEnded`).
    @inline(__always) private func noticingTheEnd(_ read: () throws(SocketError) -> ReadResult) throws(SocketError) -> ReadResult {
        do {
            let result = try read()
            if result == .endOfStream { isInputEnded = true }
            return result
        } catch {
            isInputEnded = true
            throw error
        }
    }

    /// Reads once into `space` (for a layer that transforms the bytes before buffering them, as
    /// TLS decrypts them).
    public func read(into space: UnsafeMutableRawBufferPointer) throws(SocketError) -> ReadResult {
        try receive(into: space, flags: 0)
    }

    /// Copies up to `space.count` received bytes into `space` without taking them (`MSG_PEEK`):
    /// the next read returns them again. For a header of unknown length in front of the
    /// connection's own bytes (the PROXY protocol), which must be taken exactly, no byte more.
    public func peek(into space: UnsafeMutableRawBufferPointer) throws(SocketError) -> ReadResult {
        try receive(into: space, flags: Int32(MSG_PEEK))
    }

    private func receive(into space: UnsafeMutableRawBufferPointer, flags: Int32) throws(SocketError) -> ReadResult {
        assertOnQueue()
        if isClosed { return .endOfStream }
        systemCalls.reads += 1
        return try noticingTheEnd { () throws(SocketError) in ReadResult(try systemCall("recv") { recv(fd, space.baseAddress, space.count, flags) }) }
    }

    // MARK: Writing

    /// Queues `bytes` and, unless `flush` is false, writes as much as the kernel takes now (or,
    /// during a read turn, when the turn ends).
    /// - Parameters:
    ///   - bytes: The bytes; not copied.
    ///   - flush: Pass false to hold the bytes until the next write that flushes, so that
    ///     several pieces (a head and a body, a chunk and its framing) leave in one `sendmsg`.
    ///   - completion: Called on the queue once the bytes are in the kernel (or accepted into a
    ///     read turn's batch, within its budget), or with the error that stopped them (also when
    ///     the connection closes first).
    public func write(_ bytes: ArraySlice<UInt8>, flush: Bool, completion: WriteCompletion?) {
        assertOnQueue()
        guard !isClosed else {
            completion?(SocketError(call: "write", code: EPIPE))
            return
        }
        if bytes.isEmpty && pendingHead == pending.count {
            completion?(nil)
            return
        }
        queuedBytes += bytes.count
        if isInReadTurn && queuedBytes <= Self.turnBudget {
            pending.append(PendingWrite(bytes: bytes, completion: nil))
            isFlushDue = isFlushDue || flush
            completion?(nil)
            return
        }
        pending.append(PendingWrite(bytes: bytes, completion: completion))
        if flush || isFlushDue {
            isFlushDue = false
            if !isWaitingToWrite { self.flush() }
        }
    }

    /// True on Linux, where a plain socket sends files with `sendfile(2)`.
    public var writesFiles: Bool { fileSendingIsAvailable }

    /// Queues a region of a file, sent with `sendfile(2)` once the bytes queued before it are in
    /// the kernel; flushed at once (or when the read turn ends). `completion` runs once the last
    /// byte of the region is in the kernel, or with the error that stopped it.
    public func writeFile(descriptor: Int32, offset: Int64, count: Int, completion: @escaping WriteCompletion) {
        assertOnQueue()
        guard !isClosed else {
            completion(SocketError(call: "sendfile", code: EPIPE))
            return
        }
        guard count > 0 else {
            write([], flush: true, completion: completion)
            return
        }
        queuedBytes += count
        pending.append(PendingWrite(bytes: [], completion: completion, file: FileRegion(descriptor: descriptor, offset: offset, remaining: count)))
        if isInReadTurn {
            isFlushDue = true
        } else if !isWaitingToWrite {
            flush()
        }
    }

    /// One `sendfile(2)` of the file region at the head of the queue.
    private func sendFileRegion(completed: inout [WriteCompletion]) throws(SocketError) -> Bool {
        let region = pending[pendingHead].file!
        systemCalls.writes += 1
        let result = try systemCall("sendfile") { sendFile(socket: fd, file: region.descriptor, offset: region.offset, count: min(region.remaining, 1 << 30)) }
        guard case .done(let written) = result else { return false }
        guard written > 0 else { throw SocketError(call: "sendfile", code: EIO) }  // the file ended early
        queuedBytes -= written
        if isWaitingToWrite {
            writeBlockedSince = .now()
            writeBacklog?.bytesSent += written
        }
        pending[pendingHead].file!.offset += Int64(written)
        pending[pendingHead].file!.remaining -= written
        if pending[pendingHead].file!.remaining == 0 {
            if let completion = pending[pendingHead].completion { completed.append(completion) }
            pending[pendingHead] = PendingWrite(bytes: [], completion: nil)
            pendingHead += 1
        }
        return true
    }

    private func flush() {
        var completed: [WriteCompletion] = []
        defer { for completion in completed { completion(nil) } }
        while pendingHead < pending.count {
            if pending[pendingHead].file != nil {
                do {
                    guard try sendFileRegion(completed: &completed) else {
                        waitToWrite()
                        return
                    }
                } catch {
                    completed.removeAll()
                    close(failingWritesWith: error)
                    return
                }
                continue
            }
            let result: IOResult<Int>
            do {
                result = try gatherWrite()
            } catch {
                completed.removeAll()
                close(failingWritesWith: error)
                return
            }
            guard case .done(var written) = result else {
                waitToWrite()
                return
            }
            queuedBytes -= written
            if isWaitingToWrite && written > 0 {
                writeBlockedSince = .now()
                writeBacklog?.bytesSent += written
            }
            while pendingHead < pending.count, pending[pendingHead].file == nil, written > 0 || pending[pendingHead].bytes.isEmpty {
                let count = pending[pendingHead].bytes.count
                if written >= count {
                    written -= count
                    if let completion = pending[pendingHead].completion { completed.append(completion) }
                    pending[pendingHead] = PendingWrite(bytes: [], completion: nil)
                    pendingHead += 1
                    if pendingHead == pending.count { break }
                } else {
                    pending[pendingHead].bytes.removeFirst(written)
                    written = 0
                }
            }
        }
        pending.removeAll(keepingCapacity: pending.capacity <= 16)
        pendingHead = 0
        stopWaitingToWrite()
        if case .closeAfterFlush(let linger, let onlyForUnreadInput) = lingerState { beginLinger(linger, onlyForUnreadInput: onlyForUnreadInput) }
    }

    /// How many queued buffers one `sendmsg` gathers (Linux takes up to 1,024).
    static let maxGather = 64

    /// One `sendmsg` over up to ``maxGather`` queued buffers, their vector on the stack.
    private func gatherWrite() throws(SocketError) -> IOResult<Int> {
        var end = min(pending.count, pendingHead + Self.maxGather)
        // Bytes up to the next file region, which sendfile(2) sends.
        if let region = pending[pendingHead..<end].firstIndex(where: { $0.file != nil }) { end = region }
        systemCalls.writes += 1
        return try withUnsafeTemporaryAllocation(of: iovec.self, capacity: end - pendingHead) { (vectors) throws(SocketError) -> IOResult<Int> in
            try withBuffers(from: pendingHead, to: end, into: vectors)
        }
    }

    /// Nests `withUnsafeBufferPointer` over each buffer so all pointers stay valid for one syscall.
    private func withBuffers(from index: Int, to end: Int, into vectors: UnsafeMutableBufferPointer<iovec>) throws(SocketError) -> IOResult<Int> {
        if index == end {
            var message = msghdr()
            message.msg_iov = vectors.baseAddress
            message.msg_iovlen = vectors.count
            let fd = self.fd
            return try systemCall("sendmsg") { sendmsg(fd, &message, noSignalSendFlags) }
        }
        return try pending[index].bytes.withUnsafeBufferPointer { (buffer) throws(SocketError) -> IOResult<Int> in
            vectors[index - pendingHead] = iovec(iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress), iov_len: buffer.count)
            return try withBuffers(from: index + 1, to: end, into: vectors)
        }
    }

    /// The kernel's buffer is full: watch for writability until it drains.
    private func waitToWrite() {
        guard !isWaitingToWrite else { return }
        isWaitingToWrite = true
        let now = DispatchTime.now()
        writeBlockedSince = now
        writeBacklog = WriteBacklog(since: now, bytesSent: 0)
        updateInterest()
    }

    private func stopWaitingToWrite() {
        guard isWaitingToWrite else { return }
        isWaitingToWrite = false
        writeBlockedSince = nil
        writeBacklog = nil
        updateInterest()
    }


    // MARK: Closing

    /// Closes once every queued write is in the kernel, after a lingering close: the write side is
    /// shut down, and what the peer still sends is read and dropped (up to 1 MiB, then the reading
    /// stops), so that closing with unread input does not make the kernel send a reset that
    /// destroys the response before the peer reads it. It closes at the peer's end of stream, or
    /// after `linger`.
    public func closeAfterFlush(linger: DispatchTimeInterval) {
        closeAfterFlush(linger: linger, onlyForUnreadInput: false)
    }

    /// Closes once every queued write is in the kernel: at once when the peer has sent nothing
    /// that is still unread (a client that asked to close and sent nothing more, as with
    /// `Connection: close`), else lingering as ``closeAfterFlush(linger:)`` does. A close with
    /// nothing unread ends in a FIN after the queued bytes, never a reset, so the wait for the
    /// peer's own close (a read, a deadline, an event) is saved; nginx closes such a connection
    /// the same way.
    public func closeAfterFlush(lingeringOnlyForUnreadInput linger: DispatchTimeInterval) {
        closeAfterFlush(linger: linger, onlyForUnreadInput: true)
    }

    private func closeAfterFlush(linger: DispatchTimeInterval, onlyForUnreadInput: Bool) {
        assertOnQueue()
        guard !isClosed else { return }
        lingerState = .closeAfterFlush(linger: linger, onlyForUnreadInput: onlyForUnreadInput)
        if pendingHead == pending.count {
            beginLinger(linger, onlyForUnreadInput: onlyForUnreadInput)
        } else if isInReadTurn {
            isFlushDue = true
        } else if !isWaitingToWrite {
            flush()
        }
    }

    private func beginLinger(_ linger: DispatchTimeInterval, onlyForUnreadInput: Bool) {
        if onlyForUnreadInput && !hasUnreadInput() {
            close()
            return
        }
        lingerState = .discarding(budget: 1 << 20)
        shutdown(fd, Int32(SHUT_WR))
        if !isReading {
            startReading {}
        } else {
            resumeReading()
        }
        discardInput()
        if !isClosed { LingerDeadlines.shared.add(self, deadline: .now() + linger) }
    }

    /// Whether the peer sent bytes that are still in the kernel, unread (a peek of one byte).
    private func hasUnreadInput() -> Bool {
        var byte: UInt8 = 0
        systemCalls.reads += 1
        return recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) > 0
    }

    /// What the peer sends while the connection lingers is read and dropped, up to the budget
    /// over the whole linger (not per readiness event); past it the reading stops, not the
    /// connection. A close then, with the peer's bytes unread, would be a reset: a client still
    /// uploading the body its answer refused (curl, a browser) would fail its next send and never
    /// read that answer. Paused, its sends block, it reads the answer and stops, and the deadline
    /// closes the connection.
    private func discardInput() {
        guard case .discarding(var budget) = lingerState else { return }
        var scratch = ReadBuffer(capacity: 16 * 1024)
        while budget > 0 {
            let result = try? read(into: &scratch, chunk: 16 * 1024)
            guard case .bytes(let count)? = result else {
                if result != .wouldBlock { return close() }
                break
            }
            budget -= count
            scratch.moveReaderIndex(forwardBy: scratch.readableBytes)
        }
        lingerState = .discarding(budget: budget)
        if budget <= 0 { pauseReading() }
    }

    /// Closes a connection that went idle: at once when the peer has taken everything written to
    /// it (``unsentByteCount`` is 0), as ``close()`` does. Otherwise the kernel still holds a
    /// response the peer has not read (the send buffer autotunes to megabytes, and a connection
    /// is idle once its last response is in it): a plain close would leave it to an orphaned socket
    /// in FIN-WAIT-1, delivering at the peer's pace for as long as the peer keeps its window barely
    /// open. So the write side is shut (a FIN after the bytes), what the peer sends is discarded,
    /// and the connection is looked at again every `period`: it closes once the peer has taken
    /// everything, waits on while the peer takes the bytes at `minimumBytesPerSecond` (any
    /// progress, when `nil`), and is reset (`SO_LINGER` 0: the kernel drops them) when it does
    /// not. A slow download that keeps going is never cut; a stalled reader holds the buffer one
    /// `period` more, never as an orphan. (Bounding `SO_SNDBUF` instead would cap every fast
    /// client's throughput, and still leave an orphan.)
    public func closeIdle(lookingAgainAfter period: Duration, minimumBytesPerSecond: Double?) {
        assertOnQueue()
        guard !isClosed else { return }
        var check = IdleDrainCheck()
        guard check.check(unsent: unsentByteCount, now: .now(), minimumBytesPerSecond: minimumBytesPerSecond) == .keepWaiting else { return close() }
        lingerState = .draining(check, period: period, minimumBytesPerSecond: minimumBytesPerSecond, budget: 1 << 20)
        shutdown(fd, Int32(SHUT_WR))
        if !isReading { startReading {} } else { resumeReading() }
        discardDrainingInput()
        if !isClosed { LingerDeadlines.shared.add(self, deadline: DispatchTime.now().adding(period)) }
    }

    /// What the peer sends while its connection drains is read and dropped (up to 1 MiB, then the
    /// reading stops), so that the final close is not a reset that destroys what it has not read;
    /// at its end of stream the connection closes if the peer has taken everything, else the next
    /// look decides.
    private func discardDrainingInput() {
        guard case .draining(let check, let period, let rate, var budget) = lingerState else { return }
        var scratch = ReadBuffer(capacity: 16 * 1024)
        while budget > 0 {
            let result = try? read(into: &scratch, chunk: 16 * 1024)
            guard case .bytes(let count)? = result else {
                if result == .wouldBlock { break }
                if result == .endOfStream, unsentByteCount == 0 { return close() }
                budget = 0
                break
            }
            budget -= count
            scratch.moveReaderIndex(forwardBy: scratch.readableBytes)
        }
        lingerState = .draining(check, period: period, minimumBytesPerSecond: rate, budget: budget)
        if budget <= 0 { pauseReading() }
    }

    /// The deadline of a lingering close passed: a draining connection (see
    /// ``closeIdle(lookingAgainAfter:minimumBytesPerSecond:)``) is looked at again; any other closes.
    func lingerDeadlinePassed() {
        guard case .draining(var check, let period, let rate, let budget) = lingerState else { return close() }
        switch check.check(unsent: unsentByteCount, now: .now(), minimumBytesPerSecond: rate) {
        case .close: close()
        case .reset: abort()
        case .keepWaiting:
            lingerState = .draining(check, period: period, minimumBytesPerSecond: rate, budget: budget)
            LingerDeadlines.shared.add(self, deadline: DispatchTime.now().adding(period))
        }
    }

    /// Closes now with a reset: `SO_LINGER` of zero makes the kernel drop what it still holds for
    /// the peer and send RST, instead of delivering it to a peer that does not read.
    public func abort() {
        assertOnQueue()
        guard !isClosed else { return }
        var linger = LibC.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<LibC.linger>.size))
        // Not close(): a reset drops what is queued, so the read turn's bytes are not sent first.
        close(failingWritesWith: SocketError(call: "write", code: EPIPE))
    }

    /// The bytes written to the peer that it has not taken: queued here, or in
    /// the kernel's send queue (ioctl `SIOCOUTQ`: not sent, or sent and not acknowledged). One
    /// system call; see `IdleDrainCheck` for what it is for.
    public var unsentByteCount: Int {
        assertOnQueue()
        guard !isClosed else { return 0 }
        return queuedBytes + kernelUnsentBytes(fd)
    }

    /// Closes now: queued writes fail, the descriptor leaves the worker's epoll set and is closed.
    /// Calls ``onClose`` once. What the current read turn wrote is offered to the kernel first, as
    /// it would have been outside a turn (an answer written just before closing still goes out).
    public func close() {
        flushTurn()
        close(failingWritesWith: SocketError(call: "write", code: EPIPE))
    }

    /// Closes, completing every queued write with `error`.
    private func close(failingWritesWith error: SocketError) {
        assertOnQueue()
        guard !isClosed else { return }
        isClosed = true
        onReadable = nil
        switch lingerState {
        case .discarding, .draining: LingerDeadlines.shared.remove(self)
        case .none, .closeAfterFlush: break
        }
        let failed = pending[pendingHead...].compactMap(\.completion)
        pending.removeAll()
        pendingHead = 0
        queuedBytes = 0
        isFlushDue = false
        isWaitingToWrite = false
        writeBlockedSince = nil
        writeBacklog = nil
        if isRegistered {
            // Through the worker, which closes it once nothing watches it any more.
            isRegistered = false
            worker.deregisterAndClose(fd)
        } else {
            LibC.close(fd)
        }
        let onClose = self.onClose
        self.onClose = nil
        for completion in failed { completion(error) }
        onClose?()
    }
}

/// The reads and writes (`sendmsg`) a connection made.
package struct SystemCallCounts: Equatable, Sendable {
    package var reads = 0
    package var writes = 0
}

extension ReadResult {
    /// What one read system call's outcome means: 0 bytes is the end of stream.
    fileprivate init(_ result: IOResult<Int>) {
        switch result {
        case .wouldBlock: self = .wouldBlock
        case .done(0): self = .endOfStream
        case .done(let count): self = .bytes(count)
        }
    }
}
