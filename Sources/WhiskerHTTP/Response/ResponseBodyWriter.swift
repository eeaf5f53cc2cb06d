#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a streamed response body; handed to the closure of ``ResponseBody/init(length:_:)``.
///
/// Each `write(_:)` returns once its bytes are in the kernel's socket buffer, so a producer
/// never runs ahead of a slow client by more than one chunk.
public struct ResponseBodyWriter: Sendable {
    package let sink: any ResponseBodySink

    /// A writer into `sink` (a protocol connection, or a step such as a range or a compressor
    /// that passes what it makes on to another writer).
    package init(sink: any ResponseBodySink) {
        self.sink = sink
    }

    /// Writes one chunk and waits until it is written.
    /// - Parameter bytes: The chunk; an empty chunk is ignored.
    /// - Throws: When the connection closed, or the body exceeds its declared length.
    public func write(_ bytes: ArraySlice<UInt8>) async throws {
        guard !bytes.isEmpty else { return }
        try await sink.writeBodyChunk(bytes)
    }

    /// Writes one chunk of any byte collection and waits until it is written.
    public func write(_ bytes: some Collection<UInt8>) async throws {
        try await write(ArraySlice(bytes))
    }

    /// Writes `count` bytes of an open file, from `offset`, and waits until they are written: the
    /// zero-copy way to send a file. A cleartext HTTP/1.1 connection hands the region to the kernel
    /// (`sendfile(2)`, no byte copied through the process); everything else (TLS, HTTP/2, a step
    /// that cuts a range or compresses) reads it in chunks of 64 KiB, each written before the next
    /// is read, so a slow client never makes the server hold more than a chunk of the file.
    ///
    ///     let fd = open(path, O_RDONLY | O_CLOEXEC)
    ///     defer { close(fd) }
    ///     try await writer.writeFile(descriptor: fd, offset: 0, count: size)
    ///
    /// - Parameters:
    ///   - descriptor: A descriptor of a regular file open for reading. The caller keeps it open
    ///     until this returns (or throws), and closes it then.
    ///   - offset: Where the region starts in the file.
    ///   - count: How many bytes to send; the file must hold them (a file that shrank meanwhile
    ///     ends the connection: the length was promised).
    /// - Throws: When the connection closed, the body exceeds its declared length, or the file
    ///   cannot be read.
    public func writeFile(descriptor: Int32, offset: Int64, count: Int64) async throws {
        guard count > 0 else { return }
        try await sink.writeFile(descriptor: descriptor, offset: offset, count: count)
    }
}

/// Where a ``ResponseBodyWriter`` sends its bytes: a protocol connection's exchange or stream, or
/// a step in between (a byte range, a compressor).
package protocol ResponseBodySink: Sendable {
    func writeBodyChunk(_ bytes: ArraySlice<UInt8>) async throws
    /// Writes a region of a file (``ResponseBodyWriter/writeFile(descriptor:offset:count:)``); by
    /// default read in chunks and written with ``writeBodyChunk(_:)``.
    func writeFile(descriptor: Int32, offset: Int64, count: Int64) async throws
}

extension ResponseBodySink {
    package func writeFile(descriptor: Int32, offset: Int64, count: Int64) async throws {
        try await writeFileInChunks(descriptor: descriptor, offset: offset, count: count)
    }

    /// The region read with `pread(2)` 64 KiB at a time, each chunk written (and waited for)
    /// before the next is read: what a sink that cannot hand a file to the kernel does.
    package func writeFileInChunks(descriptor: Int32, offset: Int64, count: Int64) async throws {
        var position = offset
        let end = offset + count
        var chunk = [UInt8](repeating: 0, count: Int(min(count, 64 * 1024)))
        while position < end {
            let wanted = Int(min(Int64(chunk.count), end - position))
            let read = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(position)) }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else {
                throw ResponseBodyError(reason: read == 0 ? "the file ended before the region was sent" : "cannot read the file (errno \(errno))")
            }
            try await writeBodyChunk(chunk[0..<read])
            position += Int64(read)
        }
    }
}

/// Why a response body could not be written.
public struct ResponseBodyError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let reason: String
    public var description: String { reason }

    package static let connectionClosed = ResponseBodyError(reason: "the connection closed before the response body was written")
}
