import CZstd
import HTTPTypes
import Synchronization
import WhiskerCore

/// libzstd's streaming decoder over an upload's coded bytes (`Content-Encoding: zstd`, RFC 8878),
/// giving bounded pieces of output. Frames may follow one another (what `zstd` makes of files
/// joined with `cat`); the body is complete when its last frame is.
///
/// A frame names the window its decoder must keep, and an attacker can name a large one in a few
/// bytes: a frame that needs more than 8 MiB (what RFC 8878 asks an HTTP recipient to support)
/// does not decode here, and nothing larger is ever allocated for it. What the decoders of a server
/// hold together is bounded too (``ZstdMemoryBudget``): an upload that would take more gets `503`.
final class ZstdDecoder: RequestBodyDecoder {
    private let context: OpaquePointer
    private let budget: ZstdMemoryBudget
    /// What this decoder has taken from the budget: what libzstd held after its last call.
    private var reserved = 0
    private var input: [UInt8] = []
    private var inputOffset = 0
    /// The last call completed a frame and gave all of it (libzstd returned 0).
    private var isAtFrameEnd = false
    /// The last call filled its output: libzstd may have more without new input.
    private var hasPendingOutput = false

    init?(budget: ZstdMemoryBudget) {
        guard let context = ZSTD_createDCtx() else { return nil }
        self.context = context
        self.budget = budget
        guard ZSTD_isError(ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, Int32(ZstdCompressor.maxWindowLog))) == 0 else {
            ZSTD_freeDCtx(context)
            return nil
        }
    }

    deinit {
        ZSTD_freeDCtx(context)
        budget.giveBack(reserved)
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
            try reserveWhatLibzstdHolds()
            // A call with nothing to do (the last piece filled `limit` exactly, and the frame had
            // ended with it) says nothing about the frame: libzstd then waits for the next one.
            guard inputOffset > before || produced > 0 else {
                hasPendingOutput = false
                break
            }
            hasPendingOutput = produced == limit
            isAtFrameEnd = result == 0
        }
        return produced > 0 ? output[..<produced] : nil
    }

    func isComplete() -> Bool { isAtFrameEnd && inputOffset == input.count }

    /// Takes from the budget what libzstd allocated in its last call (a frame's window, when its
    /// header came). The window's pages become resident only as output is decoded into them, a
    /// piece of at most `limit` bytes a call, so an upload is refused before it holds much of what
    /// the budget could not cover.
    private func reserveWhatLibzstdHolds() throws {
        let held = ZSTD_sizeof_DCtx(context)
        guard held > reserved else { return }
        guard budget.take(held - reserved) else {
            throw HTTPRejection(.serviceUnavailable, "the server is decoding as many zstd request bodies as it holds memory for (\(budget.total >> 20) MiB); try again later")
        }
        reserved = held
    }
}

/// The memory the zstd decoders of a server may hold at once, their windows above all: a frame
/// may name up to 8 MiB, which a few bytes of input make libzstd allocate, so without a bound a
/// client with many uploads at once could make the server hold 8 MiB for each.
final class ZstdMemoryBudget: Sendable {
    /// The bytes in all.
    let total: Int
    private let left: Mutex<Int>

    init(bytes: Int) {
        total = bytes
        left = Mutex(bytes)
    }

    /// Takes `bytes` if that many are left.
    func take(_ bytes: Int) -> Bool {
        left.withLock { left in
            guard left >= bytes else { return false }
            left -= bytes
            return true
        }
    }

    /// Gives back `bytes` taken before.
    func giveBack(_ bytes: Int) {
        left.withLock { $0 += bytes }
    }
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
