import HTTPTypes
import Testing
import WhiskerCore
import WhiskerTesting

/// Conditional GET on the wire: the ETag Whisker makes for an in-memory body. The 304 test, which
/// asks over HTTP/2 too, is in WhiskerHTTP2Tests/ConditionalWireTests.swift.
@Suite struct ConditionalWireTests {
    @Test func etagsOff_NoGeneratedETag() async throws {
        let server = makeTestServer { $0.responses.generatesETags = false }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().header("ETag") == nil)
        }
    }
}
