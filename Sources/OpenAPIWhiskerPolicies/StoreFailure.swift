import HTTPTypes
import Logging
import OpenAPIRuntime
import WhiskerCore

/// What a request gets when the store of its rate limit (``RateLimitStore``) or of its idempotency
/// records (``IdempotencyStore``) cannot answer: unreachable, or slower than its timeout.
///
/// Either way the store logs when it becomes unavailable and when it is back (`RedisStore` does),
/// and each request it fails is logged at `debug`.
public enum StoreFailure: Sendable, Equatable {
    /// It goes on, unprotected ("fail open"): unlimited, without `RateLimit` fields, or run without
    /// its idempotency key's record. The service stays up while its store is down.
    case allow
    /// It is refused with `503 Service Unavailable` and `Retry-After: 1` ("fail closed"): the
    /// protection holds, and the operation answers nothing while its store is down.
    case refuse
}

extension StoreFailure {
    /// The answer to a request whose store failed: `next` (fail open) or 503 with `Retry-After: 1`
    /// as problem details (fail closed), logged at `debug` (the store logs the outage itself).
    /// - Parameters:
    ///   - what: What could not be checked: `rate limit`, `idempotency key`.
    ///   - running: What an allowed request does, for the log line.
    func answer(
        _ error: any Error, for what: String, running: String, _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata,
        operationID: String, logger: Logger,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        logger.debug("\(what) store unavailable", metadata: [
            "operation": "\(operationID)", "error": "\(error)", "request": self == .refuse ? "refused (503)" : "\(running)",
        ], source: logSource)
        guard self == .refuse else { return try await next(request, body, metadata) }
        var fields = HTTPFields()
        fields[.retryAfter] = "1"
        return ProblemDetails(status: .serviceUnavailable, detail: "the \(what) cannot be checked right now; retry in 1 s")
            .response(to: request, fields: fields).openAPI
    }
}
