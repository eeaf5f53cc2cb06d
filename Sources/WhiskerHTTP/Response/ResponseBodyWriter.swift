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
}

/// Where a ``ResponseBodyWriter`` sends its bytes: a protocol connection's exchange or stream, or
/// a step in between (a byte range, a compressor).
package protocol ResponseBodySink: Sendable {
    func writeBodyChunk(_ bytes: ArraySlice<UInt8>) async throws
}

/// Why a response body could not be written.
public struct ResponseBodyError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let reason: String
    public var description: String { reason }

    package static let connectionClosed = ResponseBodyError(reason: "the connection closed before the response body was written")
}
