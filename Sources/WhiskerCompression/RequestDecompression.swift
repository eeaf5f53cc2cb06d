import CZlib
public import WhiskerCore

/// How the server decodes request bodies that arrive compressed; set
/// ``WhiskerCore/WhiskerServer/Configuration/requestDecompression`` to turn it on (it is off by
/// default: bodies then reach handlers as they came, `Content-Encoding` and all).
///
///     configuration.requestDecompression = RequestDecompressionSettings()   // zstd, gzip and deflate, at most 200:1
///
/// A request with `Content-Encoding: zstd`, `gzip` (or `x-gzip`) or `deflate` (zlib's format, or
/// raw deflate as some clients send it) is decoded as its handler reads: the handler sees the
/// decoded bytes, and neither `Content-Encoding` nor `Content-Length` (the body's decoded length is
/// not known before). Memory stays bounded whatever the body expands to: the decoder's state and
/// one 64 KiB piece at a time. The decoder's state is zlib's 32 KiB window, or for zstd the window
/// the body's frame names, at most 8 MiB (RFC 8878's limit for HTTP; a frame that names a larger
/// one does not decode). Refused, with the connection answering for the handler:
/// - a coding it does not decode, or several codings: `415 Unsupported Media Type`, before the
///   handler runs;
/// - more decoded bytes than the route's limit (``/WhiskerCore/RequestBodyLimit``, by default the
///   server's `maxRequestBodySize`), or past the first MiB more than ``maxRatio`` decoded bytes
///   per coded byte (a decompression bomb): `413 Content Too Large`;
/// - bytes that do not decode, or a coded stream cut short: `400 Bad Request`;
/// - a zstd body while the zstd bodies being decoded hold ``maxZstdMemory`` already:
///   `503 Service Unavailable`.
public struct RequestDecompressionSettings: Sendable, Equatable {
    /// The most decoded bytes per coded byte a body may reach past its first MiB; 200 by default:
    /// text and JSON compress 3:1 to 20:1, very repetitive data (a log of one line, a CSV of
    /// zeros) to a few hundred, while a bomb is near deflate's limit, about 1000:1.
    public var maxRatio: Int
    /// The most memory the zstd request bodies being decoded at once may hold together, in bytes;
    /// 32 MiB by default. A zstd frame names the window its decoder keeps, up to 8 MiB, and a client
    /// names it in a few bytes, so this bounds what many uploads at once can make the server hold:
    /// four with the largest window, about fifteen at the 2 MiB that zstd's default level uses for
    /// large input, a hundred and more of small bodies (a decoder holds about 100 KiB besides its
    /// window). An upload that would pass it is refused with `503`, and may be retried.
    public var maxZstdMemory: Int

    /// Decodes zstd, gzip and deflate, up to `maxRatio` decoded bytes per coded byte, with at most
    /// `maxZstdMemory` bytes held by the zstd bodies being decoded.
    public init(maxRatio: Int = 200, maxZstdMemory: Int = 32 << 20) {
        self.maxRatio = max(1, maxRatio)
        self.maxZstdMemory = max(0, maxZstdMemory)
    }
}

extension WhiskerServer.Configuration {
    /// Request body decompression (`Content-Encoding: zstd`, `gzip` or `deflate`); `nil` (the default) for
    /// none. See ``RequestDecompressionSettings``.
    ///
    ///     configuration.requestDecompression = RequestDecompressionSettings()
    public var requestDecompression: RequestDecompressionSettings? {
        get { features[RequestDecompression.self]?.settings }
        set { features[RequestDecompression.self] = newValue.map(RequestDecompression.init) }
    }
}

/// The core's ``RequestDecoding`` hook: gzip and deflate through zlib's inflate, zstd through libzstd.
struct RequestDecompression: ServerFeature, RequestDecoding {
    let settings: RequestDecompressionSettings
    /// Shared by this server's zstd decoders.
    let zstdMemory: ZstdMemoryBudget

    init(settings: RequestDecompressionSettings) {
        self.settings = settings
        zstdMemory = ZstdMemoryBudget(bytes: settings.maxZstdMemory)
    }

