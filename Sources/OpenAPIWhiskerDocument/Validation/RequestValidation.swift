package import HTTPTypes
package import Logging
package import WhiskerCore

/// The source of this file's log lines: the transport's, as before the module was split from it
/// (issue 39), so that a filter on `[OpenAPIWhisker]` still sees them.
private let logSource = "OpenAPIWhisker"

/// What a `WhiskerTransport` made with `init(_:requestBodyLimits:validatingAgainst:invalidRequestStatus:authenticators:policies:policiesByTag:)`
/// checks before a handler runs: the operation's parameters (path, query, header, cookie), the
/// request's media type and its JSON body, against the document's schemas.
package struct RequestValidation: Sendable {
    let operations: DocumentOperations
    package let status: HTTPResponse.Status
    /// One per security scheme; none: security requirements are not checked.
    let authenticators: [String: Authenticator]

    /// The checks of `operations`, answering a request they refuse with `status`, authenticating
    /// with `authenticators` (none: security requirements are not checked).
    package init(operations: DocumentOperations, status: HTTPResponse.Status, authenticators: [String: Authenticator]) {
        self.operations = operations
        self.status = status
        self.authenticators = authenticators
    }

    /// The checks for the operation registered as `method` `path`.
    /// - Throws: ``DocumentError`` if the document has no such operation, or its security
    ///   requirements name a scheme without an authenticator (when there are authenticators).
    package func validator(method: HTTPRequest.Method, path: String) throws(DocumentError) -> RequestValidator {
        guard let operation = operations.operation(method: method.rawValue, registeredPath: path) else {
            throw DocumentError("\(method.rawValue) \(path) is registered, but the document validated against has no such operation")
        }
        return try validator(for: operation)
    }

    /// The checks of every operation of the document, by operationId.
    /// - Throws: ``DocumentError`` if an operation's security requirements name a scheme without
    ///   an authenticator (when there are authenticators).
    package func validators() throws(DocumentError) -> [String: RequestValidator] {
        var validators: [String: RequestValidator] = [:]
        for operation in operations.operations { validators[operation.id] = try validator(for: operation) }
        return validators
    }

    /// The checks of `operation`.
    private func validator(for operation: DocumentOperations.Operation) throws(DocumentError) -> RequestValidator {
        guard !authenticators.isEmpty, let security = operation.security else {
            return RequestValidator(operation: operation, schemas: operations.schemas, security: nil)
        }
        for requirement in security.alternatives.joined() where authenticators[requirement.scheme.name] == nil {
            throw DocumentError("\(operation.id) requires the security scheme \(requirement.scheme.name), which has no authenticator")
        }
        let authenticators = authenticators
        return RequestValidator(operation: operation, schemas: operations.schemas, security: (security, { scheme, credential in
            try await authenticators[scheme.name]!(credential)
        }))
    }
}

extension RequestValidator {
    /// The outcome of checking one request: go on, with the JSON body as read to check it (`nil`:
    /// the body was not read, pass it on as it came) and the principal the security schemes
    /// admitted, or answer `response` instead.
    package enum Outcome {
        case proceed(readBody: [UInt8]?, principal: Principal?)
        case answer(Response)
    }

