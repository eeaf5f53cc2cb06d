import HTTPTypes
import Logging
import Testing
import WhiskerCore
import WhiskerTesting

/// Request body limits per route, beside each other and the server's: declared lengths refused
/// before the handler, chunked bodies as the handler reads past its route's limit.
@Suite struct RouteBodyLimitTests {
    /// Server limit 100 bytes; `/small` takes 10, `/upload` 1,000, `/default` the server's.
    private func server() throws -> WhiskerServer {
        let server = makeTestServer { $0.limits.maxRequestBodySize = 100 }
        let count: HTTPHandler = { request in
            var total = 0
            if let body = request.body { for try await chunk in body { total += chunk.count } }
            return Response(status: .ok, body: .init(string: "\(total) bytes"))
        }
        try server.register(method: .post, path: "/small", maxRequestBodySize: .maximum(10), handler: count)
        try server.register(method: .post, path: "/upload", maxRequestBodySize: .maximum(1000), handler: count)
        try server.register(method: .post, path: "/default", handler: count)
        return server
    }

    private static func post(_ path: String, _ count: Int) -> String {
        "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Length: \(count)\r\n\r\n" + String(repeating: "a", count: count)
    }

    private static func chunked(_ path: String, _ count: Int) -> String {
        "POST \(path) HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\(String(count, radix: 16))\r\n\(String(repeating: "a", count: count))\r\n0\r\n\r\n"
    }

    @Test(arguments: [
        ("/small", 10, 200, false), ("/small", 11, 413, false), ("/upload", 500, 200, false), ("/upload", 1000, 200, false),
        ("/upload", 1001, 413, false), ("/default", 100, 200, false), ("/default", 101, 413, false),
        ("/small", 11, 413, true), ("/upload", 900, 200, true), ("/upload", 1001, 413, true), ("/default", 101, 413, true),
    ])
    func declaredAndChunkedBodies(_ path: String, _ count: Int, _ status: Int, _ chunked: Bool) async throws {
        try await server().withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send(chunked ? Self.chunked(path, count) : Self.post(path, count))
            let response = try await client.readResponse()
            #expect(response.status == status, "\(path) with \(count) bytes, chunked \(chunked): \(response.text)")
            if status == 200 { #expect(response.text == "\(count) bytes") }
            if status == 413 { #expect(response.text.contains("larger than")) }
        }
    }

    @Test func aBodyRefusedAsTheHandlerReads_IsLoggedWithTheAnswerSent() async throws {
        let lines = LoggedLines()
        let server = makeTestServer { $0.accessLog = .capturing(lines, label: "access") }
        try server.register(method: .post, path: "/small", maxRequestBodySize: .maximum(10)) { request in
            if let body = request.body { for try await _ in body {} }
            return Response(status: .ok)
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send(Self.chunked("/small", 11))
            #expect(try await client.readResponse().status == 413)
            #expect(try await client.isClosedByServer())
        }
        #expect(lines.all.map { $0.1["status"]?.description } == ["413"], "the access log says what the client got, not the handler's failure")
    }

    @Test func theTransportKeysLimitsByMethodAndPath() async throws {
        // Through the public register: no route may take more than its own limit, whatever the server's.
        let server = makeTestServer { $0.limits.maxRequestBodySize = nil }
        try server.register(method: .post, path: "/names", maxRequestBodySize: .maximum(4)) { _ in Response(status: .ok) }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send(Self.post("/names", 5))
            #expect(try await client.readResponse().status == 413)
        }
    }
}
