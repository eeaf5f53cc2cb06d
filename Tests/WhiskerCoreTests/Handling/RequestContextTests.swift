import HTTPTypes
import Logging
import Testing
import WhiskerCore
import WhiskerTesting

/// `RequestContext.current` in a handler, request ids, and the access log. (What the context
/// says over HTTPS and HTTP/2: WhiskerHTTP2Tests/RequestContextTests.swift.)
@Suite struct RequestContextTests {
    @Test func http11_Cleartext_WithAndWithoutTheClientsRequestID() async throws {
        #expect(RequestContext.current == nil, "no context outside a request")
        let server = makeTestServer()
        try registerContextRoute(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /context HTTP/1.1\r\nHost: x\r\n\r\n")
            var response = try await client.readResponse()
            #expect(response.text == "HTTP/1.1 | cleartext | no id | 127.0.0.1")
            #expect(response.header("X-Request-ID") == nil, "request ids are off by default")
            try await client.send("GET /context HTTP/1.1\r\nHost: x\r\nX-Request-ID: trace-42\r\n\r\n")
            response = try await client.readResponse()
            #expect(response.text == "HTTP/1.1 | cleartext | trace-42 | 127.0.0.1")
        }
    }

    @Test func requestIDs_AreGeneratedAndEchoed_WhenOn() async throws {
        let server = makeTestServer { $0.requestIDs = true }
        try registerContextRoute(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /context HTTP/1.1\r\nHost: x\r\n\r\n")
            let first = try await client.readResponse()
            let id = try #require(first.header("X-Request-ID"))
            #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
            #expect(first.text.contains("| \(id) |"), "the handler sees the id the response carries")
            try await client.send("GET /context HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().header("X-Request-ID") != id, "a new id per request")
            try await client.send("GET /context HTTP/1.1\r\nHost: x\r\nX-Request-ID: \(String(repeating: "a", count: 201))\r\n\r\n")
            #expect(try await client.readResponse().header("X-Request-ID")?.count == 32, "an unusable (too long) client id is replaced")
        }
    }

    @Test func accessLog_OneLinePerRequest_WithStatusBytesProtocolAndID() async throws {
        let lines = LoggedLines()
        let accessLog = Logger.capturing(lines, label: "access")
        let server = makeTestServer {
            $0.accessLog = accessLog
            $0.requestIDs = true
        }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\nX-Request-ID: abc\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nxyz")
            #expect(try await client.readResponse().status == 200)
        }
        let logged = lines.all
        #expect(logged.count == 2)
        #expect(logged.first?.0 == "GET /hello 200")
        #expect(logged.first?.1["bytes"] == "5")
        #expect(logged.first?.1["protocol"] == "HTTP/1.1")
        #expect(logged.first?.1["request_id"] == "abc")
        #expect(logged.first?.1["peer"].map { "\($0)" }?.hasPrefix("127.0.0.1:") == true)
        #expect(logged.first?.1["duration_ms"] != nil)
        #expect(logged.last?.0 == "POST /echo 200")
        #expect(logged.last?.1["bytes"] == "3")
    }

    /// `Logger.current` in a handler is the server's logger with the request's id, and so are the
    /// server's own lines about the request (a handler that failed).
    @Test func loggerCurrent_CarriesTheRequestID_InTheHandler_AndTheServersLines() async throws {
        let lines = LoggedLines()
        let server = makeTestServer {
            $0.logger = .capturing(lines, label: "server")
            $0.requestIDs = true
        }
        try server.register(method: .get, path: "/log") { _ in
            Logger.current.info("from the handler")
            return Response(status: .ok)
        }
        try server.register(method: .get, path: "/fail") { _ in
            struct Broken: Error {}
            throw Broken()
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /log HTTP/1.1\r\nHost: x\r\nX-Request-ID: abc\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
            try await client.send("GET /fail HTTP/1.1\r\nHost: x\r\nX-Request-ID: def\r\n\r\n")
            #expect(try await client.readResponse().status == 500)
        }
        let logged = lines.all
        #expect(logged.first { $0.0 == "from the handler" }?.1["request_id"] == "abc", "\(logged)")
        #expect(logged.first { $0.0 == "handler failed" }?.1["request_id"] == "def", "\(logged)")
    }

    /// Both task-locals span the whole response, not only the handler's call: a response step and
    /// a streamed body's writer see `Logger.current` with the request's id and
    /// `RequestContext.current` (the binding is placed for what it costs, so guard its scope).
    @Test func loggerCurrent_AndTheContext_ReachTheResponseSteps_AndAStreamedBody() async throws {
        struct Tag: ResponseStep {
            func apply(to response: inout Response, for request: HTTPRequest, requestID: String?) {
                let logged = Logger.current[metadataKey: "request_id"].map { "\($0)" } ?? "none"
                response.head.headerFields[HTTPField.Name("X-Step")!] = "\(logged) \(RequestContext.current?.requestID ?? "none")"
            }
        }
        let lines = LoggedLines()
        let server = makeTestServer {
            $0.logger = .capturing(lines, label: "server")
            $0.responseSteps = [Tag()]
        }
        try server.register(method: .get, path: "/stream") { _ in
            Response(status: .ok, body: ResponseBody(length: nil) { writer in
                let logged = Logger.current[metadataKey: "request_id"].map { "\($0)" } ?? "none"
                try await writer.write(Array("\(logged) \(RequestContext.current?.requestID ?? "none")".utf8))
            })
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /stream HTTP/1.1\r\nHost: x\r\nX-Request-ID: ghi\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.header("X-Step") == "ghi ghi")
            #expect(response.text == "ghi ghi")
        }
    }
}
