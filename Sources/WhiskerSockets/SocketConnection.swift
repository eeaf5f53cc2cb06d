#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
public import Dispatch

/// The I/O of one connected socket, driven by Dispatch read and write sources on one serial queue.
///
/// Every method must be called on ``queue``, and every callback runs there. Reads are
/// readiness-driven: ``startReading(_:)`` installs a handler that is called when bytes (or the
/// end of stream) can be read, and the handler calls ``read(into:)`` until it has what it needs
/// or the socket would block. Writes are queued and flushed with `sendmsg` (gathering up to
/// 8 buffers, `MSG_NOSIGNAL` so a vanished peer is an error, not `SIGPIPE`); each write's
/// completion runs once its bytes are in the kernel, which is the backpressure signal.
///
/// The descriptor is closed in the sources' cancel handlers, never while a source may still
/// be registered with epoll.
public final class SocketConnection: ByteStream {
    /// The serial queue that owns this connection's state.
    public let queue: DispatchQueue
    /// The remote address.
    public let peer: SocketAddress
    private let fd: Int32
    private var readSource: (any DispatchSourceRead)?
    private var writeSource: (any DispatchSourceWrite)?
    private var isReadPaused = false
    private var isWriteSourceRunning = false
    private var onReadable: (() -> Void)?
    private var pending: [PendingWrite] = []
    private var pendingHead = 0
    private var lingerState: LingerState = .none
    private var sourcesToCancel = 0
    /// True once ``close()`` ran: nothing more is read or written.
    public private(set) var isClosed = false
    /// Called once, on the queue, after the connection closed (by either side).
    public var onClose: (() -> Void)?

    /// Since when queued bytes have been waiting for the kernel to take more (the last time a
    /// blocked write made progress); `nil` while writes are not blocked.
    public private(set) var writeBlockedSince: DispatchTime?

    /// Called when a queued write has reached the kernel (`nil`) or failed.
    public typealias WriteCompletion = (SocketError?) -> Void

    private struct PendingWrite {
        var bytes: ArraySlice<UInt8>
        var completion: WriteCompletion?
    }

    private enum LingerState {
        case none
        /// Close once the queue drains, then discard what the peer still sends until EOF.
        case closeAfterFlush(linger: DispatchTimeInterval)
        case discarding(budget: Int)
    }

    /// Takes ownership of an accepted socket.
    /// - Parameters:
    ///   - socket: The connected socket; this connection closes it.
    ///   - queue: The serial queue that will own the connection.
    public init(socket: Socket, queue: DispatchQueue) {
        self.fd = socket.fd
        self.peer = socket.peer
        self.queue = queue
    }

