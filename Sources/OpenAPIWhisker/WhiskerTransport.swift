public import HTTPTypes
import Logging
public import OpenAPIRuntime
@_exported public import OpenAPIWhiskerDocument
@_exported public import OpenAPIWhiskerPolicies
public import WhiskerCore

/// A `ServerTransport` that serves swift-openapi-generator's server stubs on a ``/WhiskerCore/WhiskerServer``.
///
///     let server = WhiskerServer(configuration: .init(host: "127.0.0.1", port: 8080))
///     let transport = try WhiskerTransport(server, validatingAgainst: .embedded)
///     try MyHandler().registerHandlers(on: transport, serverURL: try Servers.Server1.url())
///     try await server.run()
///
/// `.embedded` is the target's `openapi.yaml`, compiled in by Whisker's `WhiskerEmbedDocument`
/// build plugin (listed after the generator's); `WhiskerTransport(server)` serves the same
/// handlers without checking them against a document.
///
/// - Request bodies reach the handler as `HTTPBody` with `.single` iteration, streamed from the
///   socket as the handler reads (with backpressure); a request without a body gets `nil`.
/// - Path parameters are passed still percent-encoded; the runtime decodes them.
/// - Response bodies stream with backpressure; a known length is sent as `Content-Length`,
///   an unknown one as chunked.
/// - An error that conforms to `HTTPResponseConvertible` (as every `ServerError` the generated
///   code throws does) becomes its status, headers and body. One without a body (a bad or missing
///   parameter or body) is answered as ``/WhiskerCore/ProblemDetails`` (`application/problem+json`, or plain
///   text for a client that asks only for text) saying what was wrong with the request; a query
///   item or path parameter the generated code cannot decode (`?shout=maybe` for a boolean) is
///   named, even without the document, when the request shows which it is. 5xx
///   errors are logged with their cause; their body never reveals it.
/// - Several handler types may register on one transport (each under its own server URL);
///   registering the same method and path twice throws an error that names both.
/// - An operation may accept larger (an upload) or smaller request bodies than the server's
///   `maxRequestBodySize`: name it in `requestBodyLimits` by method and path as registered (the
///   server URL's path included):
///
///       let transport = WhiskerTransport(server, requestBodyLimits: [
///           "POST /api/census": .maximum(256 << 20),
///           "POST /api/adopt": .maximum(1024),
///       ])
/// - With the document (``init(_:requestBodyLimits:validatingAgainst:invalidRequestStatus:authenticators:policies:policiesByTag:)``),
///   requests are checked against it, its security schemes are enforced, and each operation may
///   have an ``/OpenAPIWhiskerPolicies/OperationPolicy`` by operationId: a deadline, a rate limit, its body limit, its
///   deprecation.
/// - The checks, the rate limit and deprecation are `ServerMiddleware` values
///   (``/OpenAPIWhiskerPolicies/RequestValidationMiddleware``, ``/OpenAPIWhiskerPolicies/RateLimitMiddleware``,
///   ``/OpenAPIWhiskerPolicies/DeprecationMiddleware``): `validatingAgainst:` and `policies:` run them before any
///   middleware given to `registerHandlers(on:serverURL:middlewares:)`; pass them there instead to
///   order them among your own and scope them by operationId. The deadline and the body limit stay here.
public struct WhiskerTransport: ServerTransport {
    let server: WhiskerServer
    private let requestBodyLimits: [String: RequestBodyLimit]
    private let validation: RequestValidation?
    /// Policies by operationId (with a document) or `"METHOD /path"`.
    private let policies: [String: OperationPolicy]

