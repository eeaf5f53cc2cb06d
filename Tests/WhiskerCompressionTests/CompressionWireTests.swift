import HTTPTypes
import Testing
import WhiskerCompression
import WhiskerCore
import WhiskerTesting

/// Compression on the wire, over HTTP/1.1: the fields, revalidation with the weak `ETag`, and a
/// stream whose every write leaves coded and flushed before the handler writes the next.
@Suite(.timeLimit(.minutes(1))) struct CompressionWireTests {
    private static let text = String(repeating: "Whisker compresses text. ", count: 40)

    private func server(release: Signal<Void> = Signal()) throws -> WhiskerServer {
        let server = makeTestServer { $0.compression = CompressionSettings() }
        try server.register(method: .get, path: "/text") { _ in
            Response(status: .ok, headerFields: [.contentType: "text/plain; charset=utf-8"], body: .init(string: Self.text))
        }
        try server.register(method: .get, path: "/events") { _ in
            Response(status: .ok, headerFields: [.contentType: "text/event-stream"], body: ResponseBody(length: nil) { writer in
                try await writer.write(Array("data: first\n\n".utf8))
                // The second event waits for the test, which has read the first by then.
                _ = await release.wait()
                try await writer.write(Array("data: second\n\n".utf8))
            })
        }
        return server
    }

    /// A level zlib, Brotli or libzstd does not take (or, for zstd, one whose window browsers
    /// refuse) is a startup error naming it, not a crash; the extremes they take start.
    @Test(arguments: [
        (0, 4, 3, "gzipLevel must be 1...9, got 0"), (6, 12, 3, "brotliQuality must be 0...11, got 12"),
        (6, 4, 0, "zstdLevel must be 1...19, got 0"), (6, 4, 20, "zstdLevel must be 1...19, got 20"), (9, 11, 19, nil), (1, 0, 1, nil),
    ] as [(Int, Int, Int, String?)])
    func levelsOutOfRange_AreStartupErrors(gzip: Int, brotli: Int, zstd: Int, error expected: String?) async throws {
        var settings = CompressionSettings()
        (settings.gzipLevel, settings.brotliQuality, settings.zstdLevel) = (gzip, brotli, zstd)
        let server = makeTestServer { $0.compression = settings }
        guard let expected else {
            try await server.withRunning { _ in }
            return
        }
        let error = await #expect(throws: WhiskerServerError.self) { try await server.run() }
        #expect(error?.description.contains(expected) == true, "\(String(describing: error))")
    }

    @Test func gzip_WithVaryAndAWeakETag_ThatRevalidates() async throws {
        try await server().withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /text HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.header("Content-Encoding") == "gzip")
            #expect(response.header("Vary") == "Accept-Encoding")
            #expect(response.header("Content-Length") == "\(response.body.count)")
            #expect(try String(decoding: ContentCoding.gzip.decode(response.body), as: UTF8.self) == Self.text)
            let etag = try #require(response.header("ETag"))
            #expect(etag.hasPrefix("W/\""))

            try await client.send("GET /text HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nIf-None-Match: \(etag)\r\n\r\n")
            let revalidated = try await client.readResponse()
            #expect(revalidated.status == 304)
            #expect(revalidated.body.isEmpty)
        }
    }

    @Test(arguments: ContentCoding.allCases)
    func aBodyInMemory_LeavesInTheCodingAskedFor_WithItsCodedLength(coding: ContentCoding) async throws {
        try await server().withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /text HTTP/1.1\r\nHost: x\r\nAccept-Encoding: \(coding.token)\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.header("Content-Encoding") == coding.token)
            #expect(response.header("Content-Length") == "\(response.body.count)")
            #expect(response.body.count < Self.text.utf8.count / 5)
            #expect(try String(decoding: coding.decode(response.body), as: UTF8.self) == Self.text)
        }
    }

    @Test(arguments: ContentCoding.allCases)
    func aStreamedEvent_ArrivesCodedBeforeTheNextIsWritten(coding: ContentCoding) async throws {
        let release = Signal<Void>()
        try await server(release: release).withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /events HTTP/1.1\r\nHost: x\r\nAccept-Encoding: \(coding.token)\r\n\r\n")
            // Read until the first event decodes; the handler is parked before the second.
            var raw: [UInt8] = []
            var decoded = ""
            while !decoded.contains("data: first\n\n") {
                let bytes = try await client.receiveSome()
                try #require(!bytes.isEmpty, "the server closed before the first event")
                raw += bytes
                guard let headEnd = raw.firstRange(of: Array("\r\n\r\n".utf8)) else { continue }
                let head = String(decoding: raw[..<headEnd.lowerBound], as: UTF8.self)
                #expect(head.contains("Content-Encoding: \(coding.token)"))
                #expect(head.contains("Transfer-Encoding: chunked"))
                // Chunked framing: decode whole chunks only.
                var rest = Array(raw[headEnd.upperBound...])
                var coded: [UInt8] = []
                while let lineEnd = rest.firstRange(of: Array("\r\n".utf8)),
                      let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self), radix: 16),
                      rest.count >= lineEnd.upperBound + size + 2 {
                    coded += rest[lineEnd.upperBound..<(lineEnd.upperBound + size)]
                    rest.removeFirst(lineEnd.upperBound + size + 2)
                }
                if !coded.isEmpty {
                    decoded = String(decoding: try coding.decoder().decode(coded), as: UTF8.self)
                }
            }
            #expect(decoded == "data: first\n\n", "the first event alone, decodable before the second exists")
            release.fire()
        }
    }
}
