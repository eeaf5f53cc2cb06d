import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import OpenAPIWhisker
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerTesting

/// Requests checked against the document before the handler runs, over HTTP/1.1 and HTTP/2:
/// every violation in one problem+json answer, named by parameter or JSON pointer.
@Suite struct RequestValidationTests {
    static let document = """
        openapi: 3.1.0
        info: {title: Pets, version: '1'}
        paths:
          /items/{id}:
            parameters:
              - name: id
                in: path
                required: true
                schema: {type: integer, minimum: 1}
            get:
              operationId: getItem
              parameters:
                - name: limit
                  in: query
                  schema: {type: integer, minimum: 1, maximum: 100}
                - name: ratio
                  in: query
                  schema: {type: number, exclusiveMinimum: 0, exclusiveMaximum: 1}
                - name: code
                  in: query
                  schema: {type: string, minLength: 2, maxLength: 4, pattern: '^[a-z]+$'}
                - name: sort
                  in: query
                  schema: {type: string, enum: [asc, desc]}
                - name: tags
                  in: query
                  explode: false
                  schema: {type: array, maxItems: 2, items: {type: integer}}
                - name: ids
                  in: query
                  schema: {type: array, items: {type: integer}}
                - name: flag
                  in: query
                  required: true
                  schema: {type: boolean}
                - name: X-Trace
                  in: header
                  required: true
                  schema: {type: string, pattern: '^[0-9a-f]+$'}
              responses:
                '200': {description: The item.}
          /pets:
            post:
              operationId: addPet
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      $ref: '#/components/schemas/Pet'
              responses:
                '201': {description: Added.}
          /upload:
            post:
              operationId: upload
              requestBody:
                required: true
                content:
                  text/plain:
                    schema: {type: string}
              responses:
                '200': {description: Counted.}
        components:
          schemas:
            Pet:
              type: object
              required: [name, age]
              additionalProperties: false
              properties:
                name: {type: string, minLength: 1, maxLength: 10}
                age: {type: integer, minimum: 0}
                kind: {type: string, enum: [cat, dog]}
                owner:
                  $ref: '#/components/schemas/Owner'
            Owner:
              type: object
              required: [email]
              properties:
                email: {type: string, pattern: '^[^@]+@[^@]+$'}
        """

    /// A server whose three operations answer what they received; `received` fires for each
    /// request a handler sees.
    func withServer(
        status: HTTPResponse.Status = .badRequest, bodyStarted: Signal<Void>? = nil,
        _ body: @Sendable (SocketAddress) async throws -> Void
    ) async throws {
        let server = makeTestServer { $0.http2 = HTTP2Settings() }
        let transport = try WhiskerTransport(
            server, validatingAgainst: OpenAPIDocument(yaml: Array(Self.document.utf8)), invalidRequestStatus: status
        )
        try transport.register({ request, _, _ in (HTTPResponse(status: .ok), HTTPBody("item \(request.path ?? "")")) }, method: .get, path: "/v1/items/{id}")
        try transport.register({ _, body, _ in
            (HTTPResponse(status: .created), HTTPBody(try await String(collecting: body!, upTo: 1 << 20)))
        }, method: .post, path: "/v1/pets")
        try transport.register({ _, body, _ in
            var count = 0
            for try await chunk in body! {
                if count == 0 { bodyStarted?.fire() }
                count += chunk.count
            }
            return (HTTPResponse(status: .ok), HTTPBody("\(count)"))
        }, method: .post, path: "/v1/upload")
        try await server.withRunning(body)
    }

    struct Answer {
        var status: Int
        var contentType: String?
        var body: [UInt8]
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        /// The `errors` member as `in name: detail` lines.
        var errors: [String] {
            (json["errors"] as? [[String: String]] ?? []).map { "\($0["in"] ?? "") \($0["parameter"] ?? $0["pointer"] ?? ""): \($0["detail"] ?? "")" }
        }
    }

    func send(_ method: String, _ target: String, headers: [(String, String)] = [], body: String? = nil, over wire: Wire, to address: SocketAddress) async throws -> Answer {
        let response = try await exchange(wire, with: address, target, method: method, fields: headers, body: body)
        return Answer(status: response.status, contentType: response.values("content-type").first, body: response.bytes)
    }

    @Test(arguments: Wire.allCases)
    func parameters_EveryViolationInOneProblem(over wire: Wire) async throws {
        try await withServer { address in
            let good = try await send("GET", "/v1/items/7?flag=true&limit=100&ratio=0.5&code=ab&sort=asc&tags=1,2&ids=1&ids=2", headers: [("x-trace", "af")], over: wire, to: address)
            #expect(good.status == 200)
            #expect(String(decoding: good.body, as: UTF8.self) == "item /v1/items/7?flag=true&limit=100&ratio=0.5&code=ab&sort=asc&tags=1,2&ids=1&ids=2")

            let bad = try await send("GET", "/v1/items/0?flag=maybe&limit=101&ratio=1&code=A&sort=up&tags=1,x,3&ids=1&ids=y", headers: [("x-trace", "XYZ")], over: wire, to: address)
            #expect(bad.status == 400)
            #expect(bad.contentType == "application/problem+json")
            #expect(bad.errors == [
                "path id: must be at least 1, got 0",
                "query limit: must be at most 100, got 101",
                "query ratio: must be less than 1, got 1",
                "query code: must be at least 2 characters long, got 1",
                "query code: must match the pattern ^[a-z]+$",
                "query sort: must be one of \"asc\", \"desc\", got \"up\"",
                "query tags: must have at most 2 items, got 3",
                "query tags/1: must be an integer, got a string (\"x\")",
                "query ids/1: must be an integer, got a string (\"y\")",
                "query flag: must be a boolean, got a string (\"maybe\")",
                "header X-Trace: must match the pattern ^[0-9a-f]+$",
            ])
            #expect((bad.json["detail"] as? String)?.hasPrefix("11 problems: path parameter id: must be at least 1, got 0; query parameter limit") == true)
            #expect(bad.json["status"] as? Int == 400)

