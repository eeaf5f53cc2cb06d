import WhiskerCore

/// A content coding the server can apply to a response (RFC 9110 §8.4.1).
public enum ContentCoding: String, Sendable, CaseIterable {
    /// Zstandard (RFC 8878), `Content-Encoding: zstd`: the fastest of the three to code at a size
    /// close to Brotli's; Chrome (123 and later) and Firefox (126 and later) take it.
    case zstd
    /// Brotli (RFC 7932), `Content-Encoding: br`: smaller than gzip for text at a similar cost.
    case brotli = "br"
    /// gzip (RFC 1952), `Content-Encoding: gzip`: understood by every client.
    case gzip

    /// The `Content-Encoding` token.
    public var token: String { rawValue }
}

extension AcceptEncoding {
    /// The coding among `supported` that the request's `Accept-Encoding` weighs most, ties going
    /// to the server's order; `nil` when it takes none of them.
    func preferred(among supported: [ContentCoding]) -> ContentCoding? {
        preferred(among: supported, token: \.token)
    }
}