    /// Creates a transport that registers its operations on `server`.
    /// - Parameters:
    ///   - server: The server; register before calling its `run`.
    ///   - requestBodyLimits: Request body limits of operations, keyed `"METHOD /path/{template}"`
    ///     as registered; the others keep the server's.
    ///   - policies: Each operation's ``/OpenAPIWhiskerPolicies/OperationPolicy`` (deadline, rate limit, body limit,
    ///     deprecation), keyed `"METHOD /path/{template}"` as registered. With a document
    ///     (``init(_:requestBodyLimits:validatingAgainst:invalidRequestStatus:authenticators:policies:policiesByTag:)``)
    ///     they are keyed by operationId.
    public init(_ server: WhiskerServer, requestBodyLimits: [String: RequestBodyLimit] = [:], policies: [String: OperationPolicy] = [:]) {
        self.server = server
        self.requestBodyLimits = requestBodyLimits
        self.validation = nil
        self.policies = policies
    }

    /// Creates a transport that checks each request against `document` before its handler runs,
    /// and answers those the document does not allow with every violation at once.
    ///
    ///     let transport = try WhiskerTransport(server, validatingAgainst: .embedded)
    ///
    /// (`.embedded`: the target's `openapi.yaml`, compiled in by the `WhiskerEmbedDocument` build
    /// plugin; any other ``/OpenAPIWhiskerDocument/OpenAPIDocument`` works the same.)
    ///
    /// Checked: the operation's parameters (path, query, header, cookie: `required`, and the
    /// schema's `type`, bounds, lengths, `pattern`, `enum`, `format`, arrays and objects read in
    /// the parameter's `style` and `explode`, `deepObject` among them), the
    /// request's `Content-Type` against the media types the operation takes (`415` if it is not
    /// one), a required body's presence, and a JSON body (`application/json`, `*+json`) against
    /// its schema (the keywords `SchemaSet` lists: types, `required`, bounds, lengths,
    /// patterns, enums, `additionalProperties: false`, nested objects and arrays, `$ref`). A JSON
    /// body is read whole, within the route's body limit, to be checked; other bodies still stream
    /// to the handler unread. The answer is problem details:
    ///
    ///     {"type":"about:blank","title":"Bad Request","status":400,
    ///      "detail":"2 problems: query parameter count: must be at most 100, got 101; body /name: is required",
    ///      "errors":[{"in":"query","parameter":"count","detail":"must be at most 100, got 101"},
    ///                {"in":"body","pointer":"/name","detail":"is required"}]}
    ///
    /// - Parameters:
    ///   - server: The server; register before calling its `run`.
    ///   - requestBodyLimits: As ``init(_:requestBodyLimits:policies:)``.
    ///   - document: The document the handlers were generated from.
    ///   - invalidRequestStatus: The status of a request the document does not allow: `400` by
    ///     default; `422` (`.unprocessableContent`) if you prefer.
    ///   - authenticators: One ``/OpenAPIWhiskerDocument/Authenticator`` per security scheme of the document
    ///     (`components.securitySchemes`), by name. Given, each operation's `security` (or the
    ///     document's) is checked before anything else: alternatives (any one admits), each naming
    ///     schemes that must all accept their credential, with the scopes the `Principal` must
    ///     hold. No credential, or one refused: `401` with `WWW-Authenticate` for the `http`
    ///     schemes; authenticated without a required scope: `403`; both as problem details that
    ///     name schemes, never credentials. The handler reads the principal in
    ///     `RequestContext.current?.principal`. Empty (the default): security requirements are not
    ///     checked.
    ///   - policies: Each operation's ``/OpenAPIWhiskerPolicies/OperationPolicy`` (deadline, rate limit, body limit,
    ///     deprecation), keyed by operationId. An operation the document marks `deprecated`
    ///     answers with `Deprecation` whether or not it has one.
    ///   - policiesByTag: Policies for the operations the document gives a tag, keyed by tag: an
    ///     operation's own policy goes over them (each part it sets wins, middlewares run the
    ///     tag's first), and an operation with several tags takes them in its `tags` order, the
    ///     first winning.
    /// - Throws: ``/OpenAPIWhiskerDocument/DocumentError`` if the document cannot be read or a schema in it cannot be used
    ///   (a `pattern` Swift's `Regex` does not compile, such as a lookbehind, a `$ref` outside it), or a
    ///   policy names an operationId, or a tag, the document does not have.
    public init(
        _ server: WhiskerServer, requestBodyLimits: [String: RequestBodyLimit] = [:], validatingAgainst document: OpenAPIDocument,
        invalidRequestStatus: HTTPResponse.Status = .badRequest, authenticators: [String: Authenticator] = [:],
        policies: [String: OperationPolicy] = [:], policiesByTag: [String: OperationPolicy] = [:]
    ) throws(DocumentError) {
        self.server = server
        self.requestBodyLimits = requestBodyLimits
        let operations = try DocumentOperations(document)
        for name in policies.keys where !operations.operations.contains(where: { $0.id == name }) {
            throw DocumentError("a policy is given for \(name), which is no operationId of the document")
        }
        for tag in policiesByTag.keys where !operations.operations.contains(where: { $0.tags.contains(tag) }) {
            throw DocumentError("a policy is given for the tag \(tag), which no operation of the document has")
        }
        var policies = policies
        for operation in operations.operations {
            let tagged = operation.tags.compactMap { policiesByTag[$0] }
            guard let first = tagged.first else { continue }
            let byTags = tagged.dropFirst().reduce(first) { merged, next in merged.over(next) }
            policies[operation.id] = policies[operation.id].map { $0.over(byTags) } ?? byTags
        }
        // An API key in the query is in the request target the access log shows: its name is
        // redacted like `api_key`'s, whatever it is.
        LogRedaction.addSensitiveNames(operations.apiKeyNames)
        self.validation = RequestValidation(operations: operations, status: invalidRequestStatus, authenticators: authenticators)
        self.policies = policies
    }

