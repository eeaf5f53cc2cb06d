import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIWhisker
import Synchronization
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerTesting

/// Responses checked against the document: each violation reported once, with the operation,
/// the status and what failed; the response itself goes out unchanged.
@Suite struct ContractCheckTests {
    static let document = """
        openapi: 3.1.0
        info: {title: Pets, version: '1'}
        paths:
          /pets/{id}:
            get:
              operationId: getPet
              parameters:
                - {name: id, in: path, required: true, schema: {type: string}}
              responses:
                '200':
                  description: The pet.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [name]
                        properties:
                          name: {type: string}
                '4XX':
                  description: A problem.
                  content:
                    application/problem+json:
                      schema: {type: object}
        """

    final class Reports: Sendable {
        let all = Mutex<[String]>([])
        let signal = Signal<Void>()
        func add(_ violation: ContractViolation) {
            all.withLock { $0.append(violation.description) }
            signal.fire()
        }
    }

    /// Each pet id answers differently: `good`, `gateway` (an undocumented 502; 4XX is documented), `text` (a
    /// Content-Type the 200 does not list), `nameless` (JSON without its required name),
    /// `streamed` (the same, streamed), `missing` (404 problem details, documented as 4XX).
    func withServer(_ body: @Sendable (SocketAddress, Reports) async throws -> Void) async throws {
        let reports = Reports()
        let check = try ContractCheck(OpenAPIDocument(yaml: Array(Self.document.utf8)), serverURL: URL(string: "http://localhost/v1")!) { reports.add($0) }
        let server = makeTestServer {
            $0.responseSteps.append(check)
            $0.http2 = HTTP2Settings()
        }
        let transport = WhiskerTransport(server)
        try transport.register({ _, _, metadata in
            let json: HTTPFields = [.contentType: "application/json"]
            switch metadata.pathParameters["id"] {
            case "good": return (HTTPResponse(status: .ok, headerFields: json), HTTPBody(#"{"name":"Tom"}"#))
            case "gateway": return (HTTPResponse(status: .badGateway), nil)
            case "text": return (HTTPResponse(status: .ok, headerFields: [.contentType: "text/plain"]), HTTPBody("Tom"))
            case "nameless": return (HTTPResponse(status: .ok, headerFields: json), HTTPBody(#"{"age":3}"#))
            case "streamed":
                let stream = AsyncStream<ArraySlice<UInt8>> { continuation in
                    continuation.yield(ArraySlice(#"{"age":"#.utf8))
                    continuation.yield(ArraySlice("3}".utf8))
                    continuation.finish()
                }
                return (HTTPResponse(status: .ok, headerFields: json), HTTPBody(stream, length: .unknown))
            default: return (HTTPResponse(status: .notFound, headerFields: [.contentType: "application/problem+json"]), HTTPBody("{}"))
            }
        }, method: .get, path: "/v1/pets/{id}")
        try server.register(method: .get, path: "/other") { _ in Response(status: .init(code: 418)) }
        try await server.withRunning { address in try await body(address, reports) }
    }

    @Test func eachViolation_ReportedWithTheOperationStatusAndWhatFailed() async throws {
        try await withServer { address, reports in
            let client = try await TestClient.connect(to: address)
            for (id, status) in [("good", 200), ("missing", 404), ("gateway", 502), ("text", 200), ("nameless", 200), ("streamed", 200)] {
                try await client.send("GET /v1/pets/\(id) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try await client.readResponse().status == status, "the response goes out as the handler made it")
            }
            for _ in 0..<4 { #expect(await reports.signal.wait() != nil) }
            try await client.send("GET /other HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/pets/good HTTP/1.1\r\nHost: x\r\nRange: bytes=0-3\r\n\r\n")
            #expect(try await client.readResponse().status == 418, "not an operation: not checked")
            #expect(try await client.readResponse().status == 206, "a range of a documented 200 is HTTP's, not a violation")
            try await client.send("GET /v1/pets/good HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try await client.readResponse()
            #expect(reports.all.withLock { $0 } == [
                "getPet (GET /v1/pets/gateway) answered 502: status 502 is not documented (documented: 200, 4XX)",
                "getPet (GET /v1/pets/text) answered 200: Content-Type text/plain is not documented for 200 (documented: application/json)",
                "getPet (GET /v1/pets/nameless) answered 200: body /name: is required",
                "getPet (GET /v1/pets/streamed) answered 200: body /name: is required",
            ])
        }
    }

    @Test func overHTTP2_TheSameCheck() async throws {
        try await withServer { address, reports in
            let socket = try await TestClient.connect(to: address)
            let h2 = HTTP2TestClient()
            let good = h2.request(path: "/v1/pets/good")
            let bad = h2.request(path: "/v1/pets/nameless")
            try await h2.exchange(over: socket) { $0.closed[good] != nil && $0.closed[bad] != nil }
            #expect(await reports.signal.wait() != nil)
            #expect(reports.all.withLock { $0 } == ["getPet (GET /v1/pets/nameless) answered 200: body /name: is required"])
        }
    }
}
