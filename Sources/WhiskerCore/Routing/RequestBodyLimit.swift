/// The largest request body one route accepts: larger gets `413 Content Too Large`, before the
/// handler runs when `Content-Length` says so, else as the handler reads past it. For a body that
/// arrives compressed (`Content-Encoding`, see `configuration.requestDecompression` in
/// WhiskerCompression), the limit counts the decoded bytes.
///
///     try server.register(method: .post, path: "/upload", maxRequestBodySize: .maximum(1 << 30)) { ... }
///     try server.register(method: .post, path: "/names", maxRequestBodySize: .maximum(4 << 10)) { ... }
public enum RequestBodyLimit: Sendable, Hashable {
    /// The server's ``WhiskerServer/Limits/maxRequestBodySize``.
    case serverDefault
    /// At most this many bytes.
    case maximum(Int64)
    /// No limit (the handler bounds what it keeps).
    case unlimited

    /// The limit in bytes (`nil`: none), given the server's.
    func bytes(serverDefault: Int64?) -> Int64? {
        switch self {
        case .serverDefault: serverDefault
        case .maximum(let bytes): bytes
        case .unlimited: nil
        }
    }
}
