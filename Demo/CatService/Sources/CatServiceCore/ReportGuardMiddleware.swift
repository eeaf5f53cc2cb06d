import HTTPTypes
import OpenAPIRuntime
import Whisker

/// Serves `getShelterReport` only to a request a security check admitted (``Principal/current``
/// set): the transport enforces the document's `security`, and this keeps a server run without
/// it (`--no-validation`) from serving the report to anyone. A middleware of `getShelterReport`'s
/// `OperationPolicy`: it runs for that operation alone, so it does not compare `operationID`.
struct ReportGuardMiddleware: ServerMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard Principal.current?.scopes.contains("reports:read") != true else {
            return try await next(request, body, metadata)
        }
        let problem = ProblemDetails(status: .unauthorized, detail: "the report is served only with its security checked")
        return (HTTPResponse(status: .unauthorized, headerFields: [.contentType: ProblemDetails.mediaType, .wwwAuthenticate: "Bearer"]), HTTPBody(problem.json))
    }
}