    /// Checks the request of `head`, its path parameters (still percent-encoded) and its body; a
    /// JSON or form (`application/x-www-form-urlencoded`) body is read whole (within the route's
    /// limit) to be checked; any other body is left to stream to the handler.
    /// - Parameters:
    ///   - lengthHint: The body's declared length, if any: the buffer a JSON body is read into.
    /// - Throws: what reading the JSON body throws (``/WhiskerCore/RequestBodyError``: too large, the
    ///   client left).
    ///
    /// Never inlined: inlined, its locals joined its caller's async frame (3,136 bytes for the
    /// validation middleware's), which stays allocated while the rest of the chain and the handler
    /// run, and made the task allocator malloc a slab of its own for every request. Out of line,
    /// its frame is freed when it returns.
    @inline(never)
    package func validate<Body: AsyncSequence>(
        _ head: HTTPRequest, pathParameters: PathParameters, body requestBody: Body?, lengthHint: Int64?, status: HTTPResponse.Status, logger: Logger
    ) async throws -> Outcome where Body.Element == ArraySlice<UInt8> {
        var principal: Principal?
        if let (requirements, authenticate) = security {
            // Never a credential in the answer or the log: the schemes' names only.
            switch try await requirements.check(head, tls: RequestContext.current?.tls, authenticate: authenticate) {
            case .admitted(let admitted):
                principal = admitted
            case .unauthenticated(let detail, let challenges):
                logger.info("request refused", metadata: ["operation": "\(operation.id)", "status": "401", "error": "\(LogValue.quoted(detail))"], source: logSource)
                var fields = HTTPFields()
                for challenge in challenges { fields.append(HTTPField(name: .wwwAuthenticate, value: challenge)) }
                return .answer(ProblemDetails(status: .unauthorized, detail: detail).response(to: head, fields: fields))
            case .forbidden(let detail):
                logger.info("request refused", metadata: ["operation": "\(operation.id)", "status": "403", "error": "\(LogValue.quoted(detail))"], source: logSource)
                return .answer(ProblemDetails(status: .forbidden, detail: detail).response(to: head))
            }
        }
        var violations = parameterViolations(of: head, pathParameters: pathParameters)
        var read: [UInt8]?
        if let declared = operation.requestBody {
            if let requestBody {
                let contentType = head.headerFields[.contentType]
                let essence = contentType.flatMap(MediaType.init)?.essence
                guard let essence, case let match = declared.match(essence), match.declared else {
                    let detail = "\(contentType.map { "a body of type \($0)" } ?? "a body without Content-Type") is not one this operation takes (\(declared.listed))"
                    logger.info("request refused", metadata: ["operation": "\(operation.id)", "status": "415", "error": "\(LogValue.quoted(detail))"], source: logSource)
                    return .answer(ProblemDetails(status: .unsupportedMediaType, detail: detail).response(to: head))
                }
                let isForm = essence == "application/x-www-form-urlencoded"
                if let schema = match.schema, isForm || DocumentOperations.MediaTypes.isJSON(essence) {
                    var bytes: [UInt8] = []
                    if let length = lengthHint { bytes.reserveCapacity(Int(clamping: min(length, 1 << 20))) }
                    for try await chunk in requestBody { bytes += chunk }
                    do {
                        guard isForm || !bytes.isEmpty else { throw EmptyJSON() }
                        let value = isForm ? formObject(bytes, schema: schema) : try JSONReader.read(bytes)
                        var found: [(pointer: String, detail: String)] = []
                        schemas.check(value, against: schema, pointer: "", into: &found)
                        violations += found.map { Violation(location: "body", name: $0.pointer, detail: $0.detail) }
                    } catch {
                        violations.append(Violation(location: "body", name: "", detail: "\(error)"))
                    }
                    read = bytes
                } else if lengthHint == 0, let schema = match.schema {
                    // An empty body that came as one (HTTP/2 sends its end as a frame): its empty text.
                    violations += emptyText(against: schema)
                }
            } else if operation.requestBodyRequired {
                violations += missingBody(head, declared: declared)
            }
        }
        return outcome(of: violations, read: read, principal: principal, head, status: status, logger: logger)
    }

    /// The outcome of `validate(_:pathParameters:body:lengthHint:status:logger:)` when it needs
    /// no waiting, `nil` when it does: most requests have no security requirement to authenticate
    /// and no JSON body to read. Synchronous, so that its work is on the thread's stack: the async
    /// `validate` needs a 3,136-byte frame from the task allocator, a slab malloc'd for every
    /// request that calls it.
    /// - Parameter hasBody: Whether the request has a body.
    @inline(never)
    package func validateWithoutWaiting(
        _ head: HTTPRequest, pathParameters: PathParameters, hasBody: Bool, status: HTTPResponse.Status, logger: @autoclosure () -> Logger
    ) -> Outcome? {
        guard security == nil, operation.requestBody == nil || !hasBody else { return nil }
        var violations = parameterViolations(of: head, pathParameters: pathParameters)
        if let declared = operation.requestBody, operation.requestBodyRequired {
            violations += missingBody(head, declared: declared)
        }
        return outcome(of: violations, read: nil, principal: nil, head, status: status, logger: logger())
    }

