import Testing
import WhiskerTesting

/// Requests that HTTP/1.1 and HTTP/2 must answer alike, asked over both of one server: `OPTIONS *`
/// and percent-encoded paths. (The malformed HTTP/1.1 requests:
/// WhiskerCoreTests/HTTP1/RejectionWireTests.swift.)
@Suite struct RejectionWireTests {
    /// `OPTIONS *` asks about the server, not a resource (RFC 9110 §9.3.7): 204 and every method
    /// a route takes, over HTTP/1.1 and HTTP/2, and the connection serves on.
    @Test func optionsAsterisk_Gets204WithEveryMethod_OnBothProtocols() async throws {
        let server = makeHTTP2Server()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 204)
            #expect(response.header("allow") == "GET, HEAD, OPTIONS, POST")
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 200)

            let socket = try await TestClient.connect(to: address)
            let h2 = HTTP2TestClient()
            let id = h2.request(method: "OPTIONS", path: "*")
            try await h2.exchange(over: socket) { $0.closed[id] != nil }
            #expect(h2.status(id) == "204")
            #expect(h2.headers[id]?.first { $0.0 == "allow" }?.1 == "GET, HEAD, OPTIONS, POST")
        }
    }

    /// RFC 3986 §6.2.2.2: `%65` is `e`, so the path is the route's; an encoded reserved character
    /// (`%2F`) stays what it is, and a fragment or a non-ASCII byte in an HTTP/2 `:path` is refused
    /// as in HTTP/1.1.
    @Test func percentEncodedUnreserved_MatchesTheRoute_EncodedSlashDoesNot() async throws {
        let server = makeHTTP2Server()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            for (path, status) in [("/h%65llo", 200), ("/%68%65%6C%6c%6F", 200), ("/hello%2F", 404), ("/hell%6", 404)] {
                try await client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try await client.readResponse().status == status, "\(path)")
            }
            let socket = try await TestClient.connect(to: address)
            let h2 = HTTP2TestClient()
            let ids = [h2.request(path: "/h%65llo"), h2.request(path: "/hello#top"), h2.request(path: "/he\u{212A}lo")]
            try await h2.exchange(over: socket) { client in ids.allSatisfy { client.closed[$0] != nil } }
            #expect(h2.status(ids[0]) == "200")
            #expect(h2.status(ids[1]) == "400")
            #expect(h2.status(ids[2]) == "400", "a :path byte outside visible ASCII, as in an HTTP/1.1 target")
        }
    }
}
