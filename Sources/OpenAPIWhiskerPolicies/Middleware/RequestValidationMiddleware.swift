public import HTTPTypes
public import Logging
public import OpenAPIRuntime
public import OpenAPIWhiskerDocument
package import WhiskerCore

/// The document's checks as a `ServerMiddleware`: each request of an operation the document
/// describes is checked against it (its security requirements first, then its parameters, media
/// type and JSON body) before the middlewares after it and the handler, and answered with every
/// violation at once when the document does not allow it.
///
/// Pass it to the generated `registerHandlers(on:serverURL:middlewares:)` where it belongs among
/// your own middlewares: here a middleware of yours that turns a legacy header into
/// `Authorization` runs before it, and a rate limit per principal after it:
///
///     try handler.registerHandlers(on: transport, serverURL: url, middlewares: [
///         LegacyTokenMiddleware(),
///         try RequestValidationMiddleware(document, authenticators: ["bearer": authenticate]),
///         RateLimitMiddleware(RateLimit(10, per: .seconds(3600), by: .principal), for: ["getReport"]),
///     ])
///
/// What is checked, and how a refusal reads, is what `WhiskerTransport`'s
/// `init(_:requestBodyLimits:validatingAgainst:invalidRequestStatus:authenticators:policies:policiesByTag:)`
/// says, which runs this middleware itself first for every operation. A JSON body is read whole
/// (within the route's body limit) to be checked, and passed on from memory; other bodies stream
/// on unread. The principal that the security schemes admit is in `RequestContext.current?.principal`
/// (`Principal.current`) for the rest of the chain and the handler. An operationID the document
/// does not have, or one outside `operations`, passes unchecked.
public struct RequestValidationMiddleware: ServerMiddleware {
    /// What the middleware holds, in one object: a copy of the middleware (which the transport's
    /// call of ``checkWithoutWaiting(_:pathParameters:hasBody:operationID:)`` made every request)
    /// retains one reference, not each of the four.
    private final class Storage: Sendable {
        /// The checks by operationId.
        let validators: [String: RequestValidator]
        /// The one check of a middleware made for one operation (the transport's): compared, not
        /// hashed, per request.
        let only: (operationID: String, validator: RequestValidator)?
        let status: HTTPResponse.Status
        let logger: Logger?

        init(validators: [String: RequestValidator], status: HTTPResponse.Status, logger: Logger?) {
            self.validators = validators
            self.only = validators.count == 1 ? validators.first.map { ($0.key, $0.value) } : nil
            self.status = status
            self.logger = logger
        }

        /// The check of `operationID`, if this middleware has one.
        func validator(of operationID: String) -> RequestValidator? {
            if let only { return only.operationID == operationID ? only.validator : nil }
            return validators[operationID]
        }
    }

    private let storage: Storage

    /// The checks of `document`'s operations.
    /// - Parameters:
    ///   - document: The document the handlers were generated from.
    ///   - invalidRequestStatus: The status of a request the document does not allow: `400` by
    ///     default, or `422` (`.unprocessableContent`).
    ///   - authenticators: One ``/OpenAPIWhiskerDocument/Authenticator`` per security scheme, by
    ///     its name in `components.securitySchemes`; none (the default): security requirements
    ///     are not checked.
    ///   - operations: The operations to check; the others pass unchecked.
    ///   - logger: Where refusals are logged (`info`, naming the operation, never a credential):
    ///     `nil` (the default) logs to swift-log's `Logger.current`, which Whisker binds for every
    ///     request with its `request_id`.
    /// - Throws: ``/OpenAPIWhiskerDocument/DocumentError`` if the document cannot be read or a
    ///   schema in it cannot be used, or, given authenticators, an operation requires a scheme
    ///   that has none.
    public init(
        _ document: OpenAPIDocument, invalidRequestStatus: HTTPResponse.Status = .badRequest, authenticators: [String: Authenticator] = [:],
        for operations: OperationScope = .all, logger: Logger? = nil
    ) throws(DocumentError) {
        let described = try DocumentOperations(document)
        // An API key in the query is in the request target the access log shows: its name is
        // redacted like `api_key`'s, whatever it is.
        LogRedaction.addSensitiveNames(described.apiKeyNames)
        let all = try RequestValidation(operations: described, status: invalidRequestStatus, authenticators: authenticators).validators()
        self.init(validators: all.filter { operations.contains($0.key) }, status: invalidRequestStatus, logger: logger)
    }