    @inline(__always) private func assertOnQueue() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(queue))
        #endif
    }

    // MARK: Reading

    /// Starts delivering readiness to `onReadable`, which should call ``read(into:)``.
    public func startReading(_ onReadable: @escaping () -> Void) {
        assertOnQueue()
        guard !isClosed, readSource == nil else { return }
        self.onReadable = onReadable
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [unowned self] in readableEvent() }
        source.setCancelHandler { [self] in sourceCancelled() }
        sourcesToCancel += 1
        readSource = source
        source.resume()
    }

    private func readableEvent() {
        if case .discarding = lingerState { discardInput(); return }
        onReadable?()
    }

    /// Stops readiness events until ``resumeReading()``: the peer's bytes wait in the kernel,
    /// and TCP flow control slows the peer down. This is how request-body backpressure reaches the client.
    public func pauseReading() {
        assertOnQueue()
        guard !isReadPaused, let readSource, !isClosed else { return }
        isReadPaused = true
        readSource.suspend()
    }

    /// Undoes ``pauseReading()``.
    public func resumeReading() {
        assertOnQueue()
        guard isReadPaused, let readSource else { return }
        isReadPaused = false
        readSource.resume()
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
        switch try buffer.read(from: fd, chunk: chunk) {
        case .wouldBlock: return .wouldBlock
        case .done(0): return .endOfStream
        case .done(let count): return .bytes(count)
        }
    }

    /// Reads once into `space` (for a layer that transforms the bytes before buffering them, as
    /// TLS decrypts them).
    public func read(into space: UnsafeMutableRawBufferPointer) throws(SocketError) -> ReadResult {
        assertOnQueue()
        if isClosed { return .endOfStream }
        switch try systemCall("read", { Glibc.read(fd, space.baseAddress, space.count) }) {
        case .wouldBlock: return .wouldBlock
        case .done(0): return .endOfStream
        case .done(let count): return .bytes(count)
        }
    }

    // MARK: Writing

    /// Queues `bytes` and, unless `flush` is false, writes as much as the kernel takes now.
    /// - Parameters:
    ///   - bytes: The bytes; not copied.
    ///   - flush: Pass false to hold the bytes until the next write that flushes, so that
    ///     several pieces (a head and a body, a chunk and its framing) leave in one `sendmsg`.
    ///   - completion: Called on the queue once the bytes are in the kernel, or with the error that
    ///     stopped them (also when the connection closes first).
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
        pending.append(PendingWrite(bytes: bytes, completion: completion))
        if flush && !isWriteSourceRunning { self.flush() }
    }

    private func flush() {
        var completed: [WriteCompletion] = []
        defer { for completion in completed { completion(nil) } }
        while pendingHead < pending.count {
            let result: IOResult<Int>
            do {
                result = try gatherWrite()
            } catch {
                completed.removeAll()
                close(failingWritesWith: error)
                return
            }
            guard case .done(var written) = result else {
                startWriteSource()
                return
            }
            if isWriteSourceRunning && written > 0 { writeBlockedSince = .now() }
            while written > 0 || (pendingHead < pending.count && pending[pendingHead].bytes.isEmpty) {
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
        stopWriteSource()
        if case .closeAfterFlush(let linger) = lingerState { beginLinger(linger) }
    }

    /// One `sendmsg` over up to 8 queued buffers.
    private func gatherWrite() throws(SocketError) -> IOResult<Int> {
        let end = min(pending.count, pendingHead + 8)
        var iovecs = [iovec](repeating: iovec(), count: end - pendingHead)
        return try withBuffers(from: pendingHead, to: end, into: &iovecs)
    }

    /// Nests `withUnsafeBufferPointer` over each buffer so all pointers stay valid for one syscall.
    private func withBuffers(from index: Int, to end: Int, into iovecs: inout [iovec]) throws(SocketError) -> IOResult<Int> {
        if index == end {
            let fd = self.fd
            return try iovecs.withUnsafeMutableBufferPointer { (vectors) throws(SocketError) -> IOResult<Int> in
                var message = msghdr()
                message.msg_iov = vectors.baseAddress
                message.msg_iovlen = vectors.count
                return try systemCall("sendmsg") { sendmsg(fd, &message, Int32(MSG_NOSIGNAL)) }
            }
        }
        return try pending[index].bytes.withUnsafeBufferPointer { (buffer) throws(SocketError) -> IOResult<Int> in
            iovecs[index - pendingHead] = iovec(iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress), iov_len: buffer.count)
            return try withBuffers(from: index + 1, to: end, into: &iovecs)
        }
    }

    private func startWriteSource() {
        guard !isWriteSourceRunning else { return }
        isWriteSourceRunning = true
        writeBlockedSince = .now()
        if let writeSource {
            writeSource.resume()
            return
        }
        let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [unowned self] in flush() }
        source.setCancelHandler { [self] in sourceCancelled() }
        sourcesToCancel += 1
        writeSource = source
        source.resume()
    }

    private func stopWriteSource() {
        guard isWriteSourceRunning, let writeSource else { return }
        isWriteSourceRunning = false
        writeBlockedSince = nil
        writeSource.suspend()
    }


    // MARK: Closing

    /// Closes once every queued write is in the kernel, after a lingering close: the write side is
    /// shut down, and what the peer still sends is read and dropped (up to 1 MiB, for at most
    /// `linger`), so that closing with unread input does not make the kernel send a reset that
    /// destroys the response before the peer reads it.
    public func closeAfterFlush(linger: DispatchTimeInterval) {
        assertOnQueue()
        guard !isClosed else { return }
        lingerState = .closeAfterFlush(linger: linger)
        if pendingHead == pending.count { beginLinger(linger) }
    }

    private func beginLinger(_ linger: DispatchTimeInterval) {
        lingerState = .discarding(budget: 1 << 20)
        shutdown(fd, Int32(SHUT_WR))
        if readSource == nil {
            startReading {}
        } else {
            resumeReading()
        }
        discardInput()
        if !isClosed { LingerDeadlines.shared.add(self, deadline: .now() + linger) }
    }

    private func discardInput() {
        guard case .discarding(var budget) = lingerState else { return }
        var scratch = ReadBuffer(capacity: 16 * 1024)
        while budget > 0 {
            let result = try? read(into: &scratch, chunk: 16 * 1024)
            guard case .bytes(let count)? = result else {
                if result != .wouldBlock { close() }
                return
            }
            budget -= count
            scratch.moveReaderIndex(forwardBy: scratch.readableBytes)
        }
        lingerState = .discarding(budget: budget)
        if budget <= 0 { close() }
    }

    /// Closes now: queued writes fail, the sources are cancelled, and the descriptor is closed in
    /// their cancel handlers. Calls ``onClose`` once.
    public func close() {
        close(failingWritesWith: SocketError(call: "write", code: EPIPE))
    }

    /// Closes, completing every queued write with `error`.
    private func close(failingWritesWith error: SocketError) {
        assertOnQueue()
        guard !isClosed else { return }
        isClosed = true
        onReadable = nil
        if case .discarding = lingerState { LingerDeadlines.shared.remove(self) }
        let failed = pending[pendingHead...].compactMap(\.completion)
        pending.removeAll()
        pendingHead = 0
        if let readSource {
            if isReadPaused { readSource.resume() }
            readSource.cancel()
        }
        if let writeSource {
            if !isWriteSourceRunning { writeSource.resume() }
            writeSource.cancel()
        }
        if sourcesToCancel == 0 { Glibc.close(fd) }
        let onClose = self.onClose
        self.onClose = nil
        for completion in failed { completion(error) }
        onClose?()
    }

    private func sourceCancelled() {
        sourcesToCancel -= 1
        if sourcesToCancel == 0 { Glibc.close(fd) }
    }
}
