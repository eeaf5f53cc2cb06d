import HTTPTypes
import Testing
import WhiskerCore
import WhiskerTesting

/// Byte ranges on the wire over HTTP/2, for a body in memory and a streamed one (over HTTP/1.1:
/// WhiskerCoreTests/Handling/ByteRangeWireTests.swift).
@Suite struct ByteRangeWireTests {
    private static let body = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    private func makeRangeServer() throws -> WhiskerServer {
        let server = makeHTTP2Server()
        try registerByteRangeRoutes(on: server, body: Self.body)
        return server
    }

    @Test(arguments: ["/memory", "/stream"])
    func http2_RangeGets206WithThoseBytes(path: String) async throws {
        try await makeRangeServer().withRunning { address in
            let socket = try await TestClient.connect(to: address)
            let h2 = HTTP2TestClient()
            let partial = h2.request(path: path, headers: [("range", "bytes=-100")])
            let refused = h2.request(path: path, headers: [("range", "bytes=5000-6000")])
            try await h2.exchange(over: socket) { $0.closed[partial] != nil && $0.closed[refused] != nil }
            #expect(h2.status(partial) == "206")
            #expect(h2.headers[partial]?.first { $0.0 == "content-range" }?.1 == "bytes 900-999/1000")
            #expect(h2.bodies[partial] == Array(Self.body[900...]))
            #expect(h2.status(refused) == "416")
        }
    }
}