    /// A form body (`application/x-www-form-urlencoded`) as the object its schema describes: each
    /// field a member, its text typed by its property's schema (`3` an integer where it says
    /// `integer`), the fields of an array property (or a field repeated) an array.
    private func formObject(_ bytes: [UInt8], schema: Int) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        for (name, text) in Self.queryItems(of: "?" + String(decoding: bytes, as: UTF8.self)) {
            let property = schemas.propertySchema(String(name), of: schema)
            let types = property.flatMap(schemas.types(of:)) ?? ["string"]
            let isArray = types.contains("array")
            let itemTypes = isArray ? property.flatMap(schemas.itemSchema(of:)).flatMap(schemas.types(of:)) ?? ["string"] : types
            let value = Self.scalar(text, types: itemTypes)
            if let index = members.firstIndex(where: { $0.key == name }) {
                members[index].value = .array((members[index].value.array ?? [members[index].value]) + [value])
            } else {
                members.append((String(name), isArray ? .array([value]) : value))
            }
        }
        return .object(members)
    }

    /// What a request with no body bytes does wrong, for an operation that requires a body. An
    /// empty body sent as a type the operation takes (`Content-Type` and `Content-Length: 0`) is
    /// that type's empty representation, checked as its schema says: empty JSON is no JSON, and an
    /// empty text is the empty string (allowed unless a `minLength`, say, forbids it). Anything else
    /// is a missing body.
    private func missingBody(_ head: HTTPRequest, declared: DocumentOperations.MediaTypes) -> [Violation] {
        guard head.headerFields[.contentLength] == "0", let essence = head.headerFields[.contentType].flatMap(MediaType.init)?.essence,
              case let match = declared.match(essence), match.declared
        else { return [Violation(location: "body", name: "", detail: "is required (\(declared.listed))")] }
        if DocumentOperations.MediaTypes.isJSON(essence) { return [Violation(location: "body", name: "", detail: EmptyJSON().description)] }
        return match.schema.map(emptyText(against:)) ?? []
    }

    /// What an empty text body does that the schema at `schema` does not allow.
    private func emptyText(against schema: Int) -> [Violation] {
        var found: [(pointer: String, detail: String)] = []
        schemas.check(.string(""), against: schema, pointer: "", into: &found)
        return found.map { Violation(location: "body", name: $0.pointer, detail: $0.detail) }
    }

    /// Proceed, or (with violations) the answer naming them all, logged.
    private func outcome(
        of violations: [Violation], read: [UInt8]?, principal: Principal?, _ head: HTTPRequest, status: HTTPResponse.Status, logger: @autoclosure () -> Logger
    ) -> Outcome {
        guard violations.isEmpty else {
            logger().info("request refused", metadata: [
                "operation": "\(operation.id)", "status": "\(status.code)", "error": "\(LogValue.quoted(violations.map(\.description).joined(separator: "; ")))",
            ], source: logSource)
            return .answer(Self.problem(violations, status: status, request: head))
        }
        return .proceed(readBody: read, principal: principal)
    }

    /// Every violation in one answer: problem details whose `errors` name each parameter (`in`,
    /// `parameter`) or JSON pointer into the body (`in: body`, `pointer`), and say what is wrong.
    static func problem(_ violations: [Violation], status: HTTPResponse.Status, request: HTTPRequest) -> Response {
        let summary = violations.count == 1
            ? violations[0].description
            : "\(violations.count) problems: " + violations.map(\.description).joined(separator: "; ")
        let problem = ProblemDetails(status: status, detail: summary)
        var response = problem.response(to: request)
        guard response.head.headerFields[.contentType] == ProblemDetails.mediaType else { return response }
        let errors = violations.map { violation in
            let place = violation.location == "body" ? "\"pointer\":\(JSONValue.quoted(violation.name))" : "\"parameter\":\(JSONValue.quoted(violation.name))"
            return "{\"in\":\(JSONValue.quoted(violation.location)),\(place),\"detail\":\(JSONValue.quoted(violation.detail))}"
        }
        response.body = ResponseBody(string: String(problem.json.dropLast()) + ",\"errors\":[" + errors.joined(separator: ",") + "]}")
        return response
    }
}

/// A JSON body of no bytes (`Content-Length: 0`, or an HTTP/2 request whose body ends at once).
private struct EmptyJSON: Error, CustomStringConvertible {
    var description: String { "is empty, which is no JSON" }
}
