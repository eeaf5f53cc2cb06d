import HTTPTypes
import Logging
import OpenAPIRuntime
import OpenAPIWhisker
import Testing
import WhiskerCore
import WhiskerTesting

/// No credential reaches a log line. Every kind of failing request below carries a secret in
/// `Authorization`, `Proxy-Authorization`, `Cookie`, `X-API-Key` and the query, and the captured log
/// (debug level, access log on) is searched for it. The runtime's `ServerError` describes the whole
/// request head, so before this the transport's "request refused" line held `authorization: Bearer ...`.
@Suite struct CredentialLoggingTests {
    private static let secret = "S3CR3T-hunter2"

    /// The decoded input a generated handler would carry: header parameters with their values.
    private struct Input: Sendable { var apiKey: String }

    private struct Failure: Error, CustomStringConvertible {
        let request: HTTPRequest
        var description: String { "lookup failed for \(request.method.rawValue) with fields \(request.headerFields)" }
    }

    @Test func failingRequests_LogNoCredential() async throws {
        let lines = LoggedLines()
        var configuration = WhiskerServer.Configuration(host: "127.0.0.1", port: 0, logger: Logger.capturing(lines, level: .trace))
        configuration.accessLog = Logger.capturing(lines, label: "access", level: .trace)
        configuration.limits.maxRequestBodySize = 16
        let server = WhiskerServer(configuration: configuration)
        let transport = WhiskerTransport(server)
        let refused: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?) = { request, body, metadata in
            throw ServerError(
                operationID: "adopt", request: request, requestBody: body, requestMetadata: metadata,
                operationInput: Input(apiKey: request.headerFields[HTTPField.Name("X-API-Key")!] ?? ""),
                causeDescription: "Unexpected end of JSON", underlyingError: Failure(request: request),
                httpStatus: .badRequest, httpHeaderFields: [:], httpBody: nil)
        }
        let failed: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?) = { request, body, metadata in
            throw ServerError(operationID: "adopt", request: request, requestBody: body, requestMetadata: metadata, causeDescription: "Unknown", underlyingError: Failure(request: request))
        }
        let thrown: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?) = { request, _, _ in
            throw Failure(request: request)
        }
        try transport.register(refused, method: .post, path: "/api/refused")
        try transport.register(failed, method: .post, path: "/api/failed")
        try transport.register(thrown, method: .get, path: "/api/thrown")
        let credentials = "Authorization: Bearer \(Self.secret)\r\nProxy-Authorization: Basic \(Self.secret)\r\n"
            + "Cookie: theme=dark; session=\(Self.secret)\r\nX-API-Key: \(Self.secret)\r\n"
        let query = "?count=3&api_key=\(Self.secret)"
        try await server.withRunning { address in
            for request in [
                "POST /api/refused\(query) HTTP/1.1\r\nHost: x\r\n\(credentials)Content-Length: 2\r\n\r\n{}",  // 400 from the runtime
                "POST /api/failed\(query) HTTP/1.1\r\nHost: x\r\n\(credentials)Content-Length: 2\r\n\r\n{}",  // 500 from the runtime
                "GET /api/thrown\(query) HTTP/1.1\r\nHost: x\r\n\(credentials)\r\n",  // 500, the handler's own error
                "GET /api/missing\(query) HTTP/1.1\r\nHost: x\r\n\(credentials)\r\n",  // 404
                "DELETE /api/thrown\(query) HTTP/1.1\r\nHost: x\r\n\(credentials)\r\n",  // 405
                "POST /api/refused\(query) HTTP/1.1\r\nHost: x\r\n\(credentials)Content-Length: 99\r\n\r\n",  // 413
                "POST /api/refused\(query) HTTP/1.1\r\nHost: x\r\n\(credentials)Transfer-Encoding: chunked\r\n\r\n2;a=\"\r\nxx\r\n0\r\n\r\n",  // 400, a bad chunk
                "GET /api/thrown\(query) HTTP/1.1\r\nHost: x\r\n\(credentials)Bad Field: x\r\n\r\n",  // 400, a bad head
            ] {
                let client = try await TestClient.connect(to: address)
                try await client.send(request)
                let response = try await client.readResponse()
                #expect(response.status >= 400, "\(request.prefix(30))")
                try await client.close()
            }
        }
        let logged = lines.all.map { "\($0.0) \($0.1)" }
        #expect(logged.contains { $0.contains("request refused") })
        #expect(logged.contains { $0.contains("request failed") })
        #expect(logged.contains { $0.contains("handler failed") })
        #expect(logged.contains { $0.contains("rejected request") })
        #expect(logged.contains { $0.contains(LogRedaction.placeholder) }, "the lines that named a credential say it was redacted")
        for line in logged {
            #expect(!line.contains(Self.secret), "a credential in the log: \(line)")
        }
    }
}
