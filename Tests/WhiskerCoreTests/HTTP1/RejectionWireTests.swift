import Testing
import WhiskerCore
import WhiskerTesting

/// Each malformed or abusive request from DESIGN.md's HTTP/1.1 list, sent as exact bytes to a
/// real server: the status must be the documented one, the connection must close (framing is in
/// doubt, so nothing after it may be trusted), and the server must still answer a new client.
/// (`OPTIONS *` and percent-encoded paths, asked over both protocols, are in
/// WhiskerHTTP2Tests/RejectionWireTests.swift.)
@Suite struct RejectionWireTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: String
        let status: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // Request smuggling: a front end using one length and Whisker the other would disagree on where the next request starts.
        Case(name: "Content-Length and Transfer-Encoding together", bytes: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400),
        Case(name: "differing duplicate Content-Length", bytes: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", status: 400),
        Case(name: "differing Content-Length list", bytes: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 4\r\n\r\nabcd", status: 400),
        Case(name: "Content-Length with a sign", bytes: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc", status: 400),
        Case(name: "Transfer-Encoding not ending in chunked", bytes: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n", status: 400),
        Case(name: "Transfer-Encoding gzip only", bytes: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", status: 400),
        Case(name: "unsupported coding before chunked", bytes: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", status: 501),
        Case(name: "Transfer-Encoding in HTTP/1.0", bytes: "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400),
        // Header parsing differences between hops: folded lines and "Name :" are read differently by different parsers.
        Case(name: "obs-fold", bytes: "GET /hello HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\n\r\n", status: 400),
        Case(name: "whitespace before colon", bytes: "GET /hello HTTP/1.1\r\nHost: x\r\nContent-Length : 0\r\n\r\n", status: 400),
        Case(name: "NUL in a field value", bytes: "GET /hello HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n", status: 400),
        Case(name: "CR inside a field value", bytes: "GET /hello HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n", status: 400),
        Case(name: "missing Host in HTTP/1.1", bytes: "GET /hello HTTP/1.1\r\n\r\n", status: 400),
        Case(name: "two Host fields", bytes: "GET /hello HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400),
        // Bare LF: Whisker accepts only CRLF (RFC 9112 section 2.2 allows either; disagreeing hops are a smuggling vector).
        Case(name: "bare LF line endings", bytes: "GET /hello HTTP/1.1\nHost: x\n\n", status: 400),
        Case(name: "non-hex chunk size", bytes: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n", status: 400),
        Case(name: "overflowing chunk size", bytes: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nabc\r\n", status: 400),
        Case(name: "chunk without CRLF after its data", bytes: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n", status: 400),
        Case(name: "unknown HTTP version", bytes: "GET /hello HTTP/2.0\r\nHost: x\r\n\r\n", status: 505),
        Case(name: "malformed request line", bytes: "GET  /hello HTTP/1.1\r\nHost: x\r\n\r\n", status: 400),
        // Fail-fast: no line end ever comes; the first impossible byte is enough (before, these waited for the header timeout).
        Case(name: "TLS ClientHello on the cleartext port", bytes: "\u{16}\u{03}\u{01}\u{00}\u{7F}\u{01}\u{00}\u{00}", status: 400),
        Case(name: "a header name going wrong mid-line", bytes: "GET /hello HTTP/1.1\r\nHost: x\r\nX Y", status: 400),
        // A fragment is for the client alone (RFC 9112 §3.2): refused, not routed without it; the second never ends its line.
        Case(name: "fragment in the request target", bytes: "GET /hello#top HTTP/1.1\r\nHost: x\r\n\r\n", status: 400),
        Case(name: "fragment while the target arrives", bytes: "GET /hello#", status: 400),
        Case(name: "unsupported expectation", bytes: "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 1\r\n\r\na", status: 417),
    ]

    @Test(arguments: cases)
    func malformedRequest_GetsStatusAndClose_ServerStillAnswers(_ testCase: Case) async throws {
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send(testCase.bytes)
            let response = try await client.readResponse()
            #expect(response.status == testCase.status)
            #expect(response.header("connection")?.lowercased() == "close")
            #expect(!response.text.isEmpty, "a rejection says why in its body")
            #expect(try await client.isClosedByServer())

            let next = try await TestClient.connect(to: address)
            try await next.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await next.readResponse().status == 200)
        }
    }

    @Test func identicalDuplicateContentLength_IsAccepted() async throws {
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "abc")
        }
    }

    @Test func limits_GetTheirOwnStatuses() async throws {
        let server = makeTestServer { configuration in
            configuration.limits.maxRequestLineLength = 100
            configuration.limits.maxHeaderBytes = 1024
            configuration.limits.maxHeaderCount = 10
            configuration.limits.maxRequestBodySize = 16
        }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let requests: [(String, Int)] = [
                ("GET /\(String(repeating: "a", count: 200)) HTTP/1.1\r\nHost: x\r\n\r\n", 414),
                ("GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 2000))\r\n\r\n", 431),
                ("GET /hello HTTP/1.1\r\nHost: x\r\n" + (0..<11).map { "X-\($0): v\r\n" }.joined() + "\r\n", 431),
                ("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\n\r\n", 413),
                ("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456789abcdef\r\n1\r\nX\r\n0\r\n\r\n", 413),
            ]
            for (bytes, status) in requests {
                let client = try await TestClient.connect(to: address)
                try await client.send(bytes)
                let response = try await client.readResponse()
                #expect(response.status == status, "\(bytes.prefix(40))")
                #expect(try await client.isClosedByServer())
            }
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
        }
    }

    @Test func contentLengthOverLimitWithExpectContinue_Gets413WithoutContinue() async throws {
        let server = makeTestServer { $0.limits.maxRequestBodySize = 16 }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 1000\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 413)
        }
    }

    @Test func unknownPath_Gets404_WrongMethod_Gets405WithAllow_ConnectionStaysOpen() async throws {
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 404)
            try await client.send("DELETE /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 405)
            #expect(response.header("allow") == "GET, HEAD")
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
        }
    }
}
