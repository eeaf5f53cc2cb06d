import Foundation
import HTTPTypes
import OpenAPIWhiskerDocument
import Synchronization
import Testing
import WhiskerCore
import WhiskerTesting

/// A document's request examples replayed against real routes: the requests they make, and each
/// answer checked against the documented response (status, media type, schema, items).
@Suite struct DocumentExamplesTests {
    static let document = """
        openapi: 3.2.0
        info: {title: Pets, version: '1'}
        paths:
          /pets:
            post:
              operationId: addPet
              parameters:
                - {name: X-Trace, in: header, schema: {type: string}, example: t-1}
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {$ref: '#/components/schemas/Pet'}
                    examples:
                      tom: {value: {name: Tom}}
                      nameless: {value: {age: 3}}
                      shouty: {$ref: '#/components/examples/Shouty'}
              responses:
                '201':
                  description: Added.
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/Pet'}
                      examples:
                        tom: {value: {name: Tom}}
                        shouty: {value: {name: TOM}}
                '400':
                  description: No name.
                  content:
                    application/problem+json:
                      schema: {type: object, required: [title]}
                      examples:
                        nameless: {value: {title: Bad Request}}
            get:
              operationId: listPets
              parameters:
                - {name: tag, in: query, schema: {type: array, items: {type: string}}, example: [black cat, tabby]}
                - {name: limit, in: query, schema: {type: integer, example: 2}}
              responses:
                '200':
                  description: The pets, one JSON line each.
                  content:
                    application/jsonl:
                      itemSchema: {$ref: '#/components/schemas/Pet'}
          /pets/{id}:
            get:
              operationId: getPet
              parameters:
                - {name: id, in: path, required: true, schema: {type: string}}
              responses:
                '200': {description: The pet.}
          /health:
            get:
              operationId: health
              responses:
                '204': {description: Up.}
        components:
          schemas:
            Pet:
              type: object
              required: [name]
              properties:
                name: {type: string}
          examples:
            Shouty: {value: {name: TOM}}
        """

    /// What the routes saw, one line per request: method, target and `X-Trace`.
    final class Seen: Sendable {
        let requests = Mutex<[String]>([])
    }

    /// The routes: `addPet` answers 201 with the pet (a name in capitals comes back without it: a
    /// violation), or 400; `listPets` writes one good line and one without a name; `health` 204.
    func makeServer(_ seen: Seen) throws -> WhiskerServer {
        let server = makeTestServer()
        try server.register(method: .post, path: "/v1/pets") { request in
            var body: [UInt8] = []
            for try await chunk in request.body ?? RequestBody(bytes: []) { body += chunk }
            seen.requests.withLock { $0.append("POST \(request.head.path ?? "") \(request.head.headerFields[HTTPField.Name("X-Trace")!] ?? "-") \(String(decoding: body, as: UTF8.self))") }
            let text = String(decoding: body, as: UTF8.self)
            if text.contains("TOM") { return Response(status: .created, headerFields: [.contentType: "application/json"], body: .init(string: "{}")) }
            if text.contains("name") { return Response(status: .created, headerFields: [.contentType: "application/json"], body: .init(bytes: body)) }
            return Response(status: .badRequest, headerFields: [.contentType: "application/problem+json"], body: .init(string: #"{"title":"Bad Request"}"#))
        }
        try server.register(method: .get, path: "/v1/pets") { request in
            seen.requests.withLock { $0.append("GET \(request.head.path ?? "")") }
            return Response(status: .ok, headerFields: [.contentType: "application/jsonl"], body: .init(string: "{\"name\":\"Tom\"}\n{\"age\":3}\n"))
        }
        try server.register(method: .get, path: "/v1/health") { _ in Response(status: .noContent) }
        return server
    }

    @Test func eachExample_SentAndItsAnswerChecked() async throws {
        let seen = Seen()
        let server = try makeServer(seen)
        let examples = try DocumentExamples(OpenAPIDocument(yaml: Array(Self.document.utf8)))
        let report = try await examples.replay(through: WhiskerTestTransport(server), serverURL: URL(string: "https://pets.example/v1")!)
        #expect(seen.requests.withLock { $0 } == [
            #"POST /v1/pets t-1 {"name":"Tom"}"#,
            #"POST /v1/pets t-1 {"age":3}"#,
            #"POST /v1/pets t-1 {"name":"TOM"}"#,
            "GET /v1/pets?tag=black%20cat&tag=tabby&limit=2",
        ])
        #expect(report.description == """
            pass addPet (example tom): POST /pets answered 201
            pass addPet (example nameless): POST /pets answered 400
            FAIL addPet (example shouty): POST /pets answered 201: body /name: is required
            FAIL listPets: GET /pets?tag=black%20cat&tag=tabby&limit=2 answered 200: line 2 /name: is required
            pass health: GET /health answered 204
            skip getPet: skipped, its path parameter id is required and has no example
            """)
        #expect(report.failures.count == 2)
    }

    @Test func anAnswerOutsideTheDocument_AFailureNotACrash() async throws {
        let server = makeTestServer()
        try server.register(method: .get, path: "/v1/health") { _ in Response(status: .ok, headerFields: [.contentType: "text/plain"], body: .init(string: "up")) }
        try server.register(method: .post, path: "/v1/pets") { _ in Response(status: .init(code: 418)) }
        let examples = try DocumentExamples(OpenAPIDocument(yaml: Array(Self.document.utf8)))
        let report = try await examples.replay(
            through: WhiskerTestTransport(server), serverURL: URL(string: "http://localhost/v1")!, only: ["addPet", "health"]
        )
        #expect(report.failures.map(\.description) == [
            "addPet (example tom): POST /pets answered 418: status 418 is not documented (documented: 201, 400)",
            "addPet (example nameless): POST /pets answered 418: status 418 is not documented (documented: 201, 400)",
            "addPet (example shouty): POST /pets answered 418: status 418 is not documented (documented: 201, 400)",
            "health: GET /health answered 200: status 200 is not documented (documented: 204)",
        ])
        #expect(report.skipped.isEmpty, "getPet's skip is not among the operations asked for")
    }

    @Test func anAnswerThatNeverEnds_AFailureAfterTheTimeout() async throws {
        let server = makeTestServer()
        let stalled = Signal<Void>()
        try server.register(method: .get, path: "/v1/pets") { _ in
            Response(status: .ok, headerFields: [.contentType: "application/jsonl"], body: .init(length: nil) { _ in
                _ = await stalled.wait(timeout: .seconds(30))
            })
        }
        let examples = try DocumentExamples(OpenAPIDocument(yaml: Array(Self.document.utf8)))
        let report = try await examples.replay(
            through: WhiskerTestTransport(server), serverURL: URL(string: "http://localhost/v1")!, timeout: .milliseconds(500), only: ["listPets"]
        )
        stalled.fire()
        #expect(report.failures.map(\.description) == [
            "listPets: GET /pets?tag=black%20cat&tag=tabby&limit=2 got no answer: no complete answer within 0.5 seconds",
        ])
    }
}
