import CZlib
import CZstd
import HTTPTypes
import Testing
@testable import WhiskerCompression
import WhiskerCore
import WhiskerTesting

/// Request bodies that arrive compressed: decoded as the handler reads, refused when they do not
/// decode, use a coding the server does not know, or expand past the limit or the ratio.
@Suite struct RequestDecompressionTests {
    /// `/count` answers how many bytes it read, their sum, and the fields it saw.
    private func server(_ configure: (inout WhiskerServer.Configuration) -> Void = { _ in }) throws -> WhiskerServer {
        let server = makeTestServer {
            $0.requestDecompression = RequestDecompressionSettings()
            configure(&$0)
        }
        try server.register(method: .post, path: "/count") { request in
            var total = 0
            var sum = 0
            if let body = request.body {
                for try await chunk in body {
                    total += chunk.count
                    sum = chunk.reduce(sum) { ($0 + Int($1)) % 1_000_003 }
                }
            }
            let coding = request.head.headerFields[.contentEncoding] ?? "-"
            return Response(status: .ok, body: .init(string: "\(total) \(sum) \(coding) \(request.body?.length.map(String.init) ?? "-")"))
        }
        return server
    }

    private static let text = Array(String(repeating: "🐱 meow 😹 purr 😻 ", count: 5000).utf8)
    private static var textSum: Int { text.reduce(0) { ($0 + Int($1)) % 1_000_003 } }

