import HTTPTypes
import Logging
import Testing
import WhiskerCore
import WhiskerStaticFiles
import WhiskerTesting

/// The files of a directory beside the API, over HTTP/1.1 with real sockets: what is served, how,
/// and what is refused. Serialized: the transport tests (nested) count the process's sendfile
/// calls and descriptors, which no other test of files may change meanwhile.
@Suite(.serialized) struct StaticFilesTests {
    /// A server with `/api/hello` (a route) and the fixture's root at `/`.
    static func server(_ fixture: StaticFilesFixture, options: StaticFileOptions = .init(), configure: (inout WhiskerServer.Configuration) -> Void = { _ in }) throws -> WhiskerServer {
        let server = makeTestServer(configure)
        try server.register(method: .get, path: "/api/hello") { _ in Response(status: .ok, body: .init(string: "api")) }
        try server.serveFiles(from: fixture.root, at: "/", options: options)
        return server
    }

    /// Sends one request on a new connection and reads its response.
    static func get(_ address: SocketAddress, _ target: String, method: String = "GET", headers: String = "") async throws -> TestResponse {
        let client = try await TestClient.connect(to: address)
        try await client.send("\(method) \(target) HTTP/1.1\r\nHost: x\r\n\(headers)Connection: close\r\n\r\n")
        return try await client.readResponse(isHEAD: method == "HEAD")
    }

