import HTTPTypes
import Logging
import OpenAPIRuntime
import OpenAPIWhiskerDocument
import OpenAPIWhiskerPolicies
import WhiskerCore

/// One operation as the transport registered it: the generated handler, the document's checks
/// and the operation's policy, applied to each of its requests in that order.
struct RegisteredOperation: Sendable {
    /// The operationId, or `METHOD /path` without a document.
    let name: String
    let handler: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    let validator: RequestValidator?
    let invalidRequestStatus: HTTPResponse.Status
    let policy: AppliedPolicy?
    let logger: Logger

    /// The response to `request`: refused by the rate limit, the security requirements or the
    /// document, or the handler's, within the deadline; with the policy's fields.
    func respond(to request: Request) async throws -> Response {
        guard let policy else { return try await handle(request) }
        var response: Response
        if let deadline = policy.deadline {
            let end = ContinuousClock.now + deadline
            if let answered = try await withDeadline(end, { try await handle(request) }) {
                response = policy.ending(answered, at: end, logger: logger)
            } else {
                response = policy.missedDeadline(request.head, logger: logger)
            }
        } else {
            response = try await handle(request)
        }
        policy.deprecation.map { response.head.headerFields.append(contentsOf: $0) }
        return response
    }

    /// Checks `request` (rate limit, security, parameters, body) and runs the handler.
    func handle(_ request: Request) async throws -> Response {
        var rateLimitFields: HTTPFields?
        switch policy?.admit(request, at: .beforeChecks, logger: logger) {
        case .refused(let response)?: return response
        case .admitted(let fields)?: rateLimitFields = fields
        case nil: break
        }
        var requestBody = request.body
        var principal: Principal?
        if let validator {
            switch try await validator.validate(request, status: invalidRequestStatus, logger: logger) {
            case .answer(var response):
                rateLimitFields.map { response.head.headerFields.append(contentsOf: $0) }
                return response
            case .proceed(let body, let admitted): (requestBody, principal) = (body, admitted)
            }
        }
        switch policy?.admit(request, at: .afterAuthentication(principal), logger: logger) {
        case .refused(let response)?: return response
        case .admitted(let fields)?: rateLimitFields = fields
        case nil: break
        }
        var parameters: [String: Substring] = [:]
        for (name, value) in request.pathParameters { parameters[name] = value }
        let body = requestBody.map { body in
            HTTPBody(body, length: body.length.map { .known($0) } ?? .unknown, iterationBehavior: .single)
        }
        // The query as the checks read it, in the form the runtime's decoder reads (`?debug` as
        // `?debug=`): a query item without `=` is no 500 (issue 38).
        var requestHead = request.head
        if let path = requestHead.path, let rewritten = QueryString.runtimeTarget(path) { requestHead.path = rewritten }
        do {
            let metadata = ServerRequestMetadata(pathParameters: parameters)
            let (head, responseBody) = if let principal, var context = RequestContext.current {
                try await RequestContext.$current.withValue({ context.principal = principal; return context }()) {
                    try await handler(requestHead, body, metadata)
                }
            } else {
                try await handler(requestHead, body, metadata)
            }
            var response = Response(head: head, body: try await ResponseBody.collectingSmall(responseBody))
            rateLimitFields.map { response.head.headerFields.append(contentsOf: $0) }
            return response
        } catch {
            // A body the connection refused (and answered) while the generated code read it, or
            // a client that left: what the server logs for the request, not a failure.
            if let bodyError = (error as? ServerError)?.underlyingError as? RequestBodyError { throw bodyError }
            // The request was ended under the handler (a reset stream, a body too slow, a
            // closed connection): there is nobody to answer, and nothing failed to log.
            if Task.isCancelled { throw CancellationError() }
            guard let convertible = error as? any HTTPResponseConvertible else { throw error }
            if let refusal = WhiskerTransport.undecodableQuery(error, request: request.head, logger: logger) { return refusal }
            return WhiskerTransport.response(for: convertible, error: error, request: request.head, logger: logger)
        }
    }
}
