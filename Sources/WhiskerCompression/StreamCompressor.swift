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

/// zlib, Brotli or libzstd refused: a bad setting, or no memory.
struct CompressionError: Error, CustomStringConvertible {
    let description: String
}

extension ContentCoding {
    /// A compressor for a body of `length` bytes (`nil`: unknown), with `settings`' levels.
    ///
    /// An event stream (`eventStream`) may stay open for hours with small writes, so it gets a
    /// compressor that is small to hold rather than one that finds long matches: gzip with a 4 KiB
    /// window, Brotli at quality 1 at most. Measured per open stream after three events (resident
    /// memory of a process holding 400): 29 KiB against 88 for gzip's full window, 7 KiB against
    /// 536 for Brotli at quality 4, whose hash table alone is 512 KiB, 38 KiB for zstd at level 1
    /// with a 2 KiB window against 174 for its stream of unknown length.
    func compressor(for length: Int64?, settings: CompressionSettings, eventStream: Bool = false) throws -> any StreamCompressor {
        switch self {
        case .gzip: try GzipCompressor(level: settings.gzipLevel, length: eventStream ? 4096 : length)
        case .brotli: try BrotliCompressor(quality: eventStream ? min(settings.brotliQuality, 1) : settings.brotliQuality,
                                           length: eventStream ? 1 << 16 : length)
        case .zstd: try ZstdCompressor(level: eventStream ? 1 : settings.zstdLevel,
                                       windowLog: eventStream ? 11 : ZstdCompressor.windowLog(for: length))
        }
    }

    /// `bytes` coded whole: what the compressor gives for them, then its end. Brotli and zstd have a
    /// one-shot call for this, which sizes the work to the input (Brotli's streaming encoder clears
    /// all of its hash table, 512 KB at quality 4, for every body; zstd's one-shot frame states its
    /// length).
    func encode(_ bytes: ArraySlice<UInt8>, settings: CompressionSettings) throws -> [UInt8] {
        switch self {
        case .brotli: if let coded = BrotliCompressor.encodeWhole(bytes, quality: settings.brotliQuality) { return coded }
        case .zstd: if let coded = ZstdCompressor.encodeWhole(bytes, level: settings.zstdLevel) { return coded }
        case .gzip: break
        }
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