    public func register(
        _ handler: @Sendable @escaping (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?),
        method: HTTPRequest.Method,
        path: String
    ) throws {
        let validator = try validation?.validator(method: method, path: path)
        let key = "\(method.rawValue) \(path)"
        let name = validator?.operation.id ?? key
        let policy = policies[name]
        let deprecated = validator?.operation.deprecated ?? false
        // The same middlewares a user can order and scope in `registerHandlers(on:serverURL:middlewares:)`,
        // in the order this transport has always applied them; the deadline races them all.
        let checks = validator.map { RequestValidationMiddleware(validators: [name: $0], status: validation?.status ?? .badRequest, logger: nil) }
        let operation = RegisteredOperation(
            name: name, handler: handler,
            middlewares: AppliedPolicy.middlewares(
                policy, operation: name, deprecated: deprecated,
                idempotency: validator?.operation.idempotency.flatMap(IdempotencyKeys.Requirement.init(rawValue:)), validation: checks
            ),
            deadline: AppliedPolicy(policy, operation: name, deprecated: deprecated), logger: server.configuration.logger
        )
        let limit = policy?.maxRequestBodySize ?? requestBodyLimits[key] ?? .serverDefault
        let rate = policy?.minRequestBodyRate ?? .serverDefault
        // Without a deadline, straight to the middlewares and the handler: no frame more per request.
        if operation.deadline == nil {
            try server.register(method: method, path: path, maxRequestBodySize: limit, minRequestBodyRate: rate) { request in try await operation.handle(request) }
        } else {
            try server.register(method: method, path: path, maxRequestBodySize: limit, minRequestBodyRate: rate) { request in try await operation.respond(to: request) }
        }
    }

    static func response(for convertible: any HTTPResponseConvertible, error: any Error, request: HTTPRequest, logger: Logger) -> Response {
        let status = convertible.httpStatus
        let metadata: Logger.Metadata = [
            "method": "\(LogValue.quoted(request.method.rawValue))", "path": "\(LogValue.quoted(LogRedaction.target(request.path ?? "")))", "status": "\(status.code)",
            "error": "\(LogValue.quoted(Self.logDescription(of: error)))",
        ]
        if status.kind == .serverError {
            logger.error("request failed", metadata: metadata)
        } else {
            logger.info("request refused", metadata: metadata)
        }
        if let body = convertible.httpBody {
            return Response(head: HTTPResponse(status: status, headerFields: convertible.httpHeaderFields), body: ResponseBody(body))
        }
        guard status.kind == .clientError || status.kind == .serverError else {
            return Response(head: HTTPResponse(status: status, headerFields: convertible.httpHeaderFields))
        }
        let detail = status.kind == .serverError
            ? "the server failed to answer this request"
            : (error as? ServerError)?.causeDescription ?? "\(error)"
        return ProblemDetails(status: status, detail: detail).response(to: request, fields: convertible.httpHeaderFields)
    }
}

