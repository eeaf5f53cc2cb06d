/// The media types of the common web files, by extension (lower case).
enum ContentTypes {
    static let common: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8", "json": "application/json",
        "map": "application/json", "txt": "text/plain; charset=utf-8", "md": "text/markdown; charset=utf-8",
        "csv": "text/csv; charset=utf-8", "xml": "application/xml", "yaml": "application/yaml", "yml": "application/yaml",
        "webmanifest": "application/manifest+json", "wasm": "application/wasm", "pdf": "application/pdf",
        "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "avif": "image/avif", "ico": "image/x-icon", "bmp": "image/bmp",
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        "mp4": "video/mp4", "webm": "video/webm", "ogv": "video/ogg", "mov": "video/quicktime",
        "mp3": "audio/mpeg", "ogg": "audio/ogg", "oga": "audio/ogg", "wav": "audio/wav", "flac": "audio/flac", "m4a": "audio/mp4",
        "zip": "application/zip", "gz": "application/gzip", "br": "application/octet-stream", "tar": "application/x-tar",
    ]

    /// The media type of `name` (by its last extension), from `overrides`, then the table, else `fallback`.
    static func type(of name: String, overrides: [String: String], fallback: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return fallback }
        let ext = name[name.index(after: dot)...].lowercased()
        return overrides[ext] ?? common[ext] ?? fallback
    }
}
