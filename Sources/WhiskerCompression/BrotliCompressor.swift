import CBrotli

/// Brotli (RFC 7932) through libbrotlienc's streaming encoder, every chunk ended with a flush
/// (`BROTLI_OPERATION_FLUSH`). The window follows the body's length when it is known (at most
/// 4 MB, Brotli's default, for a large or unknown one).
final class BrotliCompressor: StreamCompressor {
    private let state: OpaquePointer

    /// - Parameters:
    ///   - quality: Brotli's quality, 0 (fastest) ... 11 (smallest; far too slow for responses
    ///     made per request).
    ///   - length: The body's length if known.
    init(quality: Int, length: Int64?) throws {
        guard let state = BrotliEncoderCreateInstance(nil, nil, nil) else {
            throw CompressionError(description: "BrotliEncoderCreateInstance failed")
        }
        self.state = state
        let window = windowBits(for: length, in: Int(BROTLI_MIN_WINDOW_BITS)...Int(BROTLI_DEFAULT_WINDOW))
        guard BrotliEncoderSetParameter(state, BROTLI_PARAM_QUALITY, UInt32(quality)) == BROTLI_TRUE,
              BrotliEncoderSetParameter(state, BROTLI_PARAM_LGWIN, UInt32(window)) == BROTLI_TRUE,
              BrotliEncoderSetParameter(state, BROTLI_PARAM_MODE, UInt32(BROTLI_MODE_TEXT.rawValue)) == BROTLI_TRUE
        else {
            BrotliEncoderDestroyInstance(state)
            throw CompressionError(description: "Brotli refused quality \(quality) or window \(window)")
        }
        if let length, length > 0 {
            _ = BrotliEncoderSetParameter(state, BROTLI_PARAM_SIZE_HINT, UInt32(clamping: length))
        }
    }

    deinit {
        BrotliEncoderDestroyInstance(state)
    }

    /// `bytes` coded in one call (`BrotliEncoderCompress`), the window sized to them; `nil` when the
    /// encoder refuses (the caller then streams).
    static func encodeWhole(_ bytes: ArraySlice<UInt8>, quality: Int) -> [UInt8]? {
        let bound = BrotliEncoderMaxCompressedSize(bytes.count)
        guard bound > 0 else { return nil }
        let window = windowBits(for: Int64(bytes.count), in: Int(BROTLI_MIN_WINDOW_BITS)...Int(BROTLI_DEFAULT_WINDOW))
        var output = [UInt8](repeating: 0, count: bound)
        var size = bound
        let done = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                BrotliEncoderCompress(Int32(quality), Int32(window), BROTLI_MODE_TEXT, input.count, input.baseAddress, &size, out.baseAddress)
            }
        }
        guard done == BROTLI_TRUE else { return nil }
        output.removeLast(bound - size)
        return output
    }

    func compress(_ bytes: ArraySlice<UInt8>) throws -> [UInt8] {
        try encode(bytes, operation: BROTLI_OPERATION_FLUSH)
    }

    func finish() throws -> [UInt8] {
        try encode([], operation: BROTLI_OPERATION_FINISH)
    }

    /// Feeds `input` with `operation` until the encoder has taken it all and has nothing more to give.
    private func encode(_ input: ArraySlice<UInt8>, operation: BrotliEncoderOperation) throws -> [UInt8] {
        var output: [UInt8] = []
        try input.withUnsafeBufferPointer { source in
            var availableIn = source.count
            var nextIn = source.baseAddress
            repeat {
                var availableOut = 0
                var nextOut: UnsafeMutablePointer<UInt8>? = nil
                guard BrotliEncoderCompressStream(state, operation, &availableIn, &nextIn, &availableOut, &nextOut, nil) == BROTLI_TRUE else {
                    throw CompressionError(description: "BrotliEncoderCompressStream failed")
                }
                // The encoder's own output buffer, taken as is (no copy into ours first).
                var size = 0
                if let produced = BrotliEncoderTakeOutput(state, &size), size > 0 {
                    output.append(contentsOf: UnsafeBufferPointer(start: produced, count: size))
                }
            } while availableIn > 0 || BrotliEncoderHasMoreOutput(state) == BROTLI_TRUE
                || (operation == BROTLI_OPERATION_FINISH && BrotliEncoderIsFinished(state) != BROTLI_TRUE)
        }
        return output
    }
}
