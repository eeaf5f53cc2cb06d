public import HTTPTypes
public import Logging
public import OpenAPIRuntime
import WhiskerCore

/// A ``RateLimit`` as a `ServerMiddleware`: a token bucket per client address (or per
/// principal) for the operations of its scope, which refuses a request past the limit with `429
/// Too Many Requests` and `Retry-After` before the middlewares after it and the handler, and adds
/// `RateLimit-Policy` and `RateLimit` to every answer that comes back through it.
///
///     try handler.registerHandlers(on: transport, serverURL: url, middlewares: [
///         RateLimitMiddleware(RateLimit(20, per: .seconds(60)), for: ["adoptCat"]),
///         try RequestValidationMiddleware(document, authenticators: authenticators),
///         RateLimitMiddleware(RateLimit(10, per: .seconds(3600), by: .principal), for: ["getReport"]),
///     ])
///
/// The operations of the scope share its buckets: give each its own middleware for a quota of
/// its own. A limit by client counts the address `RequestContext.current?.client` gives (the
/// peer, or what trusted reverse proxies say); one by ``RateLimit/Key/principal`` counts
/// `RequestContext.current?.principal`, so place it after the middleware that authenticates
/// (``RequestValidationMiddleware``): before it, every request falls back to its client address.
/// A request outside a Whisker server's handler (no `RequestContext`) counts in one shared bucket.
public struct RateLimitMiddleware: ServerMiddleware {
    private let limit: RateLimit
    private let policy: RateLimitPolicy
    /// The limit's store, or a table in memory of this middleware's own.
    private let store: any RateLimitStore
    private let scope: OperationScope
    private let logger: Logger?

    /// A rate limit for the operations of `operations`.
    /// - Parameters:
    ///   - limit: The quota, its window, whose requests share a bucket, and the most buckets kept.
    ///   - name: The policy's name in `RateLimit-Policy` and `RateLimit`: by default the
    ///     operation's `operationId` when the scope names one, else `default`.
    ///   - operations: The operations it counts; the others pass uncounted.
    ///   - logger: Where refusals are logged (`info`): `nil` (the default) logs to swift-log's
    ///     `Logger.current`, bound by Whisker for every request with its `request_id`.
    public init(_ limit: RateLimit, named name: String? = nil, for operations: OperationScope = .all, logger: Logger? = nil) {
        let name = name ?? operations.single ?? "default"
        self.limit = limit
        policy = RateLimitPolicy(limit, name: name)
        store = limit.store ?? RateLimiter(limit, name: name)
        scope = operations
        self.logger = logger
    }

    /// Takes a token for the request, then passes it on and adds the limit's fields to the
    /// answer, or answers `429`.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard scope.contains(operationID) else { return try await next(request, body, metadata) }
        let context = RequestContext.current
        let key = RateLimitKey(RateLimiter.key(client: context?.client, principal: context?.principal?.name, by: limit.key))
        let decision: RateLimitDecision
        do {
            decision = try await store.take(key, policy: policy)
        } catch {
            return try await limit.whenStoreFails.answer(
                error, for: "rate limit", running: "allowed, unlimited", request, body: body, metadata: metadata,
                operationID: operationID, logger: logger ?? Logger.current, next: next
            )
        }
        let fields = policy.fields(for: decision)
        guard decision.allowed else {
            let detail = "more than \(limit.requests) requests in \(limit.window.inSeconds); retry in \(decision.retryAfter ?? 1) s"
            (logger ?? Logger.current).info("request refused", metadata: [
                "operation": "\(operationID)", "status": "429", "error": "rate limit: \(detail)",
            ], source: logSource)
            return ProblemDetails(status: .tooManyRequests, detail: detail).response(to: request, fields: fields).openAPI
        }
        var (head, responseBody) = try await next(request, body, metadata)
        head.headerFields.append(contentsOf: fields)
        return (head, responseBody)
    }
}
