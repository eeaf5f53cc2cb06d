#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A growable byte buffer that a socket reads into and a parser consumes from the front.
///
/// Readable bytes are `storage[readerIndex..<writerIndex]`. Space is reclaimed by moving the
/// unread bytes to the front before growing, and the buffer returns to its initial capacity
/// once it is empty, so one large request does not pin memory for the connection's lifetime.
public struct ReadBuffer: Sendable {
    @usableFromInline var storage: [UInt8]
    /// The index of the first unread byte.
    public private(set) var readerIndex = 0
    /// The index one past the last byte read in.
    public private(set) var writerIndex = 0
    private let initialCapacity: Int

    /// Creates an empty buffer.
    /// - Parameter capacity: The initial (and resting) capacity in bytes.
    public init(capacity: Int = 16 * 1024) {
        initialCapacity = capacity
        storage = [UInt8](repeating: 0, count: capacity)
    }

    /// Creates a buffer holding `bytes`, for tests and for parsing in memory.
    public init(_ bytes: some Sequence<UInt8>) {
        self.init(capacity: 16 * 1024)
        append(contentsOf: bytes)
    }

    /// The number of unread bytes.
    @inlinable public var readableBytes: Int { writerIndex - readerIndex }

    /// Marks `count` bytes at the front as consumed.
    public mutating func moveReaderIndex(forwardBy count: Int) {
        precondition(count >= 0 && count <= readableBytes, "moved past the readable bytes")
        readerIndex += count
        if readerIndex == writerIndex {
            readerIndex = 0
            writerIndex = 0
            if storage.count > initialCapacity * 4 { storage = [UInt8](repeating: 0, count: initialCapacity) }
        }
    }

    /// Calls `body` with the unread bytes. The pointer is valid only inside `body`.
    @inlinable
    public func withUnsafeReadableBytes<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withUnsafeBufferPointer { (all) throws(Failure) -> Result in
            try body(UnsafeBufferPointer(rebasing: all[readerIndex..<writerIndex]))
        }
    }

    /// Copies `count` unread bytes from the front into an array and consumes them.
    public mutating func readBytes(_ count: Int) -> ArraySlice<UInt8> {
        let bytes = Array(storage[readerIndex..<(readerIndex + count)])[...]
        moveReaderIndex(forwardBy: count)
        return bytes
    }

    /// Appends bytes at the end (tests, and bytes that arrive other than by `read`).
    public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        for byte in bytes {
            reserveWritable(1)
            storage[writerIndex] = byte
            writerIndex += 1
        }
    }

    /// Ensures at least `minimum` bytes of free space after the readable bytes.
    mutating func reserveWritable(_ minimum: Int) {
        if storage.count - writerIndex >= minimum { return }
        if readerIndex > 0 {
            let count = readableBytes
            storage.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                memmove(base, base + readerIndex, count)
            }
            readerIndex = 0
            writerIndex = count
            if storage.count - writerIndex >= minimum { return }
        }
        var newCount = max(storage.count, 1)
        while newCount - writerIndex < minimum { newCount *= 2 }
        storage.append(contentsOf: repeatElement(0, count: newCount - storage.count))
    }

    /// Reads once from `fd` into the free space, growing by up to `chunk` bytes.
    /// - Returns: The byte count, 0 at end of stream, or ``IOResult/wouldBlock``.
    mutating func read(from fd: Int32, chunk: Int) throws(SocketError) -> IOResult<Int> {
        reserveWritable(chunk)
        let start = writerIndex
        let space = storage.count - start
        let result = try storage.withUnsafeMutableBufferPointer { (buffer) throws(SocketError) -> IOResult<Int> in
            try systemCall("read") { Glibc.read(fd, buffer.baseAddress! + start, space) }
        }
        if case .done(let count) = result { writerIndex += count }
        return result
    }
}
