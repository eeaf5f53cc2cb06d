import Foundation
import HTTPTypes
import Logging
@_spi(Generated) import OpenAPIRuntime
@testable import OpenAPIWhiskerDocument
import Testing
import WhiskerCore

/// The generator's reference document, `petstore.yaml` (Tests/OpenAPIGeneratorReferenceTests/
/// Resources/Docs at 1.14.3, read from the generator's repository at test time): a request per
/// operation, made with the runtime's `Converter` calls that the generated client makes for it
/// (ReferenceSources/Petstore/Client.swift beside it), is admitted, and the violations are named.
/// Issue 40 found every `listPets` refused: its required `deepObject` parameter `filter` was
/// looked up by its literal name.
@Suite struct PetstoreTests {
    static let documentPath = "Tests/OpenAPIGeneratorReferenceTests/Resources/Docs/petstore.yaml"

    let converter = Converter(configuration: .init())
    let validation: RequestValidation
    let operations: DocumentOperations

    init() throws {
        operations = try DocumentOperations(OpenAPIDocument(yaml: try GeneratorPackage.file(Self.documentPath)))
        validation = RequestValidation(operations: operations, status: .badRequest, authenticators: [:])
    }

    struct Filter: Codable { var name: String?; var state: String? }
    struct Sort: Codable { var id: String?; var name: String? }
    struct CodeError: Codable { var code: Int }
    struct CreatePetRequest: Codable { var name: String; var kind: String?; var genome: Base64EncodedData? }
    struct PetStats: Codable { var count: Int }

    /// The generated client's request for `template` (`{}` for each path parameter, as
    /// `renderedPath` takes it) with `parameters`, and `set` applied to it.
    func request(
        _ method: HTTPRequest.Method, _ template: String, _ parameters: [any Encodable] = [],
        _ set: (inout HTTPRequest) throws -> HTTPBody? = { _ in nil }
    ) throws -> (HTTPRequest, HTTPBody?) {
        var request = HTTPRequest(soar_path: "/api" + (try converter.renderedPath(template: template, parameters: parameters)), method: method)
        let body = try set(&request)
        return (request, body)
    }

    /// The problems validation finds in `request`, as `in name: detail`, and the operation it
    /// was checked against (found by the request's path as the server's router would).
    func problems(_ exchange: (HTTPRequest, HTTPBody?)) async throws -> (operation: String, problems: [String]) {
        let (head, body) = exchange
        let target = head.path![...]
        let operation = try #require(operations.operation(method: head.method.rawValue, target: target, prefix: "/api"), "\(head.method) \(target)")
        let validator = try validation.validator(method: head.method, path: "/api" + operation.path)
        // The path parameters as the router captures them: whole segments, still escaped.
        var path = PathParameters()
        let segments = target.prefix { $0 != "?" }.dropFirst("/api".count).split(separator: "/", omittingEmptySubsequences: false)
        for (pattern, segment) in zip(operation.segments, segments) where pattern.hasPrefix("{") {
            path.append(name: String(pattern.dropFirst().dropLast()), value: segment)
        }
        let length: Int64? = if case .known(let length) = body?.length { length } else { nil }
        let outcome = try await validator.validate(head, pathParameters: path, body: body, lengthHint: length, status: .badRequest, logger: Logger(label: "petstore"))
        guard case .answer(let response) = outcome else { return (operation.id, []) }
        guard case .bytes(let bytes) = response.body.storage else { Issue.record("a refusal without problem details"); return (operation.id, ["?"]) }
        let json = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        let errors = json?["errors"] as? [[String: String]] ?? []
        return (operation.id, errors.map { "\($0["in"] ?? "") \($0["parameter"] ?? $0["pointer"] ?? ""): \($0["detail"] ?? "")" })
    }

