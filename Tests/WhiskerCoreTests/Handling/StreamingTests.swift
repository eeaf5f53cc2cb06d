#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes
import Synchronization
import Testing
import WhiskerCore
import WhiskerTesting

/// 64 MiB up and down through a handler that streams, with the process's resident memory sampled
/// throughout: backpressure must keep it bounded, far below the size of the body. Resident memory
/// is the whole process's, so `make test` runs this suite in a process of its own
/// (`swift test --filter StreamingTests`).
@Suite(.serialized) struct StreamingTests {
    static let size = 64 * 1024 * 1024
    /// Well under the body size: without backpressure the server would hold most of the 64 MiB.
    static let maxGrowth = 24 * 1024 * 1024

    @Test func upload64MiB_StreamsThroughASlowHandler_WithBoundedMemory() async throws {
        let peak = Mutex(0)
        let server = makeTestServer { $0.limits.maxRequestBodySize = nil }
        try server.register(method: .put, path: "/upload") { request in
            var received = 0
            var checksum: UInt64 = 0
            for try await chunk in request.body! {
                received += chunk.count
                for byte in chunk { checksum = checksum &* 31 &+ UInt64(byte) }
                let rss = residentBytes()
                peak.withLock { $0 = max($0, rss) }
            }
            return Response(status: .ok, body: .init(string: "\(received) \(checksum)"))
        }
        let baseline = residentBytes()
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: \(Self.size)\r\n\r\n")
            try await client.sendPattern(count: Self.size)
            let response = try await client.readResponse()
            #expect(response.text == "\(Self.size) \(TestClient.checksum(ofPattern: Self.size))")
        }
        let growth = peak.withLock { $0 } - baseline
        #expect(growth < Self.maxGrowth, "resident memory grew by \(growth / 1024 / 1024) MiB during a 64 MiB upload")
    }

    @Test func chunkedUpload_ArrivesWhole() async throws {
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            var request = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            var expected = ""
            for index in 0..<50 {
                let piece = String(repeating: Character(UnicodeScalar(UInt8(97 + index % 26))), count: index * 37 + 1)
                expected += piece
                request += "\(String(piece.utf8.count, radix: 16));ext=\(index)\r\n\(piece)\r\n"
            }
            request += "0\r\nX-Trailer: ignored\r\n\r\n"
            try await client.send(request)
            #expect(try await client.readResponse().text == expected)
        }
    }

    @Test func download64MiB_StreamsWithBackpressure_WithBoundedMemory() async throws {
        let peak = Mutex(0)
        let server = makeTestServer()
        try server.register(method: .get, path: "/download") { _ in
            Response(status: .ok, body: ResponseBody(length: Int64(Self.size)) { writer in
                let piece = (0..<(64 * 1024)).map { UInt8(truncatingIfNeeded: $0) }
                for _ in 0..<(Self.size / piece.count) {
                    try await writer.write(piece)
                    let rss = residentBytes()
                    peak.withLock { $0 = max($0, rss) }
                }
            })
        }
        let baseline = residentBytes()
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /download HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse(collectBody: false)
            #expect(response.header("content-length") == "\(Self.size)")
            #expect(response.bodyCount == Self.size)
            #expect(response.bodyChecksum == TestClient.checksum(ofPattern: Self.size))
        }
        let growth = peak.withLock { $0 } - baseline
        #expect(growth < Self.maxGrowth, "resident memory grew by \(growth / 1024 / 1024) MiB during a 64 MiB download")
    }
}