            let missing = try await send("GET", "/v1/items/1", over: wire, to: address)
            #expect(missing.errors == ["query flag: is required", "header X-Trace: is required"])
            let percent = try await send("GET", "/v1/items/1?flag=true&code=%C3%A9t%C3%A9", headers: [("x-trace", "1")], over: wire, to: address)
            #expect(percent.errors == ["query code: must match the pattern ^[a-z]+$"], "decoded before it is checked: 4 characters, not 10")
        }
    }

    @Test(arguments: Wire.allCases)
    func jsonBody_CheckedAgainstItsSchema_WithPointers(over wire: Wire) async throws {
        try await withServer { address in
            let json = [("content-type", "application/json")]
            let good = try await send("POST", "/v1/pets", headers: json, body: #"{"name":"Tom","age":3,"owner":{"email":"a@b"}}"#, over: wire, to: address)
            #expect(good.status == 201)
            #expect(String(decoding: good.body, as: UTF8.self) == #"{"name":"Tom","age":3,"owner":{"email":"a@b"}}"#, "the handler reads the body as sent")

            let bad = try await send("POST", "/v1/pets", headers: json, body: #"{"name":"","age":-1,"kind":"cow","owner":{"mail":"x"},"extra":1}"#, over: wire, to: address)
            #expect(bad.status == 400)
            #expect(bad.errors == [
                "body /name: must be at least 1 character long, got 0",
                "body /age: must be at least 0, got -1",
                "body /kind: must be one of \"cat\", \"dog\", got \"cow\"",
                "body /owner/email: is required",
                "body /extra: is not a property this object has",
            ])
            let type = try await send("POST", "/v1/pets", headers: json, body: #"[1]"#, over: wire, to: address)
            #expect(type.errors == ["body : must be an object, got an array ([1])"])
            let syntax = try await send("POST", "/v1/pets", headers: json, body: #"{"name":"Tom",}"#, over: wire, to: address)
            #expect(syntax.errors == ["body : not valid JSON at byte 14: expected a member name"])
            let none = try await send("POST", "/v1/pets", over: wire, to: address)
            #expect(none.errors == ["body : is required (application/json)"])
            let empty = try await send("POST", "/v1/pets", headers: json, body: "", over: wire, to: address)
            #expect(empty.errors == ["body : is empty, which is no JSON"], "an empty body of a type the operation takes: that type's empty text")
            let media = try await send("POST", "/v1/pets", headers: [("content-type", "text/plain")], body: "Tom", over: wire, to: address)
            #expect(media.status == 415)
            #expect(media.json["detail"] as? String == "a body of type text/plain is not one this operation takes (application/json)")
        }
    }

    @Test func unprocessableContent_WhenConfigured_AndTextForTextClients() async throws {
        try await withServer(status: .unprocessableContent) { address in
            let bad = try await send("POST", "/v1/pets", headers: [("content-type", "application/json")], body: "{}", over: .http1, to: address)
            #expect(bad.status == 422)
            #expect(bad.errors == ["body /name: is required", "body /age: is required"])
            let text = try await send("POST", "/v1/pets", headers: [("content-type", "application/json"), ("accept", "text/plain")], body: "{}", over: .http1, to: address)
            #expect(text.contentType == "text/plain; charset=utf-8")
            #expect(String(decoding: text.body, as: UTF8.self) == "Unprocessable Content: 2 problems: body /name: is required; body /age: is required\n")
        }
    }

    @Test func aStreamedBodyThatIsNotJSON_ReachesTheHandlerUnread() async throws {
        let started = Signal<Void>()
        try await withServer(bodyStarted: started) { address in
            let socket = try await TestClient.connect(to: address)
            try await socket.send("POST /v1/upload HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
            // The handler reads the first chunk while the rest is still to come: nothing buffered it.
            #expect(await started.wait() != nil)
            try await socket.send("3\r\nabc\r\n0\r\n\r\n")
            let response = try await socket.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "8")
        }
    }

    @Test func anOperationNotInTheDocument_IsAnErrorWhenRegistered() throws {
        let transport = try WhiskerTransport(makeTestServer(), validatingAgainst: OpenAPIDocument(yaml: Array(Self.document.utf8)))
        #expect(throws: DocumentError.self) {
            try transport.register({ _, _, _ in (HTTPResponse(status: .ok), nil) }, method: .delete, path: "/v1/pets")
        }
        #expect(throws: DocumentError.self) { try WhiskerTransport(makeTestServer(), validatingAgainst: OpenAPIDocument(yaml: Array("a: [".utf8))) }
    }
}