    /// `bytes` deflated with zlib `windowBits` (15 + 16 gzip, 15 zlib, -15 raw).
    static func deflated(_ bytes: [UInt8], windowBits: Int32) -> [UInt8] {
        var stream = z_stream()
        _ = whisker_deflateInit2(&stream, 6, windowBits, 8)
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 64)
        var input = bytes
        input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                _ = deflate(&stream, Z_FINISH)
            }
        }
        return Array(output[..<Int(stream.total_out)])
    }

    private func post(_ client: TestClient, coding: String?, _ body: [UInt8], chunked: Bool = false) async throws -> TestResponse {
        var head = "POST /count HTTP/1.1\r\nHost: x\r\n" + (coding.map { "Content-Encoding: \($0)\r\n" } ?? "")
        if chunked {
            head += "Transfer-Encoding: chunked\r\n\r\n"
            var bytes = Array(head.utf8)
            for start in stride(from: 0, to: body.count, by: 1000) {
                let piece = body[start..<min(start + 1000, body.count)]
                bytes += Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Array("\r\n".utf8)
            }
            try await client.send(bytes + Array("0\r\n\r\n".utf8))
        } else {
            try await client.send(Array((head + "Content-Length: \(body.count)\r\n\r\n").utf8) + body)
        }
        return try await client.readResponse()
    }

    @Test(arguments: [("gzip", 15 + 16), ("x-gzip", 15 + 16), ("deflate", 15), ("deflate", -15), ("GZip", 15 + 16)] as [(String, Int32)])
    func decodedAsTheHandlerReads(_ coding: String, _ windowBits: Int32) async throws {
        let coded = Self.deflated(Self.text, windowBits: windowBits)
        try await server().withRunning { address in
            let client = try await TestClient.connect(to: address)
            for chunked in [false, true] {
                let response = try await post(client, coding: coding, coded, chunked: chunked)
                #expect(response.text == "\(Self.text.count) \(Self.textSum) - -",
                        "the handler reads the decoded bytes, without Content-Encoding or a length (\(coding), chunked \(chunked))")
            }
        }
    }

    /// `bytes` as one zstd frame at `level` with a checksum, with a window of 2^`windowLog` named in its header
    /// (`nil`: the frame states its length, and libzstd sizes the window to it).
    static func zstd(_ bytes: [UInt8], level: Int32 = 3, windowLog: Int32? = nil) -> [UInt8] {
        let context = ZSTD_createCCtx()
        defer { ZSTD_freeCCtx(context) }
        _ = ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level)
        // A checksum at the frame's end, as the zstd tool writes.
        _ = ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
        var output = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count) + 64)
        var produced = 0
        bytes.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                var input = ZSTD_inBuffer(src: source.baseAddress, size: source.count, pos: 0)
                var out = ZSTD_outBuffer(dst: target.baseAddress, size: target.count, pos: 0)
                if let windowLog {
                    // Streamed, its length unknown: the header names the window as set.
                    _ = ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, windowLog)
                    _ = ZSTD_compressStream2(context, &out, &input, ZSTD_e_continue)
                }
                while ZSTD_compressStream2(context, &out, &input, ZSTD_e_end) > 0 {}
                produced = out.pos
            }
        }
        return Array(output[..<produced])
    }

    @Test func zstd_DecodedAsTheHandlerReads_OneFrameOrSeveral() async throws {
        let half = Self.text.count / 2
        let frames = Self.zstd(Array(Self.text[..<half]), level: 1) + Self.zstd(Array(Self.text[half...]), level: 19)
        try await server().withRunning { address in
            let client = try await TestClient.connect(to: address)
            for (coded, chunked) in [(Self.zstd(Self.text), false), (Self.zstd(Self.text), true), (frames, false), (frames, true)] {
                let response = try await post(client, coding: "zstd", coded, chunked: chunked)
                #expect(response.text == "\(Self.text.count) \(Self.textSum) - -", "\(coded.count) coded bytes, chunked \(chunked)")
            }
            // Decoded to a whole number of the pieces the server reads (64 KiB): the frame's end
            // comes with the last full piece.
            let exact = Array(Self.text.prefix(2 << 16))
            let response = try await post(client, coding: "zstd", Self.zstd(exact, windowLog: 17))
            #expect(response.status == 200 && response.text.hasPrefix("\(exact.count) "), "\(response.text)")
        }
    }

    @Test func zstd_AFrameNamingAWindowOver8MiB_DoesNotDecode_OneOf8MiBDoes() async throws {
        // A few bytes can name a 16 MiB window: refused before anything that size is allocated,
        // while 8 MiB, what RFC 8878 asks an HTTP recipient to decode, is read.
        try await server().withRunning { address in
            var client = try await TestClient.connect(to: address)
            var response = try await post(client, coding: "zstd", Self.zstd(Self.text, windowLog: 24))
            #expect(response.status == 400 && response.text.contains("window larger than the 8 MiB"), "\(response.text)")
            client = try await TestClient.connect(to: address)
            response = try await post(client, coding: "zstd", Self.zstd(Self.text, windowLog: 23))
            #expect(response.text == "\(Self.text.count) \(Self.textSum) - -")
        }
    }

    @Test func zstd_UploadsPastTheServersZstdMemory_Get503_AndTheMemoryComesBack() async throws {
        // 4 MiB for all zstd uploads at once: one with a 2 MiB window (what zstd's default level
        // names for large input) fits, an 8 MiB one does not, nor a second 2 MiB one while the
        // first is being read; once the first is done its memory is free again.
        let text = Array([[UInt8]](repeating: Self.text, count: 8).joined())
        let sum = text.reduce(0) { ($0 + Int($1)) % 1_000_003 }
        let twoMiB = Self.zstd(text, windowLog: 21)
        let reading = Signal<Void>()
        let server = try server { $0.requestDecompression = RequestDecompressionSettings(maxZstdMemory: 4 << 20) }
        try server.register(method: .post, path: "/hold") { request in
            var total = 0
            for try await chunk in try #require(request.body) {
                if total == 0 { reading.fire() }
                total += chunk.count
            }
            return Response(status: .ok, body: .init(string: "\(total)"))
        }
        try await server.withRunning { address in
            var client = try await TestClient.connect(to: address)
            #expect(try await post(client, coding: "zstd", twoMiB).text == "\(text.count) \(sum) - -")
            client = try await TestClient.connect(to: address)
            let refused = try await post(client, coding: "zstd", Self.zstd(text, windowLog: 23))
            #expect(refused.status == 503 && refused.text.contains("as many zstd request bodies as it holds memory for (4 MiB)"), "\(refused.text)")

            let holder = try await TestClient.connect(to: address)
            let half = twoMiB.count / 2
            try await holder.send(Array("POST /hold HTTP/1.1\r\nHost: x\r\nContent-Encoding: zstd\r\nContent-Length: \(twoMiB.count)\r\n\r\n".utf8) + twoMiB[..<half])
            #expect(await reading.wait() != nil, "the handler reads the first piece of the held upload")
            client = try await TestClient.connect(to: address)
            #expect(try await post(client, coding: "zstd", twoMiB).status == 503, "a second 2 MiB window while the first is held")
            try await holder.send(Array(twoMiB[half...]))
            #expect(try await holder.readResponse().text == "\(text.count)")
            client = try await TestClient.connect(to: address)
            #expect(try await post(client, coding: "zstd", twoMiB).status == 200, "the held upload's memory came back")
        }
    }

    @Test func offByDefault_TheBodyArrivesAsItCame() async throws {
        let coded = Self.deflated(Self.text, windowBits: 15 + 16)
        try await server { $0.requestDecompression = nil }.withRunning { address in
            let client = try await TestClient.connect(to: address)
            let response = try await post(client, coding: "gzip", coded)
            #expect(response.text.hasPrefix("\(coded.count) ") && response.text.hasSuffix(" gzip \(coded.count)"))
        }
    }

    @Test(arguments: ["br", "zstd, gzip", "gzip, gzip", "compress"])
    func unknownOrSeveralCodings_Get415(_ coding: String) async throws {
        try await server().withRunning { address in
            let client = try await TestClient.connect(to: address)
            let response = try await post(client, coding: coding, Array("abc".utf8))
            #expect(response.status == 415, "\(coding): \(response.text)")
        }
    }

    @Test func aRequestWithoutABody_IsNotRefusedForItsCoding() async throws {
        try await server().withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("POST /count HTTP/1.1\r\nHost: x\r\nContent-Encoding: br\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
        }
    }

    @Test func identity_IsReadAsItCame() async throws {
        try await server().withRunning { address in
            let client = try await TestClient.connect(to: address)
            #expect(try await post(client, coding: "identity", Array("abc".utf8)).text.hasPrefix("3 "))
        }
    }

    /// `bytes` in `coding` ("gzip" or "zstd").
    static func coded(_ bytes: [UInt8], _ coding: String) -> [UInt8] {
        coding == "zstd" ? zstd(bytes) : deflated(bytes, windowBits: 15 + 16)
    }

    @Test(arguments: ["gzip", "zstd"])
    func bytesThatDoNotDecode_AndACutStream_Get400(_ coding: String) async throws {
        let coded = Self.coded(Self.text, coding)
        try await server().withRunning { address in
            var client = try await TestClient.connect(to: address)
            var response = try await post(client, coding: coding, Array("not \(coding) at all".utf8))
            #expect(response.status == 400 && response.text.contains("does not decode"), "\(response.text)")
            client = try await TestClient.connect(to: address)
            response = try await post(client, coding: coding, Array(coded.prefix(coded.count / 2)))
            #expect(response.status == 400 && response.text.contains("ends before its coding does"), "\(response.text)")
        }
    }

    @Test func theLimitCountsDecodedBytes() async throws {
        let coded = Self.deflated(Self.text, windowBits: 15 + 16)
        try await server { $0.limits.maxRequestBodySize = Int64(Self.text.count - 1) }.withRunning { address in
            let client = try await TestClient.connect(to: address)
            let response = try await post(client, coding: "gzip", coded)
            #expect(response.status == 413 && response.text.contains("decoded"), "\(coded.count) coded bytes under the limit, decoded over it: \(response.text)")
        }
    }

    @Test(arguments: ["gzip", "zstd"])
    func aBomb_IsRefusedByTheRatio_AfterItsFirstMiB(_ coding: String) async throws {
        // 64 MiB of zeros: about 64 KiB as gzip (1000:1), 2 KiB as zstd (30,000:1).
        let bomb = Self.coded([UInt8](repeating: 0, count: 64 << 20), coding)
        try await server { $0.limits.maxRequestBodySize = nil }.withRunning { address in
            let client = try await TestClient.connect(to: address)
            let response = try await post(client, coding: coding, bomb)
            #expect(response.status == 413 && response.text.contains("more than 200 times its coded size"), "\(bomb.count) bytes: \(response.text)")
        }
    }
}