    func contribute(to contributions: inout ServerFeatureContributions) { contributions.requestDecoding = self }

    var maxRatio: Int? { settings.maxRatio }

    func supports(_ coding: String) -> Bool {
        coding == "gzip" || coding == "x-gzip" || coding == "deflate" || coding == "zstd"
    }

    func decoder(for coding: String) -> (any RequestBodyDecoder)? {
        switch coding {
        case "gzip", "x-gzip": InflateDecoder(format: .gzip)
        case "deflate": InflateDecoder(format: .deflate)
        case "zstd": ZstdDecoder(budget: zstdMemory)
        default: nil
        }
    }
}

/// zlib's inflate over a body's coded bytes, giving bounded pieces of output.
final class InflateDecoder: RequestBodyDecoder {
    enum Format {
        case gzip
        /// RFC 9110's "deflate" is zlib's format; a raw deflate stream (some clients send that) is
        /// recognised by its first bytes failing zlib's header check, and read as such.
        case deflate
    }

    /// The zlib stream, at a fixed address: zlib keeps a pointer back to it.
    private let stream: UnsafeMutablePointer<z_stream>
    private let format: Format
    private var isInitialized = false
    private var triedRaw = false
    private var input: [UInt8] = []
    private var inputOffset = 0
    private var ended = false
    /// The last call filled its output: inflate may have more without new input.
    private var hasPendingOutput = false

    init?(format: Format) {
        self.format = format
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard initialize(windowBits: format == .gzip ? 15 + 16 : 15) else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
    }

    private func initialize(windowBits: Int32) -> Bool {
        if isInitialized { inflateEnd(stream) }
        stream.pointee = z_stream()
        isInitialized = whisker_inflateInit2(stream, windowBits) == Z_OK
        return isInitialized
    }

    deinit {
        if isInitialized { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    func feed(_ bytes: ArraySlice<UInt8>) {
        if inputOffset == input.count {
            input = Array(bytes)
            inputOffset = 0
        } else {
            input.removeFirst(inputOffset)
            input += bytes
            inputOffset = 0
        }
    }

    func output(upTo limit: Int) throws -> ArraySlice<UInt8>? {
        guard !ended, inputOffset < input.count || hasPendingOutput else { return nil }
        var output = [UInt8](repeating: 0, count: limit)
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.pointee.next_in = source.baseAddress.map { UnsafeMutablePointer(mutating: $0 + inputOffset) }
                stream.pointee.avail_in = UInt32(source.count - inputOffset)
                stream.pointee.next_out = target.baseAddress
                stream.pointee.avail_out = UInt32(limit)
                defer {
                    inputOffset = source.count - Int(stream.pointee.avail_in)
                    stream.pointee.next_in = nil
                    stream.pointee.next_out = nil
                }
                return inflate(stream, Z_NO_FLUSH)
            }
        }
        let produced = limit - Int(stream.pointee.avail_out)
        hasPendingOutput = produced == limit
        switch status {
        case Z_OK, Z_BUF_ERROR:
            break
        case Z_STREAM_END:
            ended = true
        case Z_DATA_ERROR where format == .deflate && !triedRaw && stream.pointee.total_out == 0:
            // Not zlib's format: start over with the same bytes as a raw deflate stream.
            triedRaw = true
            inputOffset = 0
            guard initialize(windowBits: -15) else { throw InflateError(status: status, message: nil) }
            return try self.output(upTo: limit)
        default:
            throw InflateError(status: status, message: stream.pointee.msg.map { String(cString: $0) })
        }
        if ended && inputOffset < input.count {
            throw InflateError(status: Z_DATA_ERROR, message: "bytes after the end of the coded stream")
        }
        return produced > 0 ? output[..<produced] : nil
    }

    func isComplete() -> Bool { ended }
}

/// What zlib's inflate said about bytes that do not decode.
struct InflateError: Error, CustomStringConvertible {
    let status: Int32
    let message: String?
    var description: String { "zlib inflate failed (\(status))\(message.map { ": \($0)" } ?? "")" }
}
