import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIWhiskerDocument
import Testing
import WhiskerCore
import WhiskerMock
import WhiskerTesting

/// A document served with no code: each answer from its examples (chosen by `Prefer` and
/// `Accept`) or made from its schema, requests validated, credentials asked for.
@Suite struct DocumentMockTests {
    static let document = """
        openapi: 3.2.0
        info: {title: Pets, version: '1'}
        servers: [{url: 'http://localhost:8080/v1'}]
        paths:
          /pets/{id}:
            get:
              operationId: getPet
              parameters: [{name: id, in: path, required: true, schema: {type: integer, minimum: 1}}]
              security: [{token: ['pets:read']}]
              responses:
                '200':
                  description: A pet.
                  headers:
                    X-Rate: {required: true, schema: {type: integer, minimum: 5}}
                    X-Note: {schema: {type: string}, example: hello}
                    X-Unsaid: {schema: {type: string}}
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/Pet'}
                      examples:
                        tom: {value: {id: 1, name: Tom, kind: cat}}
                        rex: {value: {id: 2, name: Rex, kind: dog}}
                    text/plain:
                      example: Tom the cat
                '404':
                  description: No such pet.
                  content:
                    application/problem+json:
                      schema: {type: object, required: [title], properties: {title: {type: string, example: Not Found}}}
          /pets:
            get:
              operationId: listPets
              responses:
                '200':
                  description: The pets, one JSON line each.
                  content:
                    application/jsonl:
                      itemSchema: {$ref: '#/components/schemas/Pet'}
            post:
              operationId: addPet
              requestBody:
                required: true
                content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
              responses:
                '201': {description: Added.}
                '400': {description: Not a pet.}
          /search:
            post:
              operationId: searchPets
              requestBody:
                required: true
                content:
                  application/x-www-form-urlencoded:
                    schema:
                      type: object
                      required: [name]
                      properties:
                        name: {type: string, minLength: 2}
                        age: {type: integer, minimum: 0}
                        tags: {type: array, items: {type: string}}
              responses:
                '200':
                  description: Found.
                  content: {text/plain: {example: found}}
          /ticks:
            get:
              operationId: ticks
              responses:
                '200':
                  description: Ticks.
                  content:
                    text/event-stream:
                      itemSchema:
                        type: object
                        required: [data]
                        properties:
                          data: {type: string, enum: [tick]}
                          id: {type: string, pattern: '^[0-9]+$'}
        components:
          securitySchemes:
            token: {type: http, scheme: bearer}
          schemas:
            Pet:
              type: object
              required: [id, name, kind]
              properties:
                id: {type: integer, format: int64, minimum: 1}
                name: {type: string, minLength: 2, maxLength: 20}
                kind: {type: string, enum: [cat, dog]}
                born: {type: string, format: date}
                tags: {type: array, items: {type: string}, minItems: 1}
                weight: {type: number, exclusiveMinimum: 0, multipleOf: 0.5}
        """

    struct Answer {
        let status: Int
        let fields: HTTPFields
        let body: String
    }

    /// Sends `method` `path` with `fields` (and `body`) to a mock of the document.
    func send(
        _ method: HTTPRequest.Method, _ path: String, _ fields: HTTPFields = [:], body: String? = nil, credentials: Set<String>? = nil
    ) async throws -> Answer {
        let server = makeTestServer()
        try DocumentMock(OpenAPIDocument(yaml: Array(Self.document.utf8)), credentials: credentials).register(on: server)
        let (response, responseBody) = try await WhiskerTestTransport(server).send(
            HTTPRequest(method: method, scheme: nil, authority: nil, path: path, headerFields: fields),
            body: body.map { HTTPBody($0) }, baseURL: URL(string: "http://localhost:8080/v1")!, operationID: ""
        )
        var bytes: [UInt8] = []
        if let responseBody { bytes = try await [UInt8](collecting: responseBody, upTo: 1 << 20) }
        return Answer(status: response.status.code, fields: response.headerFields, body: String(decoding: bytes, as: UTF8.self))
    }

    static let bearer: HTTPFields = [.authorization: "Bearer any"]

    @Test func anOperation_AnswersItsFirstSuccess_FromItsFirstExample_WithItsHeaders() async throws {
        let answer = try await send(.get, "/pets/7", Self.bearer)
        #expect(answer.status == 200 && answer.fields[.contentType] == "application/json")
        #expect(answer.body == #"{"id":1,"name":"Tom","kind":"cat"}"#)
        #expect(answer.fields[HTTPField.Name("X-Rate")!] == "5", "required: made from its schema")
        #expect(answer.fields[HTTPField.Name("X-Note")!] == "hello", "its example")
        #expect(answer.fields[HTTPField.Name("X-Unsaid")!] == nil, "neither required nor with an example")
    }

