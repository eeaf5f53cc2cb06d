import Testing
import WhiskerTesting

/// Conditional GET on the wire, with HTTP/2 on: 304 over both protocols from one server. (The
/// rest, over HTTP/1.1: WhiskerCoreTests/Handling/ConditionalWireTests.swift.)
@Suite struct ConditionalWireTests {
    @Test func ifNoneMatch_Gets304_OverHTTP1AndHTTP2() async throws {
        let server = makeHTTP2Server()
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
}
