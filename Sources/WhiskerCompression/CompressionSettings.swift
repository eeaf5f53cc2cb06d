public import WhiskerCore

/// How the server compresses responses; set ``WhiskerCore/WhiskerServer/Configuration/compression``
/// to turn it on (it is off by default).
///
///     configuration.compression = CompressionSettings()            // zstd, br and gzip, 256 bytes and up
///     configuration.compression = CompressionSettings(codings: [.gzip], minimumSize: 1024)
///
/// A response is compressed when all of these hold:
/// - the request's `Accept-Encoding` takes one of ``codings`` (the client's `q` decides, ties go to
///   the order of ``codings``); without the field, nothing is compressed;
/// - its `Content-Type` is compressible: `text/*` (event streams included), JSON, XML, YAML,
///   JavaScript, JSON Lines and sequences, `*+json`, `*+xml` (SVG), or one of ``additionalTypes``;
/// - its status has content and is not 206 (a range is a range of the identity body) nor 204 or 304;
/// - it has no `Content-Encoding` yet (the handler coded it itself), no `Content-Range`, and no
///   `Cache-Control: no-transform`;
/// - its body has at least ``minimumSize`` bytes, or streams with its length unknown.
///
/// Every response that could be compressed (all but the first condition) gets `Vary:
/// Accept-Encoding`, so that caches keep the codings apart. A compressed response's length is known
/// for a body in memory (`Content-Length`); a streamed one is coded as it flows, each chunk
/// flushed, so server-sent events stay one per write, and its length is unknown (chunked on
/// HTTP/1.1). An event stream, which may stay open for hours, gets a compressor small to hold
/// (gzip with a 4 KiB window, Brotli at quality 1 at most, zstd at level 1 with a 4 KiB window):
/// about 29 KiB, 7 KiB and 38 KiB per open stream, against 88 KiB, 536 KiB and 174 KiB with the
/// settings for other bodies. A strong `ETag` becomes weak (`W/"..."`): the coded bytes differ from the ones it
/// named, while revalidation (`If-None-Match`, a weak comparison) still matches.
public struct CompressionSettings: Sendable {
    /// The codings offered, most preferred first; by default Zstandard, then Brotli, then gzip.
    ///
    /// A browser offers all three at the same weight, so this order decides. zstd comes first
    /// because it costs a fraction of the others' CPU for a little more output (libzstd 1.5.4,
    /// libbrotlienc 1.0.9 and zlib 1.2.13 on this project's machine, a body coded whole): 8 KB of
    /// JSON took 25.6 µs to 1,145 bytes at zstd level 3, 98 µs to 970 bytes at Brotli quality 4,
    /// 106 µs to 909 bytes at gzip level 6; 83 KB took 174 µs, 1,283 µs and 1,351 µs. Put `.brotli`
    /// first for the smallest bodies instead.
    public var codings: [ContentCoding]
    /// The smallest body (in bytes) worth compressing; 256 by default. Smaller ones leave as they are.
    public var minimumSize: Int
    /// gzip's level, 1 (fastest) ... 9 (smallest); 6, zlib's default, by default.
    public var gzipLevel: Int
    /// Brotli's quality, 0 ... 11; 4 by default, close to gzip's speed with smaller output (the
    /// upper qualities are for content compressed once, ahead of time).
    public var brotliQuality: Int
    /// Zstandard's level, 1 ... 19; 3 (libzstd's default) by default. Levels above 19 need windows
    /// larger than the 8 MiB browsers decode, and are refused.
    public var zstdLevel: Int
    /// Media types (`type/subtype`, lowercase) to compress besides the built-in ones.
    public var additionalTypes: Set<String>

    /// Creates compression settings.
    /// - Parameters:
    ///   - codings: The codings offered, most preferred first.
    ///   - minimumSize: The smallest body worth compressing, in bytes.
    ///   - gzipLevel: zlib's level, 1...9 (another is a startup error).
    ///   - brotliQuality: Brotli's quality, 0...11 (another is a startup error).
    ///   - zstdLevel: Zstandard's level, 1...19 (another is a startup error).
    ///   - additionalTypes: More media types to compress.
    public init(
        codings: [ContentCoding] = [.zstd, .brotli, .gzip], minimumSize: Int = 256, gzipLevel: Int = 6, brotliQuality: Int = 4,
        zstdLevel: Int = 3, additionalTypes: Set<String> = []
    ) {
        self.codings = codings
        self.minimumSize = max(0, minimumSize)
        self.gzipLevel = gzipLevel
        self.brotliQuality = brotliQuality
        self.zstdLevel = zstdLevel
        self.additionalTypes = additionalTypes
    }

    /// Whether a body of `type` is worth compressing.
    func compresses(_ type: MediaType) -> Bool {
        let essence = type.essence
        if essence.hasPrefix("text/") || essence.hasSuffix("+json") || essence.hasSuffix("+xml") { return true }
        return Self.compressibleTypes.contains(essence) || additionalTypes.contains(essence)
    }

    /// The built-in compressible types besides `text/*`, `*+json` and `*+xml`.
    static let compressibleTypes: Set<String> = [
        "application/json", "application/xml", "application/javascript", "application/ecmascript",
        "application/x-javascript", "application/yaml", "application/x-yaml", "application/x-ndjson",
        "application/jsonl", "application/json-seq", "application/graphql",
    ]
}

extension WhiskerServer.Configuration {
    /// Response compression (`Content-Encoding: zstd`, `br` or `gzip`, negotiated from `Accept-Encoding`);
    /// `nil` (the default) for none, at the cost of one `nil` check per response. See
    /// ``CompressionSettings`` for what is compressed and how.
    ///
    ///     configuration.compression = CompressionSettings()
    public var compression: CompressionSettings? {
        get { features[ResponseCompression.self]?.settings }
        set { features[ResponseCompression.self] = newValue.map(ResponseCompression.init) }
    }
}
