import CZstd

/// Zstandard (RFC 8878) through libzstd's streaming compressor, every chunk ended with a flush
/// (`ZSTD_e_flush`: the blocks so far are complete, and decode without what comes next).
///
/// A streamed body's window is at most 32 KiB, gzip's, and smaller when the body's length is
/// known to be; libzstd's tables follow the window (it would size them by level alone, 768 KiB at
/// level 3, for a stream of unknown length). What the compressor then holds after three events
/// (`ZSTD_sizeof_CCtx`; resident, per compressor of 400): 378 KiB (174) for a stream of unknown
/// length, 43 KiB (38) for an event stream (level 1, a 2 KiB window). A body in memory is coded in
/// one call (``encodeWhole(_:level:pool:)``), sized to it by libzstd. Either way the window stays within
/// the 8 MiB that RFC 8878 (§3.1.1.1.2) lets an HTTP client refuse to go past, as browsers do.
final class ZstdCompressor: StreamCompressor {
    private let context: OpaquePointer

    /// The largest window a `zstd` body may need, as RFC 8878 (§3.1.1.1.2) sets it for HTTP: 8 MiB.
    static let maxWindowLog = 23

    /// - Parameters:
    ///   - level: libzstd's level, 1 (fastest) ... 19 (smallest).
    ///   - windowLog: The base-2 logarithm of the window, 10 ... 15.
    init(level: Int, windowLog: Int) throws {
        guard let context = ZSTD_createCCtx() else { throw CompressionError(description: "ZSTD_createCCtx failed") }
        self.context = context
        // Match tables of half the window's entries: 83 KB of JSON flushed every KB came out 0.7%
        // larger than with level 3's own sizes (a 128 KiB window, 768 KiB of tables) from a
        // compressor of a fifth of the memory.
        let tableLog = min(windowLog - 1, 14)
        let parameters: [(ZSTD_cParameter, Int)] = [
            (ZSTD_c_compressionLevel, level), (ZSTD_c_windowLog, windowLog), (ZSTD_c_hashLog, tableLog), (ZSTD_c_chainLog, tableLog),
        ]
        for (parameter, value) in parameters {
            guard ZSTD_isError(ZSTD_CCtx_setParameter(context, parameter, Int32(value))) == 0 else {
                ZSTD_freeCCtx(context)
                throw CompressionError(description: "zstd refused level \(level) or window 2^\(windowLog)")
            }
        }
    }

    deinit {
        ZSTD_freeCCtx(context)
    }

    /// The window for a streamed body of `length` bytes (`nil`: unknown): its length, at most 32 KiB.
    static func windowLog(for length: Int64?) -> Int {
        windowBits(for: length, in: 10...15)
    }

    /// `bytes` coded in one call (`ZSTD_compress2`): the frame states its length, and libzstd sizes
    /// the window and tables to it, within the level's own (8 MiB at level 19, the highest taken);
    /// `nil` when libzstd refuses (the caller then streams).
    /// A context from `pool` (one it kept, else a new one), given back to it afterwards.
    static func encodeWhole(_ bytes: ArraySlice<UInt8>, level: Int, pool: ZstdContextPool = .shared) -> [UInt8]? {
        guard let context = pool.take() else { return nil }
        guard ZSTD_isError(ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, Int32(level))) == 0 else {
            ZSTD_freeCCtx(context)
            return nil
        }
        let bound = ZSTD_compressBound(bytes.count)
        var output = [UInt8](repeating: 0, count: bound)
        let size = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                ZSTD_compress2(context, out.baseAddress, out.count, input.baseAddress, input.count)
            }
        }
        guard ZSTD_isError(size) == 0 else {
            ZSTD_freeCCtx(context)
            return nil
        }
        pool.giveBack(context)
        output.removeLast(bound - size)
        return output
    }

    func compress(_ bytes: ArraySlice<UInt8>) throws -> [UInt8] {
        try run(bytes, ZSTD_e_flush)
    }

    func finish() throws -> [UInt8] {
        try run([], ZSTD_e_end)
    }

    /// Feeds `input` with `directive` until libzstd has taken it all and has nothing left to give.
    private func run(_ input: ArraySlice<UInt8>, _ directive: ZSTD_EndDirective) throws -> [UInt8] {
        var output: [UInt8] = []
        try input.withUnsafeBufferPointer { source in
            var inBuffer = ZSTD_inBuffer(src: source.baseAddress, size: source.count, pos: 0)
            var left = 0
            repeat {
                // The usual call in one step: the worst case for the input, plus a block header
                // and the frame's header or end.
                let step = output.isEmpty ? ZSTD_compressBound(source.count) + 32 : ZSTD_CStreamOutSize()
                let start = output.count
                output.append(contentsOf: repeatElement(0, count: step))
                var produced = 0
                left = output.withUnsafeMutableBufferPointer { buffer in
                    var outBuffer = ZSTD_outBuffer(dst: buffer.baseAddress! + start, size: step, pos: 0)
                    defer { produced = outBuffer.pos }
                    return ZSTD_compressStream2(context, &outBuffer, &inBuffer, directive)
                }
                output.removeLast(step - produced)
                guard ZSTD_isError(left) == 0 else {
                    throw CompressionError(description: "zstd: \(String(cString: ZSTD_getErrorName(left)))")
                }
            } while left > 0 || inBuffer.pos < inBuffer.size
        }
        return output
    }

    /// The bytes libzstd holds for this compressor now (its tables, window and buffers).
    var memorySize: Int { ZSTD_sizeof_CCtx(context) }
}
