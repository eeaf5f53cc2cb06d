#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing

/// A temporary tree: `root/` (served) with the files below, and `outside/secret.txt` beside it,
/// which no request may reach.
///
///     root/hello.txt  index.html  a..b.txt  with space.txt  café.txt  deep/a/b/c/d/e.txt
///          app.js  app.js.gz  app.js.br  app.js.zst  docs/index.html  empty/  .env  .git/config  deep/.hidden
///          .well-known/security.txt  .well-known/.hidden  fifo (a fifo)
///          link-out -> ../outside/secret.txt   linkdir -> ..   link-dir-inside -> deep
final class StaticFilesFixture: Sendable {
    let base: String
    var root: String { base + "/root" }

    static let secret = "TOPSECRET-outside-the-root"
    static let dotSecret = "DOTFILE-SECRET"
    static let appJS = "console.log('plain');\n"
    static let appJSGzip = "GZIP-BYTES-OF-APP-JS"
    static let appJSBrotli = "BROTLI-BYTES-OF-APP-JS"
    static let appJSZstd = "ZSTD-BYTES-OF-APP-JS"

    init() throws {
        var template = Array("/tmp/whisker-static-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw FixtureError(reason: "mkdtemp") }
        base = String(cString: made)
        for directory in ["root", "outside", "root/deep", "root/deep/a", "root/deep/a/b", "root/deep/a/b/c", "root/deep/a/b/c/d",
                          "root/docs", "root/empty", "root/.git", "root/.well-known"] {
            mkdir(base + "/" + directory, 0o755)
        }
        try write("outside/secret.txt", Self.secret)
        try write("root/hello.txt", "hello static\n")
        try write("root/index.html", "<h1>cats</h1>\n")
        try write("root/a..b.txt", "dots inside\n")
        try write("root/with space.txt", "spaced\n")
        try write("root/café.txt", "unicode\n")
        try write("root/deep/a/b/c/d/e.txt", "deep\n")
        try write("root/app.js", Self.appJS)
        try write("root/app.js.gz", Self.appJSGzip)
        try write("root/app.js.br", Self.appJSBrotli)
        try write("root/app.js.zst", Self.appJSZstd)
        try write("root/docs/index.html", "<h1>docs</h1>\n")
        try write("root/.env", Self.dotSecret)
        try write("root/.git/config", Self.dotSecret)
        try write("root/deep/.hidden", Self.dotSecret)
        try write("root/.well-known/security.txt", "Contact: mailto:cats@example.com\n")
        try write("root/.well-known/.hidden", Self.dotSecret)
        mkfifo(root + "/fifo", 0o644)
        symlink("../outside/secret.txt", root + "/link-out")
        symlink("..", root + "/linkdir")
        symlink("deep", root + "/link-dir-inside")
    }

    /// Writes `text` to `path` (below the base).
    func write(_ path: String, _ text: String) throws {
        let fd = open(base + "/" + path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw FixtureError(reason: "open \(path)") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard Glibc.write(fd, bytes, bytes.count) == bytes.count else { throw FixtureError(reason: "write \(path)") }
    }

    /// A sparse file of `size` bytes (holes read as zeros), made without writing them.
    func sparse(_ path: String, size: Int64) throws {
        let fd = open(base + "/" + path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0, ftruncate(fd, off_t(size)) == 0 else { throw FixtureError(reason: "sparse \(path)") }
        close(fd)
    }

    deinit {
        // The tree is small and lives in /tmp: removed with `rm -rf`, links not followed.
        _ = system("rm -rf '\(base)'")
    }
}

struct FixtureError: Error { let reason: String }

/// What this process's descriptors are (`/proc/self/fd`'s links: files, `socket:[...]`), to say
/// which one a test left open.
func openDescriptors() -> [String] {
    guard let directory = opendir("/proc/self/fd") else { return [] }
    defer { closedir(directory) }
    var targets: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        var buffer = [CChar](repeating: 0, count: 512)
        let count = readlink("/proc/self/fd/" + name, &buffer, buffer.count - 1)
        targets.append(name + " -> " + (count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"))
    }
    return targets.sorted()
}

/// The traversal corpus: its request targets, comments left out.
func traversalCorpus() throws -> [String] {
    // Beside this source file (no resource bundle: the tests use no Foundation).
    let source = String(#filePath)
    let path = String(source[..<source.lastIndex(of: "/")!]) + "/TraversalCorpus.txt"
    guard let file = fopen(path, "r") else { throw FixtureError(reason: "corpus") }
    defer { fclose(file) }
    var lines: [String] = []
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    while getline(&line, &capacity, file) > 0 {
        let text = String(cString: line!).trimmingCharacters(in: "\n")
        if !text.isEmpty, !text.hasPrefix("#") { lines.append(text) }
    }
    free(line)
    return lines
}

extension String {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var text = self
        while text.last == character { text.removeLast() }
        return text
    }
}