    /// The checks of the operations in `validators` (the transport's, one operation each).
    package init(validators: [String: RequestValidator], status: HTTPResponse.Status, logger: Logger?) {
        storage = Storage(validators: validators, status: status, logger: logger)
    }

    /// Checks the request of `operationID`, then passes it on (with its JSON body from memory,
    /// and the principal bound), or answers the refusal.
    ///
    /// Its async frame stays allocated while the rest of the chain and the handler run, so the
    /// check is out of line (`check(_:_:body:metadata:)`): with it inlined, the frame was 3,136
    /// bytes, for which the task allocator malloc'd a slab on every request.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let validator = storage.validator(of: operationID) else { return try await next(request, body, metadata) }
        switch try await check(validator, request, body: body, metadata: metadata) {
        case .answer(let response, let responseBody):
            return (response, responseBody)
        case .proceed(let body, nil):
            return try await next(request, body, metadata)
        case .proceed(let body, let principal?):
            return try await Self.proceed(request, body: body, metadata: metadata, as: principal, next: next)
        }
    }

    /// What ``checkWithoutWaiting(_:pathParameters:hasBody:operationID:)`` comes to.
    package enum QuickCheck {
        /// The request is allowed: pass it on unchanged (no body was read, no principal bound).
        case proceed
        /// The refusal to answer (problem details), already logged.
        case answer(Response)
        /// The check has to wait (a security requirement to authenticate, a JSON body to read):
        /// run ``intercept(_:body:metadata:operationID:next:)``.
        case needsWaiting
    }

    /// The check of `operationID`'s request when it needs no waiting, without the async machinery
    /// of a middleware: what `WhiskerTransport` runs before the rest of an operation's chain when
    /// this middleware is the outermost one (its own `validatingAgainst:`), so that most requests
    /// pay no async frame, closure and task switch for the check. The same check and the same
    /// answer as `intercept`.
    /// - Parameter pathParameters: The route's parameters, still percent-encoded.
    package func checkWithoutWaiting(
        _ request: HTTPRequest, pathParameters: [String: Substring], hasBody: Bool, operationID: String
    ) -> QuickCheck {
        guard let validator = storage.validator(of: operationID) else { return .proceed }
        var parameters = PathParameters()
        for (name, value) in pathParameters { parameters.append(name: name, value: value) }
        // `Logger.current` (a task-local lookup and a copy) only for a refusal to log.
        switch validator.validateWithoutWaiting(request, pathParameters: parameters, hasBody: hasBody, status: storage.status, logger: storage.logger ?? Logger.current) {
        case .answer(let response)?: return .answer(response)
        case .proceed(nil, nil)?: return .proceed
        case .proceed?, nil: return .needsWaiting
        }
    }

    /// What a check comes to: the refusal to answer, or the body to pass on (the JSON body from
    /// memory) with the principal the security schemes admitted.
    private enum Checked {
        case answer(HTTPResponse, HTTPBody?)
        case proceed(HTTPBody?, Principal?)
    }

    @inline(never)
    private func check(_ validator: RequestValidator, _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata) async throws -> Checked {
        var parameters = PathParameters()
        for (name, value) in metadata.pathParameters { parameters.append(name: name, value: value) }
        let logger = storage.logger ?? Logger.current
        let status = storage.status
        let outcome: RequestValidator.Outcome
        if let quick = validator.validateWithoutWaiting(request, pathParameters: parameters, hasBody: body != nil, status: status, logger: logger) {
            outcome = quick
        } else {
            let lengthHint: Int64? = if case .known(let length) = body?.length { length } else { nil }
            outcome = try await validator.validate(request, pathParameters: parameters, body: body, lengthHint: lengthHint, status: status, logger: logger)
        }
        switch outcome {
        case .answer(let response):
            let (head, body) = response.openAPI
            return .answer(head, body)
        case .proceed(let read, let principal):
            return .proceed(read.map { HTTPBody($0) } ?? body, principal)
        }
    }

    /// Calls `next` with `principal` bound in the request's context. Out of line, so that the
    /// context it copies is in an async frame only for requests that have a principal.
    @inline(never)
    private static func proceed(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, as principal: Principal,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard var context = RequestContext.current else { return try await next(request, body, metadata) }
        context.principal = principal
        return try await RequestContext.$current.withValue(context) { try await next(request, body, metadata) }
    }
}