    /// Each operation's request as the generated client sends it, with the values a user gives.
    func admittedRequests() throws -> [(HTTPRequest, HTTPBody?)] {
        let since = Date(timeIntervalSince1970: 1_674_036_251)
        return [
            try request(.get, "/pets") { request in
                try converter.setQueryItemAsURI(in: &request, style: .form, explode: true, name: "limit", value: Int32(100))
                try converter.setQueryItemAsURI(in: &request, style: .form, explode: true, name: "habitat", value: "")
                try converter.setQueryItemAsURI(in: &request, style: .form, explode: true, name: "feeds", value: ["omnivore", "herbivore"])
                try converter.setHeaderFieldAsURI(in: &request.headerFields, name: "My-Request-UUID", value: "123e4567-e89b-12d3-a456-426614174000")
                try converter.setQueryItemAsURI(in: &request, style: .deepObject, explode: true, name: "sort", value: Sort(id: "7", name: "Tom"))
                try converter.setQueryItemAsURI(in: &request, style: .deepObject, explode: true, name: "filter", value: Filter(name: "Tom", state: "home"))
                try converter.setQueryItemAsURI(in: &request, style: .form, explode: true, name: "since", value: since)
                try converter.setQueryItemAsJSON(in: &request, style: .form, explode: true, name: "jsonFilters", value: [Filter(name: "Tom")])
                return nil
            },
            // Only the required parameter: the issue's `GET /api/pets?filter%5Bname%5D=Tom`.
            try request(.get, "/pets") { request in
                try converter.setQueryItemAsURI(in: &request, style: .deepObject, explode: true, name: "filter", value: Filter(name: "Tom"))
                return nil
            },
            try request(.post, "/pets") { request in
                try converter.setHeaderFieldAsJSON(in: &request.headerFields, name: "X-Extra-Arguments", value: CodeError(code: 1))
                return try converter.setRequiredRequestBodyAsJSON(
                    CreatePetRequest(name: "Tom", kind: "cat", genome: Base64EncodedData(Array("ACGT".utf8))), headerFields: &request.headerFields,
                    contentType: "application/json; charset=utf-8"
                )
            },
            try request(.post, "/pets/create") { request in
                try converter.setRequiredRequestBodyAsURLEncodedForm(CreatePetRequest(name: "Tom"), headerFields: &request.headerFields, contentType: "application/x-www-form-urlencoded")
            },
            try request(.get, "/pets/stats"),
            try request(.post, "/pets/stats") { request in
                try converter.setRequiredRequestBodyAsJSON(PetStats(count: 3), headerFields: &request.headerFields, contentType: "application/json; charset=utf-8")
            },
            try request(.post, "/probe/"),
            try request(.patch, "/pets/{}", [Int64(1)]) { request in
                try converter.setOptionalRequestBodyAsJSON(["name": "Tom"], headerFields: &request.headerFields, contentType: "application/json; charset=utf-8")
            },
            try request(.put, "/pets/{}/avatar", [Int64(1)]) { request in
                try converter.setRequiredRequestBodyAsBinary(HTTPBody([0x89, 0x50, 0x4E, 0x47]), headerFields: &request.headerFields, contentType: "application/octet-stream")
            },
            try request(.post, "/pets/multipart-typed") { request in
                // The runtime's multipart serializer adds the boundary to the media type.
                request.headerFields[.contentType] = "multipart/form-data; boundary=__X_SWIFT_OPENAPI_GENERATOR_BOUNDARY__"
                return HTTPBody("--__X_SWIFT_OPENAPI_GENERATOR_BOUNDARY__\r\ncontent-disposition: form-data; name=\"log\"\r\n\r\nhello\r\n--__X_SWIFT_OPENAPI_GENERATOR_BOUNDARY__--\r\n")
            },
            try request(.get, "/pets/multipart-typed"),
        ]
    }

    @Test func everyOperation_TheGeneratedClientsRequest_IsAdmitted() async throws {
        var covered: Set<String> = []
        for exchange in try admittedRequests() {
            let (operation, problems) = try await problems(exchange)
            #expect(problems == [], "\(operation): \(exchange.0.method) \(exchange.0.path ?? "")")
            covered.insert(operation)
        }
        #expect(covered == Set(operations.operations.map(\.id)), "a request for every operation of the document")
    }