    @Test func prefer_ChoosesTheExampleOrTheStatus_AcceptTheMediaType() async throws {
        let rex = try await send(.get, "/pets/7", Self.bearer + [HTTPField.Name("Prefer")!: "example=rex"])
        #expect(rex.body == #"{"id":2,"name":"Rex","kind":"dog"}"# && rex.fields[HTTPField.Name("Preference-Applied")!] == "example=rex")
        let text = try await send(.get, "/pets/7", Self.bearer + [.accept: "text/html;q=0, text/plain"])
        #expect(text.status == 200 && text.fields[.contentType] == "text/plain" && text.body == "Tom the cat")
        let missing = try await send(.get, "/pets/7", Self.bearer + [HTTPField.Name("Prefer")!: "code=404"])
        #expect(missing.status == 404 && missing.fields[.contentType] == "application/problem+json")
        #expect(missing.body == #"{"title":"Not Found"}"#, "the property's own example")
        let teapot = try await send(.get, "/pets/7", Self.bearer + [HTTPField.Name("Prefer")!: "code=418"])
        #expect(teapot.status == 400 && teapot.body.contains(#"Prefer: code=418: status 418 is not documented (documented: 200, 404)"#))
        let unknown = try await send(.get, "/pets/7", Self.bearer + [HTTPField.Name("Prefer")!: "example=felix"])
        #expect(unknown.status == 400 && unknown.body.contains("no response of getPet has an example of that name"))
    }

    @Test func withoutAnExample_AValueItsSchemaAllows_ItemByItemForAStream() async throws {
        let pets = try await send(.get, "/pets")
        let line = #"{"id":1,"name":"string","kind":"cat","born":"2026-01-01","tags":["string"],"weight":1}"#
        #expect(pets.status == 200 && pets.fields[.contentType] == "application/jsonl")
        #expect(pets.body == String(repeating: line + "\n", count: 3))
        let ticks = try await send(.get, "/ticks")
        #expect(ticks.body == String(repeating: "id: 1\ndata: tick\n\n", count: 3), "a pattern: the first of a few usual texts that match it")
    }

    @Test func requests_ValidatedAsTheTransportDoes_CredentialsAskedFor() async throws {
        #expect(try await send(.get, "/pets/0", Self.bearer).status == 400, "minimum 1")
        #expect(try await send(.post, "/pets", [.contentType: "application/json"], body: #"{"id":1}"#).status == 400)
        let added = try await send(.post, "/pets", [.contentType: "application/json"], body: #"{"id":1,"name":"Tom","kind":"cat"}"#)
        #expect(added.status == 201 && added.body.isEmpty)
        #expect(try await send(.get, "/pets/7").status == 401, "no credential")
        #expect(try await send(.get, "/pets/7", [.authorization: "Bearer wrong"], credentials: ["t0k3n"]).status == 401)
        #expect(try await send(.get, "/pets/7", [.authorization: "Bearer t0k3n"], credentials: ["t0k3n"]).status == 200)
    }

    @Test func aFormBody_CheckedAgainstItsSchema_AsJSONIs() async throws {
        let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        let found = try await send(.post, "/search", form, body: "name=Tom+Cat&age=3&tags=black&tags=small")
        #expect(found.status == 200 && found.body == "found", "typed by the schema: 3 an integer, tags an array")
        let one = try await send(.post, "/search", form, body: "name=Tom&tags=black")
        #expect(one.status == 200, "one field of an array property is an array of one")
        let wrong = try await send(.post, "/search", form, body: "age=x&name=T")
        #expect(wrong.status == 400)
        #expect(wrong.body.contains(#""errors":[{"in":"body","pointer":"/age","detail":"must be an integer, got a string (\"x\")"},{"in":"body","pointer":"/name","detail":"must be at least 2 characters long, got 1"}]"#))
        let missing = try await send(.post, "/search", form, body: "age=3")
        #expect(missing.status == 400 && missing.body.contains(#""pointer":"/name","detail":"is required""#))
    }

    @Test func theDocumentAndItsDocsPage_Beside() async throws {
        let yaml = try await send(.get, "/openapi.yaml")
        #expect(yaml.status == 200 && yaml.body == Self.document)
        let page = try await send(.get, "/docs")
        #expect(page.status == 200 && page.fields[.contentType] == "text/html; charset=utf-8")
    }
}