    /// Every path of the corpus gets 400 or 404, and no byte of a secret (outside the root, a
    /// dotfile, behind a link); /etc/passwd's first line never appears either.
    @Test func traversalCorpus_EveryPathIsRefused_AndNoSecretLeaks() async throws {
        let fixture = try StaticFilesFixture()
        let corpus = try traversalCorpus()
        #expect(corpus.count >= 100)
        try await Self.server(fixture).withRunning { (address: SocketAddress) async throws in
            for target in corpus {
                let client = try await TestClient.connect(to: address)
                try await client.send("GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                let all = try await client.readUntilClose()
                let status = Int(all.split(separator: " ").dropFirst().first ?? "") ?? 0
                #expect(status == 400 || status == 404, "\(target): \(status)")
                #expect(!all.contains(StaticFilesFixture.secret), "\(target) leaked the file outside the root")
                #expect(!all.contains(StaticFilesFixture.dotSecret), "\(target) leaked a dotfile")
                #expect(!all.contains("root:x:0:0"), "\(target) leaked /etc/passwd")
            }
        }
    }

    /// The legitimate shapes of the same paths are served: spaces, unicode, dots inside a name,
    /// deep paths, `.well-known`, index files.
    @Test func legitimateNames_AreServed() async throws {
        let fixture = try StaticFilesFixture()
        try await Self.server(fixture).withRunning { (address: SocketAddress) async throws in
            for (target, body) in [
                ("/hello.txt", "hello static\n"), ("/with%20space.txt", "spaced\n"), ("/caf%C3%A9.txt", "unicode\n"), ("/caf%c3%a9.txt", "unicode\n"),
                ("/a..b.txt", "dots inside\n"), ("/deep/a/b/c/d/e.txt", "deep\n"), ("/%64eep/a/b/c/d/e.txt", "deep\n"),
                ("/.well-known/security.txt", "Contact: mailto:cats@example.com\n"), ("/", "<h1>cats</h1>\n"), ("/docs/", "<h1>docs</h1>\n"),
                ("/hello.txt?v=3", "hello static\n"),
            ] {
                let response = try await Self.get(address, target)
                #expect(response.status == 200, "\(target)")
                #expect(response.text == body, "\(target)")
            }
        }
    }

    /// A file: its bytes, media type, length, strong ETag and Last-Modified; HEAD the same head.
    @Test func file_HasTypeLengthAndValidators_HeadHasNoBody() async throws {
        let fixture = try StaticFilesFixture()
        try await Self.server(fixture, options: .init(cacheControl: "public, max-age=60")).withRunning { (address: SocketAddress) async throws in
            let response = try await Self.get(address, "/hello.txt")
            #expect(response.header("content-type") == "text/plain; charset=utf-8")
            #expect(response.header("content-length") == "13")
            #expect(response.header("cache-control") == "public, max-age=60")
            #expect(response.header("accept-ranges") == "bytes")
            let etag = try #require(response.header("etag"))
            #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
            #expect(response.header("last-modified")?.hasSuffix(" GMT") == true)
            let head = try await Self.get(address, "/hello.txt", method: "HEAD")
            #expect(head.status == 200)
            #expect(head.header("content-length") == "13")
            #expect(head.header("etag") == etag)
            #expect(head.body.isEmpty)
            #expect(try await Self.get(address, "/index.html").header("content-type") == "text/html; charset=utf-8")
        }
    }

    /// If-None-Match and If-Modified-Since answer 304 with the validators; If-Match that names
    /// another tag 412; a changed file gets a new tag.
    @Test func conditionalRequests_304And412() async throws {
        let fixture = try StaticFilesFixture()
        try await Self.server(fixture).withRunning { (address: SocketAddress) async throws in
            let first = try await Self.get(address, "/hello.txt")
            let etag = try #require(first.header("etag"))
            let modified = try #require(first.header("last-modified"))
            let notModified = try await Self.get(address, "/hello.txt", headers: "If-None-Match: \(etag)\r\n")
            #expect(notModified.status == 304)
            #expect(notModified.header("etag") == etag)
            #expect(notModified.body.isEmpty)
            #expect(try await Self.get(address, "/hello.txt", headers: "If-Modified-Since: \(modified)\r\n").status == 304)
            #expect(try await Self.get(address, "/hello.txt", headers: "If-None-Match: \"other\"\r\n").status == 200)
            #expect(try await Self.get(address, "/hello.txt", headers: "If-Match: \"other\"\r\n").status == 412)
            try fixture.write("root/hello.txt", "hello again, longer\n")
            let changed = try await Self.get(address, "/hello.txt", headers: "If-None-Match: \(etag)\r\n")
            #expect(changed.status == 200)
            #expect(changed.text == "hello again, longer\n")
            #expect(changed.header("etag") != etag)
        }
    }

    /// One range: 206 with Content-Range; a suffix; 416 past the end; If-Range with another tag
    /// gets the whole file.
    @Test func ranges_206_416_AndIfRange() async throws {
        let fixture = try StaticFilesFixture()
        try await Self.server(fixture).withRunning { (address: SocketAddress) async throws in
            let partial = try await Self.get(address, "/hello.txt", headers: "Range: bytes=1-3\r\n")
            #expect(partial.status == 206)
            #expect(partial.header("content-range") == "bytes 1-3/13")
            #expect(partial.text == "ell")
            let suffix = try await Self.get(address, "/hello.txt", headers: "Range: bytes=-7\r\n")
            #expect(suffix.text == "static\n")
            let past = try await Self.get(address, "/hello.txt", headers: "Range: bytes=100-\r\n")
            #expect(past.status == 416)
            #expect(past.header("content-range") == "bytes */13")
            let stale = try await Self.get(address, "/hello.txt", headers: "Range: bytes=1-3\r\nIf-Range: \"old\"\r\n")
            #expect(stale.status == 200)
            #expect(stale.text == "hello static\n")
        }
    }

    /// A directory without its slash: 301 to the slash, the query kept; the prefix itself too.
    @Test func directoryWithoutSlash_RedirectsKeepingTheQuery() async throws {
        let fixture = try StaticFilesFixture()
        try await Self.server(fixture).withRunning { (address: SocketAddress) async throws in
            let response = try await Self.get(address, "/docs?page=2")
            #expect(response.status == 301)
            #expect(response.header("location") == "/docs/?page=2")
            #expect(try await Self.get(address, "/deep/a").header("location") == "/deep/a/")
            // A directory without an index: 404, never a listing.
            #expect(try await Self.get(address, "/empty/").status == 404)
        }
        let prefixed = makeTestServer()
        try prefixed.serveFiles(from: fixture.root, at: "/static")
        try await prefixed.withRunning { (address: SocketAddress) async throws in
            #expect(try await Self.get(address, "/static").header("location") == "/static/")
            #expect(try await Self.get(address, "/static/hello.txt").text == "hello static\n")
            #expect(try await Self.get(address, "/staticky/hello.txt").status == 404)
            #expect(try await Self.get(address, "/hello.txt").status == 404)
        }
    }

    /// Routes win: the API answers its paths (and 405 for another method on them); other methods
    /// on files get 405 with Allow.
    @Test func routesWin_FilesAnswerTheRest_OtherMethods405() async throws {
        let fixture = try StaticFilesFixture()
        try await Self.server(fixture).withRunning { (address: SocketAddress) async throws in
            #expect(try await Self.get(address, "/api/hello").text == "api")
            #expect(try await Self.get(address, "/api/hello", method: "DELETE").status == 405)
            let post = try await Self.get(address, "/hello.txt", method: "POST", headers: "Content-Length: 0\r\n")
            #expect(post.status == 405)
            #expect(post.header("allow") == "GET, HEAD")
            #expect(try await Self.get(address, "/api/nothing").status == 404)
        }
    }

    /// Precompressed siblings by Accept-Encoding and its q-values, with Vary and Content-Encoding;
    /// ranges of the chosen representation; the identity when no coding is taken.
    @Test func precompressedSiblings_ChosenByAcceptEncoding() async throws {
        let fixture = try StaticFilesFixture()
        try await Self.server(fixture).withRunning { (address: SocketAddress) async throws in
            let brotli = try await Self.get(address, "/app.js", headers: "Accept-Encoding: gzip, deflate, br\r\n")
            #expect(brotli.header("content-encoding") == "br")
            #expect(brotli.text == StaticFilesFixture.appJSBrotli)
            #expect(brotli.header("vary") == "Accept-Encoding")
            #expect(brotli.header("content-type") == "text/javascript; charset=utf-8")
            let gzip = try await Self.get(address, "/app.js", headers: "Accept-Encoding: br;q=0.5, gzip\r\n")
            #expect(gzip.header("content-encoding") == "gzip")
            #expect(gzip.text == StaticFilesFixture.appJSGzip)
            #expect(gzip.header("etag") != brotli.header("etag"))
            for field in ["Accept-Encoding: zstd\r\n", "Accept-Encoding: br;q=0.5, zstd, gzip\r\n"] {
                let zstd = try await Self.get(address, "/app.js", headers: field)
                #expect(zstd.header("content-encoding") == "zstd", "\(field)")
                #expect(zstd.text == StaticFilesFixture.appJSZstd, "\(field)")
            }
            let browser = try await Self.get(address, "/app.js", headers: "Accept-Encoding: gzip, deflate, br, zstd\r\n")
            #expect(browser.header("content-encoding") == "br", "the smallest of the siblings a browser takes alike")
            for field in ["", "Accept-Encoding: identity\r\n", "Accept-Encoding: gzip;q=0, br;q=0, zstd;q=0\r\n", "Accept-Encoding: gzip;q=0.5, identity\r\n"] {
                let plain = try await Self.get(address, "/app.js", headers: field)
                #expect(plain.header("content-encoding") == nil, "\(field)")
                #expect(plain.text == StaticFilesFixture.appJS, "\(field)")
                #expect(plain.header("vary") == "Accept-Encoding", "\(field)")
            }
            let range = try await Self.get(address, "/app.js", headers: "Accept-Encoding: gzip\r\nRange: bytes=0-3\r\n")
            #expect(range.status == 206)
            #expect(range.header("content-encoding") == "gzip")
            #expect(range.text == "GZIP")
            #expect(try await Self.get(address, "/hello.txt", headers: "Accept-Encoding: br\r\n").header("vary") == nil)
        }
    }

    /// Dotfiles are refused unless the options serve them.
    @Test func dotfiles_RefusedByDefault_ServedWhenAsked() async throws {
        let fixture = try StaticFilesFixture()
        try await Self.server(fixture).withRunning { (address: SocketAddress) async throws in
            #expect(try await Self.get(address, "/.env").status == 404)
        }
        try await Self.server(fixture, options: .init(servesDotfiles: true)).withRunning { (address: SocketAddress) async throws in
            #expect(try await Self.get(address, "/.env").text == StaticFilesFixture.dotSecret)
        }
    }

    /// A fifo is refused at once (opening one would wait for a writer), and a link is never
    /// followed, even to inside the root.
    @Test func fifoAndLinks_AreRefusedPromptly() async throws {
        let fixture = try StaticFilesFixture()
        try await Self.server(fixture).withRunning { (address: SocketAddress) async throws in
            #expect(try await Self.get(address, "/fifo").status == 404)
            #expect(try await Self.get(address, "/link-out").status == 404)
            #expect(try await Self.get(address, "/link-dir-inside/a/b/c/d/e.txt").status == 404)
        }
    }

    /// What a refusal logs: the path and the reason, readable.
    @Test func refusal_IsLoggedWithItsReason() async throws {
        let fixture = try StaticFilesFixture()
        let lines = LoggedLines()
        try await Self.server(fixture, configure: { $0.logger = Logger(label: "whisker.test") { _ in CapturingLogHandler(lines: lines) } }).withRunning { (address: SocketAddress) async throws in
            #expect(try await Self.get(address, "/%2e%2e/outside/secret.txt").status == 404)
        }
        let refusal = lines.all.first { $0.0 == "static file refused" }
        #expect(refusal?.1["reason"].map { "\($0)" } == "\"a dot segment\"")
        #expect(refusal?.1["path"].map { "\($0)" } == "/%2e%2e/outside/secret.txt")
    }
}