extension WhiskerTransport {
    /// A 400 naming the query, when the generated code could not read the request's query with
    /// the runtime's URI parser (the error is the runtime's, not the handler's: no input was
    /// decoded, and its type is the parser's `ParsingError`, which the runtime would answer 500).
    /// ``QueryString`` hands the runtime only queries its parser reads; this is the net for
    /// whatever a later runtime refuses all the same: a client's input is never a 500.
    static func undecodableQuery(_ error: any Error, request: HTTPRequest, logger: Logger) -> Response? {
        guard let error = error as? ServerError, error.operationInput == nil, error.httpStatus == .internalServerError,
              String(reflecting: type(of: error.underlyingError)) == "OpenAPIRuntime.ParsingError",
              let path = request.path, let mark = path.firstIndex(of: "?")
        else { return nil }
        let detail = "the query cannot be read: \(error.underlyingError)"
        logger.info("request refused", metadata: [
            "operation": "\(error.operationID)", "status": "400", "error": "\(LogValue.quoted(detail))",
            "query": "\(LogValue.quoted(LogRedaction.target(String(path[mark...]))))",
        ])
        return ProblemDetails(status: .badRequest, detail: "the query cannot be read").response(to: request)
    }

    /// An error as a log line may show it. The runtime's `ServerError` describes the whole request
    /// head (every header with its value, `Authorization` and `Cookie` included), the body and the
    /// decoded input (header parameters such as an API key): none of that is logged, only the
    /// operation, the cause and the underlying error, and those scrubbed of credentials too.
    static func logDescription(of error: any Error) -> String {
        guard let error = error as? ServerError else { return LogRedaction.scrub("\(error)") }
        return LogRedaction.scrub("operation \(error.operationID): \(error.causeDescription); underlying error: \(error.underlyingError)")
    }
}

extension ResponseBody {
    /// The largest known-length body collected into memory before the head is written; larger
    /// and unknown-length bodies stream.
    static let collectLimit: Int64 = 64 * 1024

    /// Streams an OpenAPI `HTTPBody` chunk by chunk, each written before the next is pulled.
    init(_ body: HTTPBody?) {
        guard let body else {
            self = .empty
            return
        }
        let length: Int64? = if case .known(let count) = body.length { count } else { nil }
        self.init(length: length) { writer in
            for try await chunk in body { try await writer.write(chunk) }
        }
    }

    /// Like ``init(_:)``, but a small body of known length (the usual JSON or text response) is
    /// collected first, so that it leaves with its head in one write and without a stream.
    static func collectingSmall(_ body: HTTPBody?) async throws -> ResponseBody {
        guard let body, case .known(let length) = body.length, length <= collectLimit else { return ResponseBody(body) }
        var chunks = body.makeAsyncIterator()
        guard let first = try await chunks.next() else { return ResponseBody(bytes: []) }
        // The usual body is one chunk (`HTTPBody(String)`, `HTTPBody([UInt8])`): kept as it is,
        // without an array to collect it into (a malloc and a copy a response). A body of bytes
        // in memory (iterable more than once) whose first chunk is its whole known length is not
        // asked for a next chunk: that empty ask went through four of the runtime's async layers,
        // 5 task switches a response. A stream is still read to its end.
        if body.iterationBehavior == .multiple && Int64(first.count) == length { return ResponseBody(storage: .bytes(first)) }
        guard let second = try await chunks.next() else { return ResponseBody(storage: .bytes(first)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(length))
        bytes += first
        bytes += second
        while let chunk = try await chunks.next() { bytes += chunk }
        return ResponseBody(bytes: bytes)
    }
}
