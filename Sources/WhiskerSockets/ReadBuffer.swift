#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A growable byte buffer that a socket reads into and a parser consumes from the front.
///
/// Readable bytes are `storage[readerIndex..<writerIndex]`. Memory follows what the peer sends:
/// nothing is allocated until the first read, a read asks for `initialCapacity` bytes and
/// doubles that (up to the caller's chunk) only after a read filled all the space it was given,
/// and an empty buffer that grew past four times its initial capacity is released. So an idle
/// keep-alive connection holds a few KiB, and one large upload does not pin 64 KiB for the
/// connection's lifetime. Space is never zero-filled.
public struct ReadBuffer: Sendable {
    @usableFromInline var storage: [UInt8] = []
    /// The index of the first unread byte.
    public private(set) var readerIndex = 0
    /// The index one past the last byte read in.
    public private(set) var writerIndex = 0
    private let initialCapacity: Int
    /// How much free space the next ``read(from:chunk:)`` asks for.
    private var nextReadSize: Int

    /// Creates an empty buffer; it allocates on the first read or append.
    /// - Parameter capacity: The first read's size and the resting capacity, in bytes.
    public init(capacity: Int = 4 * 1024) {
        precondition(capacity > 0, "a read buffer needs a positive capacity")
        initialCapacity = capacity
        nextReadSize = capacity
    }

    /// Creates a buffer holding `bytes`, for tests and for parsing in memory.
    public init(_ bytes: some Sequence<UInt8>) {
        self.init()
        append(contentsOf: bytes)
    }

    /// The number of unread bytes.
    @inlinable public var readableBytes: Int { writerIndex - readerIndex }

    /// The bytes of memory the buffer holds now (read or free).
    public var capacity: Int { storage.count }

    /// Marks `count` bytes at the front as consumed.
    public mutating func moveReaderIndex(forwardBy count: Int) {
        precondition(count >= 0 && count <= readableBytes, "moved past the readable bytes")
        readerIndex += count
        if readerIndex == writerIndex {
            readerIndex = 0
            writerIndex = 0
            if storage.count > initialCapacity * 4 {
                storage = []
                nextReadSize = initialCapacity
            }
        }
    }

    /// Calls `body` with the unread bytes. The pointer is valid only inside `body`.
    /// Frees the storage when nothing is left to read (the next read allocates anew), so that an
    /// idle connection holds no buffer.
    public mutating func releaseStorageIfEmpty() {
        guard readableBytes == 0, !storage.isEmpty else { return }
        storage = []
        nextReadSize = initialCapacity
    }

    /// Hands the storage to `spare` when nothing is left to read and the buffer is at its resting
    /// size, else frees it as ``releaseStorageIfEmpty()`` does; ``reuseStorage(from:)`` takes it
    /// back (see ``IOWorker``'s spare read storage).
    package mutating func releaseStorageIfEmpty(into spare: inout [UInt8]) {
        guard readableBytes == 0, !storage.isEmpty else { return }
        if storage.count == initialCapacity && spare.isEmpty { swap(&storage, &spare) }
        releaseStorageIfEmpty()
    }

    /// Takes `spare` as the storage of a buffer that has none (and `spare` is of its resting
    /// size), instead of allocating on the next read.
    package mutating func reuseStorage(from spare: inout [UInt8]) {
        guard storage.isEmpty, spare.count == initialCapacity else { return }
        swap(&storage, &spare)
    }

    /// Calls `body` with the readable bytes (``readerIndex`` up to ``writerIndex``), without copying
    /// them, and returns what it returns. The pointer is valid only inside `body`; consuming the
    /// bytes is a separate step (``moveReaderIndex(forwardBy:)``).
    /// - Parameter body: Reads the bytes; its error is rethrown.
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
        // Contiguous bytes (an array, a buffer) are copied at once: the byte loop below, which
        // callers in other modules run unspecialized, allocates for every byte of an array.
        let copied: Void? = bytes.withContiguousStorageIfAvailable { source in
            guard let from = source.baseAddress, !source.isEmpty else { return }
            reserveWritable(source.count)
            let start = writerIndex
            storage.withUnsafeMutableBufferPointer { to in _ = memcpy(to.baseAddress! + start, from, source.count) }
            writerIndex += source.count
        }
        guard copied == nil else { return }
        for byte in bytes {
            reserveWritable(1)
            storage[writerIndex] = byte
            writerIndex += 1
        }
    }

    /// Ensures at least `minimum` bytes of free space after the readable bytes, first by moving
    /// the unread bytes to the front, then by doubling the storage.
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
        var newCount = max(storage.count, initialCapacity)
        while newCount - writerIndex < minimum { newCount *= 2 }
        let used = writerIndex
        storage = storage.withUnsafeBufferPointer { old in
            // UInt8 is trivial, so leaving the free space uninitialised is sound; it is only
            // ever read after `read(2)` or `append` wrote it.
            [UInt8](unsafeUninitializedCapacity: newCount) { new, initialized in
                if used > 0, let from = old.baseAddress, let to = new.baseAddress { memcpy(to, from, used) }
                initialized = newCount
            }
        }
    }

    /// Lets `body` write into the free space after the readable bytes, at least `minimum` bytes
    /// of it; the count `body` returns becomes readable. (For decrypting into the buffer.)
    package mutating func withUnsafeFreeSpace(minimum: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Int) -> Int {
        reserveWritable(minimum)
        let start = writerIndex
        let count = storage.withUnsafeMutableBufferPointer { all in
            body(UnsafeMutableBufferPointer(rebasing: all[start...]))
        }
        precondition(count >= 0 && count <= storage.count - start, "wrote outside the free space")
        writerIndex += count
        return count
    }

    /// Reads once from `fd` into the free space. Asks for the current read size, and doubles it
    /// (up to `chunk`) when the kernel filled all of it, as a sign that more is waiting.
    /// - Returns: The byte count, 0 at end of stream, or ``IOResult/wouldBlock``.
    mutating func read(from fd: Int32, chunk: Int) throws(SocketError) -> IOResult<Int> {
        reserveWritable(min(nextReadSize, chunk))
        let start = writerIndex
        let space = storage.count - start
        let result = try storage.withUnsafeMutableBufferPointer { (buffer) throws(SocketError) -> IOResult<Int> in
            try systemCall("read") { LibC.read(fd, buffer.baseAddress! + start, space) }
        }
        if case .done(let count) = result {
            writerIndex += count
            if count == space && nextReadSize < chunk { nextReadSize = min(nextReadSize * 2, chunk) }
        }
        return result
    }
}
