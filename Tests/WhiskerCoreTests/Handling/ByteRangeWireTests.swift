import HTTPTypes
import Testing
import WhiskerCore
import WhiskerTesting

/// Byte ranges on the wire, over HTTP/1.1, for a body in memory and a streamed one (over HTTP/2:
/// WhiskerHTTP2Tests/ByteRangeWireTests.swift).
@Suite struct ByteRangeWireTests {
    private static let body = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    private func makeRangeServer(_ configure: (inout WhiskerServer.Configuration) -> Void = { _ in }) throws -> WhiskerServer {
        let server = makeTestServer(configure)
        try registerByteRangeRoutes(on: server, body: Self.body)
        return server
    }

    @Test(arguments: ["/memory", "/stream"])
    func http1_RangeGets206WithThoseBytes(path: String) async throws {
        try await makeRangeServer().withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET \(path) HTTP/1.1\r\nHost: x\r\nRange: bytes=250-649\r\n\r\n")
            let partial = try await client.readResponse()
            #expect(partial.status == 206)
            #expect(partial.header("Content-Range") == "bytes 250-649/1000")
            #expect(partial.header("Content-Length") == "400")
            #expect(partial.body == Array(Self.body[250...649]))

            try await client.send("GET \(path) HTTP/1.1\r\nHost: x\r\nRange: bytes=1000-\r\n\r\n")
            let refused = try await client.readResponse()
            #expect(refused.status == 416)
            #expect(refused.header("Content-Range") == "bytes */1000")

            try await client.send("HEAD \(path) HTTP/1.1\r\nHost: x\r\nRange: bytes=-10\r\n\r\n")
            let head = try await client.readResponse(isHEAD: true)
            #expect(head.status == 206 && head.header("Content-Range") == "bytes 990-999/1000" && head.body.isEmpty)

            try await client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            let whole = try await client.readResponse()
            #expect(whole.status == 200 && whole.header("Accept-Ranges") == "bytes" && whole.body == Self.body)
        }
    }

    @Test func rangesOff_TheWhole200WithoutAcceptRanges() async throws {
        try await makeRangeServer { $0.responses.servesByteRanges = false }.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /memory HTTP/1.1\r\nHost: x\r\nRange: bytes=0-9\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200 && response.header("Accept-Ranges") == nil && response.body.count == 1000)
        }
    }
}
