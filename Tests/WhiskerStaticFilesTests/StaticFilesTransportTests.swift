import HTTPTypes
import Synchronization
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerSockets
import WhiskerStaticFiles
import WhiskerTesting
import WhiskerTLS

/// How files leave: `sendfile(2)` over cleartext HTTP/1.1 (counted), chunks read as the client
/// takes them over TLS and h2c; every file closed. (Memory for a client that stops reading:
/// StaticFilesMemoryTests.)
/// Nested in ``StaticFilesTests``, which is serialized: the sendfile count and the descriptor
/// count are the process's.
extension StaticFilesTests {
@Suite struct Transport {
    static let bigSize = 3 * 1024 * 1024 + 17

    /// The fixture plus `big.bin`, 3 MiB and 17 bytes of a pattern.
    static func fixture() throws -> StaticFilesFixture {
        let fixture = try StaticFilesFixture()
        var text = ""
        text.reserveCapacity(bigSize)
        let line = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!\n"
        while text.utf8.count + line.utf8.count <= bigSize { text += line }
        text += String(repeating: "x", count: bigSize - text.utf8.count)
        try fixture.write("root/big.bin", text)
        return fixture
    }

    static func server(_ fixture: StaticFilesFixture, _ configure: (inout WhiskerServer.Configuration) -> Void = { _ in }) throws -> WhiskerServer {
        let server = makeTestServer {
            $0.http2 = HTTP2Settings()
            $0.listeners.append(.https(port: 0, tls: TestCertificates.localhostTLS))
            configure(&$0)
        }
        try server.serveFiles(from: fixture.root, at: "/")
        return server
    }

