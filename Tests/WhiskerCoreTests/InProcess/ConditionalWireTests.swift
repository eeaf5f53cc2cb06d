import HTTPTypes
import Testing
import WhiskerCore
import WhiskerTesting

/// Conditional GET on the wire: the ETag Whisker makes for an in-memory body, and 304 over both protocols.
@Suite struct ConditionalWireTests {
    @Test func ifNoneMatch_Gets304_OverHTTP1AndHTTP2() async throws {
        let server = makeServer()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let tag = try #require(try await client.readResponse().header("ETag"))
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(tag)\r\n\r\n")
            let notModified = try await client.readResponse()
            #expect(notModified.status == 304 && notModified.body.isEmpty && notModified.header("ETag") == tag)
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().text == "hello", "the connection serves on after a 304")

            let socket = try await TestClient.connect(to: address)
            let h2 = HTTP2TestClient()
            let id = h2.request(path: "/hello", headers: [("if-none-match", tag)])
            try await h2.exchange(over: socket) { $0.closed[id] != nil }
            #expect(h2.status(id) == "304")
            #expect(h2.bodies[id] == nil)
        }
    }

    @Test func etagsOff_NoGeneratedETag() async throws {
        let server = makeServer { $0.generatesETags = false }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().header("ETag") == nil)
        }
    }
}
