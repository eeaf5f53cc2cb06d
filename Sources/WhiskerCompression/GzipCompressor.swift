import CZlib

/// gzip (RFC 1952) through zlib's deflate, every chunk ended with a sync flush (`Z_SYNC_FLUSH`).
///
/// Its memory is zlib's deflate state: about 270 KB with the full 32 KB window (a body of unknown
/// or large length), a few KB for a small body of known length (the window and hash sized to it).
final class GzipCompressor: StreamCompressor {
    /// The zlib stream, at a fixed address: zlib keeps a pointer back to it.
    private let stream: UnsafeMutablePointer<z_stream>

    /// - Parameters:
    ///   - level: zlib's level, 1 (fastest) ... 9 (smallest).
    ///   - length: The body's length if known, to size the window to it.
    init(level: Int, length: Int64?) throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let bits = windowBits(for: length, in: 9...15)
        // + 16: a gzip header and trailer around the deflate data. memLevel (hash table and
        // pending buffer size) follows the window: 8, zlib's default, for the full one.
        let status = whisker_deflateInit2(stream, Int32(level), Int32(bits + 16), Int32(max(1, bits - 7)))
        guard status == Z_OK else {
            stream.deallocate()
            throw CompressionError(description: "zlib deflateInit2 failed (\(status)) at level \(level)")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    func compress(_ bytes: ArraySlice<UInt8>) throws -> [UInt8] {
        try deflate(bytes, flush: Z_SYNC_FLUSH)
    }

    func finish() throws -> [UInt8] {
        try deflate([], flush: Z_FINISH)
    }

    /// Runs deflate over `input` with `flush`, into as much output as it takes.
    private func deflate(_ input: ArraySlice<UInt8>, flush: Int32) throws -> [UInt8] {
        var output: [UInt8] = []
        // Enough for the usual call in one go: the worst case for the input, plus the flush marker.
        let step = Int(deflateBound(stream, UInt(input.count))) + 16
        try input.withUnsafeBufferPointer { source in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.pointee.avail_in = UInt32(source.count)
            defer { stream.pointee.next_in = nil }
            repeat {
                let start = output.count
                output.append(contentsOf: repeatElement(0, count: step))
                let status = output.withUnsafeMutableBufferPointer { buffer in
                    stream.pointee.next_out = buffer.baseAddress! + start
                    stream.pointee.avail_out = UInt32(step)
                    return CZlib.deflate(stream, flush)
                }
                output.removeLast(Int(stream.pointee.avail_out))
                // Z_BUF_ERROR: nothing left to do (a flush with no new input), not a failure.
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    throw CompressionError(description: "zlib deflate failed (\(status))")
                }
            } while stream.pointee.avail_out == 0
        }
        return output
    }
}
