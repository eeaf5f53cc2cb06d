/// How ``WhiskerCore/WhiskerServer/serveFiles(from:at:options:)`` serves a directory.
///
///     var options = StaticFileOptions()
///     options.cacheControl = "public, max-age=3600"
///     options.contentTypes["wasm"] = "application/wasm"
///     try server.serveFiles(from: "Public", at: "/", options: options)
public struct StaticFileOptions: Sendable {
    /// The files that answer for a directory (its path with the trailing slash), tried in order;
    /// `["index.html"]` by default. A directory without one is 404: no listing is ever made.
    public var indexFiles: [String]
    /// The `Cache-Control` of every file answered (and of its 304), or `nil` (the default) for none.
    public var cacheControl: String?
    /// Whether names starting with `.` are served (`.env`, `.git/config`); `false` by default,
    /// refused as 404. ``allowedDotNames`` are served even so.
    public var servesDotfiles: Bool
    /// Names starting with `.` that are served when ``servesDotfiles`` is false: `.well-known`
    /// (RFC 8615: ACME challenges, `security.txt`) by default. Only the name itself: a dotfile
    /// inside `.well-known` is still refused.
    public var allowedDotNames: Set<String>
    /// Whether a file's precompressed siblings (`app.js.br`, `app.js.zst`, `app.js.gz`, preferred in
    /// that order when the client weighs them alike) answer for it when the request's
    /// `Accept-Encoding` takes their coding; `true` by default. The response says
    /// `Content-Encoding` and `Vary: Accept-Encoding`, ranges apply to the bytes sent, and the
    /// compression feature leaves it as it is.
    public var servesPrecompressed: Bool
    /// Media types by file extension (lower case, without the dot), over the built-in table of
    /// the common web types: `["wasm": "application/wasm"]`.
    public var contentTypes: [String: String]
    /// The media type of a file whose extension neither table knows; `application/octet-stream`
    /// by default.
    public var defaultContentType: String
    /// The longest request path (its bytes, percent-encoded as received) looked up; longer ones
    /// are 404. 1,024 by default.
    public var maxPathLength: Int
    /// The most segments (directories and the file) a path may have below the root; 32 by default.
    public var maxDepth: Int

    /// Options with the defaults above, each changeable.
    /// - Parameters:
    ///   - indexFiles: The files that answer for a directory.
    ///   - cacheControl: The `Cache-Control` of every file, or `nil`.
    ///   - servesDotfiles: Whether names starting with `.` are served.
    ///   - allowedDotNames: Names starting with `.` served even so.
    ///   - servesPrecompressed: Whether `.br`, `.zst` and `.gz` siblings answer.
    ///   - contentTypes: Media types by extension, over the built-in table.
    ///   - defaultContentType: The media type of an unknown extension.
    ///   - maxPathLength: The longest request path looked up.
    ///   - maxDepth: The most segments of a path.
    public init(
        indexFiles: [String] = ["index.html"], cacheControl: String? = nil, servesDotfiles: Bool = false,
        allowedDotNames: Set<String> = [".well-known"], servesPrecompressed: Bool = true, contentTypes: [String: String] = [:],
        defaultContentType: String = "application/octet-stream", maxPathLength: Int = 1024, maxDepth: Int = 32
    ) {
        self.indexFiles = indexFiles
        self.cacheControl = cacheControl
        self.servesDotfiles = servesDotfiles
        self.allowedDotNames = allowedDotNames
        self.servesPrecompressed = servesPrecompressed
        self.contentTypes = contentTypes
        self.defaultContentType = defaultContentType
        self.maxPathLength = maxPathLength
        self.maxDepth = maxDepth
    }
}
