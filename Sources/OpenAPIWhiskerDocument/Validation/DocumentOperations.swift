/// A document that cannot be used to validate: what is wrong, and where in it.
public struct DocumentError: Error, CustomStringConvertible, Sendable {
    public let description: String
    package init(_ description: String) { self.description = description }
}

/// The operations of an OpenAPI document as validation reads them: parameters, request bodies
/// and responses, with their schemas compiled once.
package struct DocumentOperations: Sendable {
    struct MediaTypes: Sendable {
        /// Media type ranges (`application/json`, `text/*`, `*/*`) and their schemas.
        var types: [(range: String, schema: Int?)] = []

        /// The schema for `essence`, and whether the type is declared at all.
        func match(_ essence: String) -> (declared: Bool, schema: Int?) {
            if let exact = types.first(where: { $0.range == essence }) { return (true, exact.schema) }
            let major = essence.prefix { $0 != "/" }
            if let range = types.first(where: { $0.range == "\(major)/*" || $0.range == "*/*" }) { return (true, range.schema) }
            return (false, nil)
        }

        var listed: String { types.map(\.range).joined(separator: ", ") }

        /// Whether a body of this media type (an essence, `application/problem+json`) is JSON.
        static func isJSON(_ essence: String) -> Bool { essence == "application/json" || essence.hasSuffix("+json") }
    }

    package struct Operation: Sendable {
        package let id: String
        let method: String
        let path: String
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

        /// The documented response for `status`: exact, then its class (`4XX`), then `default`.
        func response(for status: Int) -> MediaTypes? {
            responses[String(status)] ?? responses["\(status / 100)XX"] ?? responses["default"]
        }
    }

    let schemas: SchemaSet
    package let operations: [Operation]
    /// The names of the `apiKey` schemes' headers, query parameters and cookies.
    package let apiKeyNames: [String]

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
                var parameters: [Parameter] = []
                for parameter in (operation["parameters"]?.array ?? []) + shared {
                    let parameter = try Parameter(try Self.resolved(parameter, in: root), at: location, schemas: &schemas)
                    // An operation's own parameter overrides the path's of the same name and place.
                    if parameters.contains(where: { $0.name == parameter.name && $0.location == parameter.location }) { continue }
                    parameters.append(parameter)
                }
                // Reported in the order of the request: path, query, headers, cookies.
                let places: [Parameter.Location] = [.path, .query, .header, .cookie]
                parameters = places.flatMap { place in parameters.filter { $0.location == place } }
                var requestBody: MediaTypes?
                var requestBodyRequired = false
                if let body = operation["requestBody"] {
                    let body = try Self.resolved(body, in: root)
                    requestBody = try Self.mediaTypes(body["content"], at: "\(location)/requestBody", schemas: &schemas)
                    requestBodyRequired = body["required"]?.bool ?? false
                }
                var responses: [String: MediaTypes] = [:]
                for (status, response) in operation["responses"]?.members ?? [] {
                    let response = try Self.resolved(response, in: root)
                    responses[status.uppercased()] = try Self.mediaTypes(response["content"], at: "\(location)/responses/\(status)", schemas: &schemas)
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
                    tags: operation["tags"]?.array?.compactMap(\.string) ?? []
                ))
            }
        }
        self.schemas = schemas
        self.operations = operations
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

    private static func mediaTypes(_ content: JSONValue?, at location: String, schemas: inout SchemaSet) throws(DocumentError) -> MediaTypes {
        var types = MediaTypes()
        for (range, media) in content?.members ?? [] {
            let essence = range.prefix { $0 != ";" }.trimmingSpaces.lowercased()
            let schema = try media["schema"].map { schema throws(DocumentError) in try schemas.compile(schema, at: "\(location)/content/\(range)") }
            types.types.append((essence, schema))
        }
        return types
    }

    /// `value`, or what its `$ref` points at (parameters, request bodies, responses, path items).
    private static func resolved(_ value: JSONValue, in root: JSONValue) throws(DocumentError) -> JSONValue {
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
