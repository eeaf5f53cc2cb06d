/// A request path under a prefix, checked and split into the names to look up below the root:
/// I/O-free, so that the traversal rules are tested from strings.
///
/// Each segment is percent-decoded once, on its own (an encoded `/`, `%2F`, stays inside its
/// segment, where it is refused), and must be a plain name: not empty (`//`), not `.` or `..`,
/// no NUL, slash, backslash or control byte, valid UTF-8 (an overlong `%C0%AE` is not), at most
/// 255 bytes, and not starting with `.` unless the options allow it.
enum StaticFilePath: Equatable {
    /// The names below the root (empty: the root itself), and whether the path ended with `/`.
    case names([String], directory: Bool)
    /// The path is the prefix without its slash (`/static` for `/static/`): redirect there.
    case prefixWithoutSlash
    /// Refused, with the status (400 for a malformed percent-encoding, else 404) and why.
    case refused(status: Int, reason: String)

    /// `path` (without its query) under `prefix` (a fallback prefix the path starts with).
    static func parse(_ path: Substring, prefix: String, options: StaticFileOptions) -> StaticFilePath {
        guard path.utf8.count <= options.maxPathLength else {
            return .refused(status: 404, reason: "path longer than \(options.maxPathLength) bytes")
        }
        let base = prefix.hasSuffix("/") ? prefix.utf8.count - 1 : prefix.utf8.count
        let rest = path.utf8.dropFirst(base)
        if rest.isEmpty { return .prefixWithoutSlash }
        guard rest.first == UInt8(ascii: "/") else { return .refused(status: 404, reason: "path outside the prefix") }
        var raw = Substring(rest.dropFirst()).split(separator: "/", omittingEmptySubsequences: false)
        let directory = raw.last?.isEmpty ?? true
        if directory { raw.removeLast() }
        guard raw.count <= options.maxDepth else { return .refused(status: 404, reason: "path deeper than \(options.maxDepth) segments") }
        var names: [String] = []
        names.reserveCapacity(raw.count)
        for segment in raw {
            switch name(of: segment, options: options) {
            case .success(let name): names.append(name)
            case .failure(let refusal): return .refused(status: refusal.status, reason: refusal.reason)
            }
        }
        return .names(names, directory: directory)
    }

    struct Refusal: Error {
        let status: Int
        let reason: String
    }

    /// One segment as the name of a file or directory, or why it cannot be one.
    private static func name(of segment: Substring, options: StaticFileOptions) -> Result<String, Refusal> {
        guard !segment.isEmpty else { return .failure(Refusal(status: 404, reason: "empty path segment")) }
        guard let bytes = percentDecoded(segment) else { return .failure(Refusal(status: 400, reason: "malformed percent-encoding")) }
        guard bytes.count <= 255 else { return .failure(Refusal(status: 404, reason: "a segment longer than 255 bytes")) }
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") }) {
            return .failure(Refusal(status: 404, reason: "a segment holds a NUL, control byte, slash or backslash"))
        }
        guard let name = String(validating: bytes, as: UTF8.self) else {
            return .failure(Refusal(status: 404, reason: "a segment is not UTF-8"))
        }
        if name == "." || name == ".." { return .failure(Refusal(status: 404, reason: "a dot segment")) }
        if name.hasPrefix("."), !options.servesDotfiles, !options.allowedDotNames.contains(name) {
            return .failure(Refusal(status: 404, reason: "a dotfile"))
        }
        return .success(name)
    }

    /// The bytes `segment` percent-encodes, decoded once; `nil` when a `%` starts no triplet.
    static func percentDecoded(_ segment: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(segment.utf8.count)
        var iterator = segment.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