    @Test func theIssuesRequest_TheLiteralTarget() async throws {
        let (_, problems) = try await problems((HTTPRequest(method: .get, scheme: nil, authority: "x", path: "/api/pets?filter%5Bname%5D=Tom"), nil))
        #expect(problems == [])
    }

    @Test func violations_AreNamed() async throws {
        func get(_ target: String, headers: [HTTPField] = []) async throws -> [String] {
            var head = HTTPRequest(method: .get, scheme: nil, authority: "x", path: target)
            head.headerFields.append(contentsOf: headers)
            return try await problems((head, nil)).problems
        }
        #expect(try await get("/api/pets") == ["query filter: is required"])
        #expect(try await get("/api/pets?filter%5Bstate%5D=home") == ["query filter/name: is required"])
        #expect(try await get("/api/pets?filter[name]=Tom&limit=2147483648&habitat=sea&feeds=omnivore&feeds=vegan&sort[name]=Tom&since=yesterday") == [
            "query limit: must be an int32 (-2147483648...2147483647), got 2147483648",
            "query habitat: must be one of \"water\", \"land\", \"air\", \"\", got \"sea\"",
            "query feeds/1: must be one of \"omnivore\", \"carnivore\", \"herbivore\", got \"vegan\"",
            "query sort/id: is required",
            "query since: must be a date-time (RFC 3339, as 2024-05-01T12:00:00Z), got \"yesterday\"",
        ])
        #expect(try await get("/api/pets?filter[name]=Tom&jsonFilters=%5B%7B%22state%22%3A%22home%22%7D%5D") == ["query jsonFilters/0/name: is required"])
        #expect(try await get("/api/pets?filter[name]=Tom", headers: [HTTPField(name: HTTPField.Name("My-Request-UUID")!, value: "42")]) == [
            "header My-Request-UUID: must be a UUID (as 123e4567-e89b-12d3-a456-426614174000), got \"42\"",
        ])

        let patch = try request(.patch, "/pets/{}", ["x"]) { _ in nil }
        #expect(try await problems(patch).problems == ["path petId: must be an integer, got a string (\"x\")"])

        let create = try request(.post, "/pets") { request in
            request.headerFields.append(HTTPField(name: HTTPField.Name("X-Extra-Arguments")!, value: #"{"code":"one"}"#))
            return try converter.setRequiredRequestBodyAsJSON(["kind": "cat"], headerFields: &request.headerFields, contentType: "application/json; charset=utf-8")
        }
        #expect(try await problems(create).problems == [
            "header X-Extra-Arguments/code: must be an integer, got a string (\"one\")",
            "body /name: is required",
        ])
        let stats = try request(.post, "/pets/stats") { request in
            try converter.setRequiredRequestBodyAsJSON(["count": "3"], headerFields: &request.headerFields, contentType: "application/json; charset=utf-8")
        }
        #expect(try await problems(stats).problems == ["body /count: must be an integer, got a string (\"3\")"])
    }

    /// Every example's document reads, so that a server ported from it can validate against it;
    /// but the OpenAPI API's own document (the ChatGPT client's, 13,000 lines), whose anchors the
    /// YAML reader does not read (OpenAPIDocument says so: give such a document's JSON form).
    @Test func theExamplesDocuments_AreRead() throws {
        let paths = try GeneratorPackage.files(under: "Examples", endingWith: "openapi.yaml")
        #expect(paths.count > 10)
        let withAnchors = "Examples/streaming-chatgpt-proxy/Sources/ChatGPT/openapi.yaml"
        #expect(paths.contains(withAnchors))
        for path in paths {
            let yaml = try GeneratorPackage.file(path)
            let read = Result { () throws(DocumentError) in try DocumentOperations(OpenAPIDocument(yaml: yaml)) }
            if path == withAnchors {
                #expect(throws: DocumentError.self) { try read.get() }
            } else {
                #expect(throws: Never.self, "\(path)") { try read.get() }
            }
        }
    }
}
