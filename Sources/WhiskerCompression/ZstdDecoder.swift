import CZstd
import WhiskerCore

/// libzstd's streaming decoder over an upload's coded bytes (`Content-Encoding: zstd`, RFC 8878),
/// giving bounded pieces of output. Frames may follow one another (what `zstd` makes of files
/// joined with `cat`); the body is complete when its last frame is.
///
/// A frame names the window its decoder must keep, and an attacker can name a large one in a few
/// bytes: a frame that needs more than 8 MiB (what RFC 8878 asks an HTTP recipient to support)
/// does not decode here, and nothing larger is ever allocated for it.
final class ZstdDecoder: RequestBodyDecoder {
    private let context: OpaquePointer
    private var input: [UInt8] = []
    private var inputOffset = 0
    /// The last call completed a frame and gave all of it (libzstd returned 0).
    private var isAtFrameEnd = false
    /// The last call filled its output: libzstd may have more without new input.
    private var hasPendingOutput = false

    init?() {
        guard let context = ZSTD_createDCtx() else { return nil }
        self.context = context
        guard ZSTD_isError(ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, Int32(ZstdCompressor.maxWindowLog))) == 0 else {
            ZSTD_freeDCtx(context)
            return nil
        }
    }

    deinit {
        ZSTD_freeDCtx(context)
    }

    func feed(_ bytes: ArraySlice<UInt8>) {
        if inputOffset == input.count {
            input = Array(bytes)
        } else {
            input.removeFirst(inputOffset)
            input += bytes
        }
        inputOffset = 0
    }

    func output(upTo limit: Int) throws -> ArraySlice<UInt8>? {
        var output = [UInt8](repeating: 0, count: limit)
        var produced = 0
        // A frame's end returns before the next frame's bytes are read: go on with them.
        while produced == 0, inputOffset < input.count || hasPendingOutput {
            let before = inputOffset
            let result = input.withUnsafeBufferPointer { source in
                output.withUnsafeMutableBufferPointer { target in
                    var inBuffer = ZSTD_inBuffer(src: source.baseAddress, size: source.count, pos: inputOffset)
                    var outBuffer = ZSTD_outBuffer(dst: target.baseAddress, size: limit, pos: 0)
                    defer {
                        inputOffset = inBuffer.pos
                        produced = outBuffer.pos
                    }
                    return ZSTD_decompressStream(context, &outBuffer, &inBuffer)
                }
            }
            guard ZSTD_isError(result) == 0 else { throw ZstdError(code: result) }
            hasPendingOutput = produced == limit
            isAtFrameEnd = result == 0
            if inputOffset == before && produced == 0 { break }
        }
        return produced > 0 ? output[..<produced] : nil
    }

    func isComplete() -> Bool { isAtFrameEnd && inputOffset == input.count }
}

/// What libzstd said about bytes that do not decode.
struct ZstdError: Error, CustomStringConvertible {
    let code: Int

    var description: String {
        if ZSTD_getErrorCode(code) == ZSTD_error_frameParameter_windowTooLarge {
            return "zstd: the frame needs a window larger than the 8 MiB a recipient must support (RFC 8878)"
        }
        return "zstd: \(String(cString: ZSTD_getErrorName(code)))"
    }
}
