public import WhiskerCore

extension WhiskerServer {
    /// Serves the files of `directory` under `prefix`, beside the server's routes: a route always
    /// wins, and files answer the paths under `prefix` that no route has (the API under `/api`,
    /// the files at `/`).
    ///
    ///     let server = WhiskerServer(configuration: .init(port: 8080))
    ///     let transport = WhiskerTransport(server)
    ///     try handler.registerHandlers(on: transport, serverURL: URL(string: "/api")!)
    ///     try server.serveFiles(from: "Public", at: "/")
    ///
    /// `GET` and `HEAD` are answered (anything else is 405 with `Allow: GET, HEAD`): a regular
    /// file with its media type by extension, a strong `ETag` (inode, size, modification time)
    /// and `Last-Modified`, conditional requests (304, 412) and one byte range (206, 416,
    /// `If-Range`); a directory by its index file (`index.html`), and a directory asked for
    /// without its slash by a 301 to the slash (the query kept); a precompressed `.br`, `.zst` or
    /// `.gz` sibling when `Accept-Encoding` takes it. Over cleartext HTTP/1.1 the bytes go from the
    /// file to the socket with `sendfile(2)`; over TLS and HTTP/2 they are read in 64 KiB chunks
    /// as the client takes them.
    ///
    /// The path is looked up one percent-decoded segment at a time from the directory's
    /// descriptor, never following a symbolic link: `..`, `.`, empty segments, an encoded `/`
    /// or NUL, a backslash, names that are not UTF-8, dotfiles (unless
    /// ``StaticFileOptions/servesDotfiles``; `.well-known` is served), devices and fifos are all
    /// 404 (a malformed percent-encoding 400), each with a log line saying why.
    ///
    /// - Parameters:
    ///   - directory: The directory to serve; opened now, and kept open while the server lives
    ///     (files added or changed later are served as they are then; a directory replaced by
    ///     another at the same path is not seen: restart).
    ///   - prefix: The path prefix the files answer under, `/` by default (`/static` serves
    ///     `directory/a.css` as `/static/a.css`).
    ///   - options: Index files, caching, dotfiles, media types; ``StaticFileOptions``.
    /// - Throws: ``StaticFilesError`` when the directory cannot be opened; `RouteError` when the
    ///   prefix is malformed or taken, or the server already runs.
    public nonisolated func serveFiles(from directory: String, at prefix: String = "/", options: StaticFileOptions = .init()) throws {
        let responder = StaticFileResponder(root: try StaticRoot(path: directory), prefix: prefix, options: options, logger: configuration.logger)
        try registerFallback(under: prefix) { request in
            responder.respond(to: request)
        }
    }
}
