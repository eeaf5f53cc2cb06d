import CBrotliDecoder
import CZlib
import CZstd
@testable import WhiskerCompression

/// Decodes a coded stream piece by piece, as a client does while it arrives: ``decode(_:)`` returns
/// whatever the piece makes decodable, so a flushed chunk must come out whole at once.
protocol IncrementalDecoder: AnyObject {
    func decode(_ bytes: [UInt8]) throws -> [UInt8]
    /// Whether the coded stream has ended properly (gzip trailer, Brotli last block, zstd frame end).
    var isFinished: Bool { get }
}

struct DecodingError: Error {}

extension ContentCoding {
    func decoder() throws -> any IncrementalDecoder {
        switch self {
        case .gzip: try GzipDecoder()
        case .brotli: try BrotliDecoder()
        case .zstd: try ZstdStreamDecoder()
        }
    }

    /// `coded` decoded whole; throws unless it is one complete stream.
    func decode(_ coded: [UInt8]) throws -> [UInt8] {
        let decoder = try decoder()
        let bytes = try decoder.decode(coded)
        guard decoder.isFinished else { throw DecodingError() }
        return bytes
    }
}

final class GzipDecoder: IncrementalDecoder {
    private let stream: UnsafeMutablePointer<z_stream>
    private(set) var isFinished = false

    init() throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard whisker_inflateInit2(stream, 16 + 15) == Z_OK else { throw DecodingError() }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    func decode(_ bytes: [UInt8]) throws -> [UInt8] {
        var output: [UInt8] = []
        var input = bytes
        try input.withUnsafeMutableBufferPointer { source in
            stream.pointee.next_in = source.baseAddress
            stream.pointee.avail_in = UInt32(source.count)
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            repeat {
                let status = buffer.withUnsafeMutableBufferPointer { out in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = UInt32(out.count)
                    return inflate(stream, Z_SYNC_FLUSH)
                }
                output += buffer[..<(buffer.count - Int(stream.pointee.avail_out))]
                if status == Z_STREAM_END { isFinished = true; break }
                guard status == Z_OK || status == Z_BUF_ERROR else { throw DecodingError() }
            } while stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0
        }
        return output
    }
}

final class BrotliDecoder: IncrementalDecoder {
    private let state: OpaquePointer
    private(set) var isFinished = false

    init() throws {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else { throw DecodingError() }
        self.state = state
    }

    deinit { BrotliDecoderDestroyInstance(state) }

    func decode(_ bytes: [UInt8]) throws -> [UInt8] {
        var output: [UInt8] = []
        try bytes.withUnsafeBufferPointer { source in
            var availableIn = source.count
            var nextIn = source.baseAddress
            while true {
                var availableOut = 0
                var nextOut: UnsafeMutablePointer<UInt8>? = nil
                let result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                var size = 0
                if let produced = BrotliDecoderTakeOutput(state, &size), size > 0 {
                    output.append(contentsOf: UnsafeBufferPointer(start: produced, count: size))
                }
                switch result {
                case BROTLI_DECODER_RESULT_SUCCESS: isFinished = true; return
                case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT: return
                case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: continue
                default: throw DecodingError()
                }
            }
        }
        return output
    }
}

/// libzstd's own streaming decoder, the way a browser reads a `zstd` body as it arrives.
final class ZstdStreamDecoder: IncrementalDecoder {
    private let context: OpaquePointer
    private(set) var isFinished = false

    init() throws {
        guard let context = ZSTD_createDCtx() else { throw DecodingError() }
        self.context = context
    }

    deinit { ZSTD_freeDCtx(context) }

    func decode(_ bytes: [UInt8]) throws -> [UInt8] {
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        try bytes.withUnsafeBufferPointer { source in
            var input = ZSTD_inBuffer(src: source.baseAddress, size: source.count, pos: 0)
            repeat {
                var produced = 0
                let result = buffer.withUnsafeMutableBufferPointer { out in
                    var target = ZSTD_outBuffer(dst: out.baseAddress, size: out.count, pos: 0)
                    defer { produced = target.pos }
                    return ZSTD_decompressStream(context, &target, &input)
                }
                guard ZSTD_isError(result) == 0 else { throw DecodingError() }
                output += buffer[..<produced]
                isFinished = result == 0
                if produced < buffer.count && input.pos == input.size { break }
            } while true
        }
        return output
    }
}
