import WhiskerCore

/// A document that cannot be used to validate: what is wrong, and where in it.
public struct DocumentError: Error, CustomStringConvertible, Sendable {
    public let description: String
    package init(_ description: String) { self.description = description }
}

/// The operations of an OpenAPI document as validation reads them: parameters, request bodies
/// and responses, with their schemas compiled once.
package struct DocumentOperations: Sendable {
    struct MediaTypes: Sendable {
        /// Media type ranges (`application/json`, `text/*`, `*/*`), their schemas, and the schemas
        /// of their items (OpenAPI 3.2's `itemSchema`, for a sequential media type).
        var types: [(range: String, schema: Int?, itemSchema: Int?)] = []

        /// The schemas for `essence`, and whether the type is declared at all.
        func match(_ essence: String) -> (declared: Bool, schema: Int?, itemSchema: Int?) {
            if let exact = types.first(where: { $0.range == essence }) { return (true, exact.schema, exact.itemSchema) }
            let major = essence.prefix { $0 != "/" }
            if let range = types.first(where: { $0.range == "\(major)/*" || $0.range == "*/*" }) { return (true, range.schema, range.itemSchema) }
            return (false, nil, nil)
        }

        var listed: String { types.map(\.range).joined(separator: ", ") }

        /// The media type of a body sent as `contentType` with `status`, its schemas, or what is
        /// wrong: no `Content-Type`, or one not documented for the status.
        func match(contentType: String?, status: Int) -> (essence: String, match: (declared: Bool, schema: Int?, itemSchema: Int?), problem: String?) {
            guard let contentType, let essence = MediaType(contentType)?.essence else {
                return ("", (false, nil, nil), "a body without Content-Type")
            }
            let match = match(essence)
            guard match.declared else {
                return (essence, match, "Content-Type \(contentType) is not documented for \(status) (documented: \(types.isEmpty ? "none" : listed))")
            }
            return (essence, match, nil)
        }

        /// Whether a body of this media type (an essence, `application/problem+json`) is JSON.
        static func isJSON(_ essence: String) -> Bool { essence == "application/json" || essence.hasSuffix("+json") }
    }

    package struct Operation: Sendable {
        package let id: String
        package let method: String
        /// Its path template, as the document writes it (`/pets/{id}`).
        package let path: String
        /// `path`'s segments, for matching request targets.
        let segments: [Substring]
        let parameters: [Parameter]
        let requestBody: MediaTypes?
        let requestBodyRequired: Bool
        /// Responses by status (`200`, `4XX`, `default`).
        let responses: [String: MediaTypes]
        /// Its `security` (or the document's), `nil` when neither says.
        let security: SecurityRequirements?
        /// `deprecated: true`.
        package let deprecated: Bool
        /// `x-idempotency`: `required` or `optional` (idempotency keys), `nil` when absent.
        package let idempotency: String?
        /// Its `tags`, in the document's order.
        package let tags: [String]
        /// The examples of its parameters (in the order of `parameters`), of its request body by
        /// media type, and the names of its responses' examples by status: what examples as tests
        /// replay.
        let examples: OperationExamples

        /// The documented response for `status`: exact, then its class (`4XX`), then `default`.
        func response(for status: Int) -> MediaTypes? {
            responses[String(status)] ?? responses["\(status / 100)XX"] ?? responses["default"]
        }

        /// What a response with `status`, which the operation does not document, is told.
        func undocumented(_ status: Int) -> String {
            "status \(status) is not documented (documented: \(responses.keys.sorted().joined(separator: ", ")))"
        }
    }

    let schemas: SchemaSet
    package let operations: [Operation]
    /// The names of the `apiKey` schemes' headers, query parameters and cookies.
    package let apiKeyNames: [String]
    /// The URL of the document's first server (`http://localhost:8080/api`), if it has one.
    package let serverURL: String?

    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    package init(_ document: OpenAPIDocument) throws(DocumentError) {
        let root: JSONValue
        do {
            if let json = document.json {
                root = try JSONReader.read(json)
            } else if let yaml = document.yaml {
                root = try YAMLReader.read(yaml)
            } else {
                throw DocumentError("the document has neither a YAML nor a JSON form")
            }
        } catch let error as DocumentError {
            throw error
        } catch {
            throw DocumentError("the document could not be read: \(error)")
        }
        try self.init(root: root)
    }

    init(root: JSONValue) throws(DocumentError) {
        var schemas = SchemaSet(document: root)
        var operations: [Operation] = []
        var schemes: [String: SecurityScheme] = [:]
        for (name, scheme) in root["components"]?["securitySchemes"]?.members ?? [] {
            schemes[name] = try SecurityScheme(name: name, try Self.resolved(scheme, in: root))
        }
        for (path, item) in root["paths"]?.members ?? [] {
            let item = try Self.resolved(item, in: root)
            let shared = item["parameters"]?.array ?? []
            for (method, operation) in item.members where Self.methods.contains(method) {
                let location = "#/paths/\(path)/\(method)"
                var read: [(parameter: Parameter, examples: Examples)] = []
                for object in (operation["parameters"]?.array ?? []) + shared {
                    let object = try Self.resolved(object, in: root)
                    let parameter = try Parameter(object, at: location, schemas: &schemas)
                    // An operation's own parameter overrides the path's of the same name and place.
                    if read.contains(where: { $0.parameter.name == parameter.name && $0.parameter.location == parameter.location }) { continue }
                    read.append((parameter, Examples(of: object, in: root)))
                }
                // Reported in the order of the request: path, query, headers, cookies.
                let places: [Parameter.Location] = [.path, .query, .header, .cookie]
                read = places.flatMap { place in read.filter { $0.parameter.location == place } }
                let parameters = read.map(\.parameter)
                var examples = OperationExamples(parameters: read.map(\.examples))
                var requestBody: MediaTypes?
                var requestBodyRequired = false
                if let body = operation["requestBody"] {
                    let body = try Self.resolved(body, in: root)
                    requestBody = try Self.mediaTypes(body["content"], at: "\(location)/requestBody", schemas: &schemas)
                    requestBodyRequired = body["required"]?.bool ?? false
                    examples.body = (body["content"]?.members ?? []).map { ($0.key, Examples(of: $0.value, in: root)) }
                }
                var responses: [String: MediaTypes] = [:]
                for (status, response) in operation["responses"]?.members ?? [] {
                    let response = try Self.resolved(response, in: root)
                    let types = try Self.mediaTypes(response["content"], at: "\(location)/responses/\(status)", schemas: &schemas)
                    responses[status.uppercased()] = types
                    examples.responses.append(Self.responseExamples(
                        response, status: status.uppercased(), types: types, at: "\(location)/responses/\(status)", in: root, schemas: &schemas
                    ))
                }
                let security = try (operation["security"] ?? root["security"]).map { value throws(DocumentError) in
                    try Self.requirements(value, schemes: schemes, at: location)
                }
                let idempotency = operation["x-idempotency"]?.string
                guard idempotency == nil || idempotency == "required" || idempotency == "optional" else {
                    throw DocumentError("\(location)/x-idempotency is required or optional, not \(operation["x-idempotency"].map { "\($0)" } ?? "")")
                }
                operations.append(Operation(
                    id: operation["operationId"]?.string ?? "\(method.uppercased()) \(path)", method: method.uppercased(), path: path,
                    segments: path.split(separator: "/", omittingEmptySubsequences: false), parameters: parameters, requestBody: requestBody, requestBodyRequired: requestBodyRequired, responses: responses,
                    security: security, deprecated: operation["deprecated"]?.bool ?? false, idempotency: idempotency,
                    tags: operation["tags"]?.array?.compactMap(\.string) ?? [], examples: examples
                ))
            }
        }
        self.schemas = schemas
        self.operations = operations
        serverURL = root["servers"]?.array?.first?["url"]?.string
        apiKeyNames = schemes.values.compactMap { scheme in
            guard case .apiKey(_, let name) = scheme.kind else { return nil }
            return name
        }
    }

    /// A `security` value: alternatives (an array) of requirements (objects: scheme name to scopes).
    private static func requirements(_ value: JSONValue, schemes: [String: SecurityScheme], at location: String) throws(DocumentError) -> SecurityRequirements {
        guard let alternatives = value.array else { throw DocumentError("\(location)/security is not an array") }
        return SecurityRequirements(alternatives: try alternatives.map { alternative throws(DocumentError) in
            try alternative.members.map { (name, scopes) throws(DocumentError) in
                guard let scheme = schemes[name] else { throw DocumentError("\(location)/security names \(name), which components.securitySchemes does not define") }
                return SecurityRequirements.Requirement(scheme: scheme, scopes: scopes.array?.compactMap(\.string) ?? [])
            }
        })
    }

    /// The examples and headers of `response` (whose media types are `types`), for examples as
    /// tests and a mock. A header's schema that does not compile is left out, not an error: the
    /// server itself never reads it.
    private static func responseExamples(
        _ response: JSONValue, status: String, types: MediaTypes, at location: String, in root: JSONValue, schemas: inout SchemaSet
    ) -> ResponseExamples {
        let media = zip(types.types, response["content"]?.members ?? []).map { type, member in
            MediaExamples(range: type.range, examples: Examples(of: member.value, in: root), schema: type.schema, itemSchema: type.itemSchema)
        }
        var headers: [ResponseHeader] = []
        for (name, header) in response["headers"]?.members ?? [] {
            guard let header = try? Self.resolved(header, in: root) else { continue }
            let schema = header["schema"].flatMap { try? schemas.compile($0, at: "\(location)/headers/\(name)/schema") }
            headers.append(ResponseHeader(name: name, required: header["required"]?.bool ?? false, schema: schema, examples: Examples(of: header, in: root)))
        }
        return ResponseExamples(status: status, media: media, headers: headers)
    }

    private static func mediaTypes(_ content: JSONValue?, at location: String, schemas: inout SchemaSet) throws(DocumentError) -> MediaTypes {
        var types = MediaTypes()
        for (range, media) in content?.members ?? [] {
            let essence = range.prefix { $0 != ";" }.trimmingSpaces.lowercased()
            let schema = try media["schema"].map { schema throws(DocumentError) in try schemas.compile(schema, at: "\(location)/content/\(range)/schema") }
            let itemSchema = try media["itemSchema"].map { schema throws(DocumentError) in try schemas.compile(schema, at: "\(location)/content/\(range)/itemSchema") }
            types.types.append((essence, schema, itemSchema))
        }
        return types
    }

    /// `value`, or what its `$ref` points at (parameters, request bodies, responses, path items).
    static func resolved(_ value: JSONValue, in root: JSONValue) throws(DocumentError) -> JSONValue {
        var value = value
        var hops = 0
        while let target = value["$ref"]?.string {
            hops += 1
            guard target.hasPrefix("#/"), hops < 16 else { throw DocumentError("$ref \(target) is not a local reference the reader follows") }
            guard let found = root.value(at: target) else { throw DocumentError("$ref \(target) points at nothing in the document") }
            value = found
        }
        return value
    }

    /// The operation registered as `method` `path`, where `path` is the document's path under a
    /// server URL's path (`/api` + `/emoji`).
    func operation(method: String, registeredPath path: String) -> Operation? {
        let method = method.uppercased()
        return operations
            .filter { $0.method == method && path.hasSuffix($0.path) && Self.isPrefix(path.dropLast($0.path.count)) }
            .max { $0.path.count < $1.path.count }
    }

    /// The operation a request for `target` (a request target: path and query) under the server
    /// URL path `prefix` (`/api`, or empty) is for; a `HEAD` is its `GET`'s unless the document
    /// has one.
    func operation(method: String, target: Substring, prefix: String) -> Operation? {
        let path = target.prefix { $0 != "?" && $0 != "#" }
        guard path.hasPrefix(prefix) else { return nil }
        let segments = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        for wanted in method == "HEAD" ? ["HEAD", "GET"] : [method] {
            for operation in operations where operation.method == wanted && operation.segments.count == segments.count {
                let matches = zip(operation.segments, segments).allSatisfy { pattern, segment in
                    pattern.hasPrefix("{") && pattern.hasSuffix("}") ? !segment.isEmpty : pattern == segment
                }
                if matches { return operation }
            }
        }
        return nil
    }

    /// Whether `prefix` can be a server URL's path before an operation's: empty, or `/api`.
    private static func isPrefix(_ prefix: Substring) -> Bool {
        prefix.isEmpty || (prefix.hasPrefix("/") && !prefix.hasSuffix("/"))
    }
}
