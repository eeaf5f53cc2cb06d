import HTTPTypes
import Logging
import OpenAPIRuntime
import OpenAPIWhiskerDocument
import OpenAPIWhiskerPolicies
import WhiskerCore

/// One operation as the transport registered it: the generated handler behind the middlewares
/// the transport's own `validatingAgainst:` and `policies:` make for it, within its deadline.
struct RegisteredOperation: Sendable {
    typealias Handler = @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)

    let operationID: String
    /// The generated handler, behind the operation's middlewares (the document's checks, its
    /// rate limit, its deprecation).
    let handler: Handler
    /// When the document's checks are the outermost middleware: those checks, run synchronously
    /// before `checkedHandler` (the handler behind the middlewares after them) whenever they need
    /// no waiting. A middleware in the chain costs an async frame, a closure context and task
    /// switches a request (6 switches and 12 task allocations for the checks, counted with uprobes),
    /// for a check that is synchronous for most requests.
    let checks: (validation: RequestValidationMiddleware, checkedHandler: Handler)?
    let deadline: AppliedPolicy?
    let logger: Logger

    /// `handler` behind `middlewares`, the first outermost, each told `operationID`: as the
    /// runtime's `UniversalServer` runs the ones given to `registerHandlers`.
    init(name operationID: String, handler: @escaping Handler, middlewares: [any ServerMiddleware], deadline: AppliedPolicy?, logger: Logger) {
        self.operationID = operationID
        self.handler = Self.chain(handler, behind: middlewares[...], operationID: operationID)
        if let validation = middlewares.first as? RequestValidationMiddleware {
            checks = (validation, Self.chain(handler, behind: middlewares.dropFirst(), operationID: operationID))
        } else {
            checks = nil
        }
        self.deadline = deadline
        self.logger = logger
    }

    private static func chain(_ handler: @escaping Handler, behind middlewares: ArraySlice<any ServerMiddleware>, operationID: String) -> Handler {
        middlewares.reversed().reduce(handler) { next, middleware in
            { request, body, metadata in try await middleware.intercept(request, body: body, metadata: metadata, operationID: operationID, next: next) }
        }
    }

    /// The response to `request`: the handler's (or a middleware's), within the deadline.
    func respond(to request: Request) async throws -> Response {
        guard let policy = deadline, let deadline = policy.deadline else { return try await handle(request) }
        let end = ContinuousClock.now + deadline
        if let answered = try await withDeadline(end, { try await handle(request) }) {
            return policy.ending(answered, at: end, logger: logger)
        }
        var response = policy.missedDeadline(request.head, logger: logger)
        policy.deprecation.map { response.head.headerFields.append(contentsOf: $0) }
        return response
    }

    /// Runs the middlewares and the handler on `request`.
    func handle(_ request: Request) async throws -> Response {
        var parameters: [String: Substring] = [:]
        for (name, value) in request.pathParameters { parameters[name] = value }
        let body = request.body.map { body in
            HTTPBody(body, length: body.length.map { .known($0) } ?? .unknown, iterationBehavior: .single)
        }
        // The query as the checks read it, in the form the runtime's decoder reads (`?debug` as
        // `?debug=`): a query item without `=` is no 500 (issue 38).
        var requestHead = request.head
        if let path = requestHead.path, let rewritten = QueryString.runtimeTarget(path) { requestHead.path = rewritten }
        var handler = self.handler
        // Borrowed through the optional, not bound: binding copies the middleware (a retain and a
        // release of each of its references).
        switch checks?.validation.checkWithoutWaiting(requestHead, pathParameters: parameters, hasBody: body != nil, operationID: operationID) {
        case .answer(let refusal)?: return refusal
        case .proceed?: handler = checks?.checkedHandler ?? handler
        case .needsWaiting?, nil: break
        }
        do {
            let (head, responseBody) = try await handler(requestHead, body, ServerRequestMetadata(pathParameters: parameters))
            return Response(head: head, body: try await ResponseBody.collectingSmall(responseBody))
        } catch {
            // A body the connection refused (and answered) while the generated code or a
            // middleware read it, or a client that left: what the server logs for the request,
            // not a failure.
            if let bodyError = error as? RequestBodyError ?? (error as? ServerError)?.underlyingError as? RequestBodyError { throw bodyError }
            // The request was ended under the handler (a reset stream, a body too slow, a
            // closed connection): there is nobody to answer, and nothing failed to log.
            if Task.isCancelled { throw CancellationError() }
            guard let convertible = error as? any HTTPResponseConvertible else { throw error }
            if let refusal = WhiskerTransport.undecodableQuery(error, request: request.head, logger: logger) { return refusal }
            if let refusal = WhiskerTransport.undecodableParameter(error, request: request.head, pathParameters: parameters, logger: logger) { return refusal }
            return WhiskerTransport.response(for: convertible, error: error, request: request.head, logger: logger)
        }
    }
}
