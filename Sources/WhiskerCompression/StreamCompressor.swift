/// Compresses a body into one content coding as it is written, chunk by chunk. Every chunk is
/// flushed: what ``compress(_:)`` returns decodes, with what came before, to every byte given so
/// far, so a server-sent event reaches the client when it is written, not when a buffer fills.
/// One instance serves one body, one call at a time.
protocol StreamCompressor: AnyObject {
    /// Compresses `bytes` and flushes; returns the coded bytes to send now (never empty).
    func compress(_ bytes: ArraySlice<UInt8>) throws -> [UInt8]
    /// Ends the coded stream; returns its last bytes.
    func finish() throws -> [UInt8]
}

/// zlib or Brotli refused: a bad setting, or no memory.
struct CompressionError: Error, CustomStringConvertible {
    let description: String
}

extension ContentCoding {
    /// A compressor for a body of `length` bytes (`nil`: unknown), with `settings`' levels.
    func compressor(for length: Int64?, settings: CompressionSettings) throws -> any StreamCompressor {
        switch self {
        case .gzip: try GzipCompressor(level: settings.gzipLevel, length: length)
        case .brotli: try BrotliCompressor(quality: settings.brotliQuality, length: length)
        }
    }

    /// `bytes` coded whole: what the compressor gives for them, then its end. Brotli has a one-shot
    /// call for this, which prepares only the part of its hash table a small input touches (its
    /// streaming encoder clears all of it, 512 KB at quality 4, for every body).
    func encode(_ bytes: ArraySlice<UInt8>, settings: CompressionSettings) throws -> [UInt8] {
        if self == .brotli, let coded = BrotliCompressor.encodeWhole(bytes, quality: settings.brotliQuality) { return coded }
        let compressor = try compressor(for: Int64(bytes.count), settings: settings)
        return try compressor.compress(bytes) + compressor.finish()
    }
}

/// The base-2 logarithm of the smallest window (a power of two in `range`) that holds `length`
/// bytes, else the largest: a small body needs no 32 KB (zlib) or 4 MB (Brotli) window, and its
/// compressor's memory is then a fraction.
func windowBits(for length: Int64?, in range: ClosedRange<Int>) -> Int {
    guard let length, length > 0 else { return range.upperBound }
    let bits = Int64.bitWidth - (length - 1).leadingZeroBitCount
    return min(max(bits, range.lowerBound), range.upperBound)
}