    /// Cleartext HTTP/1.1 sends the file with sendfile(2): the count of calls grows, the bytes
    /// are the file's, and a range is sent from its offset.
    @Test func cleartextHTTP1_UsesSendfile() async throws {
        let fixture = try Self.fixture()
        try await Self.server(fixture).withRunningAddresses { addresses in
            let before = sendFileCallCount.load(ordering: .relaxed)
            let client = try await TestClient.connect(to: addresses[0])
            try await client.send("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.body.count == Self.bigSize)
            #expect(response.text.hasPrefix("0123456789abcdef"))
            #expect(sendFileCallCount.load(ordering: .relaxed) > before, "the body went out with sendfile(2)")
            try await client.send("GET /big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=64-73\r\n\r\n")
            let range = try await client.readResponse()
            #expect(range.status == 206)
            #expect(range.text == "0123456789")
        }
    }

    /// TLS cannot sendfile: the same bytes, read in chunks, and no sendfile call.
    @Test func tls_ReadsInChunks_NoSendfile() async throws {
        let fixture = try Self.fixture()
        try await Self.server(fixture).withRunningAddresses { addresses in
            let before = sendFileCallCount.load(ordering: .relaxed)
            let client = try await TestClient.connect(to: addresses[1], tls: TestTLSOptions(trustedCAPath: TestCertificates.ca))
            try await client.send("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.body.count == Self.bigSize)
            #expect(response.text.hasSuffix("xxx"))
            try await client.send("GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=0-4\r\n\r\n")
            #expect(try await client.readResponse().text == "hello")
            #expect(sendFileCallCount.load(ordering: .relaxed) == before)
        }
    }

    /// h2c: a file, a range, HEAD, a precompressed sibling, a redirect, a refusal.
    @Test func h2c_ServesFiles() async throws {
        let fixture = try Self.fixture()
        try await Self.server(fixture).withRunningAddresses { addresses in
            let socket = try await TestClient.connect(to: addresses[0])
            let h2 = HTTP2TestClient()
            let ids = [
                h2.request(path: "/big.bin"), h2.request(path: "/hello.txt", headers: [("range", "bytes=6-11")]),
                h2.request(method: "HEAD", path: "/big.bin"), h2.request(path: "/app.js", headers: [("accept-encoding", "gzip")]),
                h2.request(path: "/docs?x=1"), h2.request(path: "/%2e%2e/outside/secret.txt"),
            ]
            try await h2.exchange(over: socket) { client in ids.allSatisfy { client.closed[$0] != nil } }
            #expect(h2.status(ids[0]) == "200")
            #expect(h2.bodies[ids[0]]?.count == Self.bigSize)
            #expect(h2.status(ids[1]) == "206")
            #expect(h2.bodies[ids[1]].map { String(decoding: $0, as: UTF8.self) } == "static")
            #expect(h2.status(ids[2]) == "200")
            #expect(h2.headers[ids[2]]?.first { $0.0 == "content-length" }?.1 == "\(Self.bigSize)")
            #expect((h2.bodies[ids[2]] ?? []).isEmpty)
            #expect(h2.headers[ids[3]]?.first { $0.0 == "content-encoding" }?.1 == "gzip")
            #expect(h2.bodies[ids[3]].map { String(decoding: $0, as: UTF8.self) } == StaticFilesFixture.appJSGzip)
            #expect(h2.status(ids[4]) == "301")
            #expect(h2.headers[ids[4]]?.first { $0.0 == "location" }?.1 == "/docs/?x=1")
            #expect(h2.status(ids[5]) == "404")
        }
    }

    /// Every file opened for a response is closed: after GETs, HEADs, 304s, ranges, refusals and
    /// clients that leave mid-body, the process holds as many descriptors as before.
    @Test func everyOpenedFile_IsClosed_OnEveryPath() async throws {
        let fixture = try Self.fixture()
        try await Self.server(fixture).withRunningAddresses { addresses in
            let warm = try await TestClient.connect(to: addresses[0])
            try await warm.send("GET /hello.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let etag = try #require(try await warm.readResponse().header("etag"))
            _ = try await warm.readUntilClose()
            // Files and sockets (a timer's or an event's descriptor made on first use is the
            // server's, for its life, not a request's).
            func held() -> [String] { openDescriptors().filter { !$0.contains("anon_inode:") } }
            let before = held()
            for round in 0..<5 {
                for (request, fields) in [
                    ("GET /big.bin", ""), ("HEAD /big.bin", ""), ("GET /hello.txt", "If-None-Match: \(etag)\r\n"),
                    ("GET /big.bin", "Range: bytes=10-20\r\n"), ("GET /big.bin", "Range: bytes=999999999-\r\n"), ("GET /.env", ""),
                    ("GET /docs", ""), ("GET /app.js", "Accept-Encoding: br\r\n"), ("POST /hello.txt", "Content-Length: 0\r\n"),
                ] {
                    let client = try await TestClient.connect(to: addresses[round % 2], tls: round % 2 == 1 ? TestTLSOptions(trustedCAPath: TestCertificates.ca) : nil)
                    try await client.send("\(request) HTTP/1.1\r\nHost: x\r\n\(fields)Connection: close\r\n\r\n")
                    _ = try await client.readResponse(isHEAD: request.hasPrefix("HEAD"))
                    try await client.close()
                }
                // Clients that leave mid-body: over cleartext (sendfile) and TLS (chunks).
                let gone = try await TestClient.connect(to: addresses[0])
                try await gone.send("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try await gone.receiveSome()
                try await gone.close()
                let goneTLS = try await TestClient.connect(to: addresses[1], tls: TestTLSOptions(trustedCAPath: TestCertificates.ca))
                try await goneTLS.send("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try await goneTLS.receiveSome()
                try await goneTLS.close()
            }
            // The server notices the clients that left as its writes fail: wait for that (bounded).
            // Both conditions: the process's count alone moves with the tests running beside this
            // one (a descriptor they closed hid a served file still open here once).
            func servedFileOpen() -> Bool { held().contains { $0.contains(fixture.base) && !$0.hasSuffix(fixture.root) } }
            let deadline = ContinuousClock.now + .seconds(10)
            while held().count > before.count || servedFileOpen(), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let after = held()
            #expect(after.count <= before.count, "left open: \(after.filter { !before.contains($0) })")
            #expect(!servedFileOpen(), "a file of the served directory is still open")
        }
    }
}
}
