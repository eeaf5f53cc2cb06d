package import HTTPTypes
package import Logging
package import OpenAPIRuntime
package import WhiskerCore

/// The source of this module's log lines: the transport's, as before the module was split from it
/// (issue 39), so that a filter on `[OpenAPIWhisker]` still sees them.
let logSource = "OpenAPIWhisker"

/// The deadline of an ``OperationPolicy``, ready to apply to its operation's requests: the
/// transport races each request's whole chain (middlewares and handler) against it, which a
/// `ServerMiddleware` cannot do (its `next` does not escape, so it could not answer before a
/// handler that ignores cancellation ends).
package struct AppliedPolicy: Sendable {
    /// The operationId (or `METHOD /path`), for log lines.
    let operation: String
    package let deadline: Duration?
    let deadlineStatus: HTTPResponse.Status
    /// `Deprecation`, `Sunset`, `Link`, for a deprecated operation: added to the answer at the
    /// deadline, which no middleware sees.
    package let deprecation: HTTPFields?

    /// The deadline of `operation`'s policy, or `nil` when it has none.
    package init?(_ policy: OperationPolicy?, operation: String, deprecated: Bool) {
        guard let policy, let deadline = policy.deadline else { return nil }
        self.operation = operation
        self.deadline = deadline
        deadlineStatus = policy.deadlineStatus
        deprecation = policy.deprecates || deprecated ? policy.deprecationFields() : nil
    }

    /// The middlewares of `policy` for `operation`, around the document's checks, in the order
    /// `WhiskerTransport`'s one-line `policies:` has always applied them: deprecation (on every
    /// answer), a rate limit by client address, the checks (which name the principal), a rate
    /// limit by principal, idempotency keys (scoped by the principal, of a valid request), then
    /// the policy's own middlewares.
    /// - Parameters:
    ///   - deprecated: Whether the document marks the operation `deprecated`.
    ///   - idempotency: What the document's `x-idempotency` says, when the policy says nothing.
    ///   - validation: The document's checks of the operation, if any.
    package static func middlewares(
        _ policy: OperationPolicy?, operation: String, deprecated: Bool, idempotency: IdempotencyKeys.Requirement? = nil,
        validation: RequestValidationMiddleware?
    ) -> [any ServerMiddleware] {
        var chain: [any ServerMiddleware] = []
        let policy = policy ?? OperationPolicy()
        if policy.deprecates || deprecated {
            chain.append(DeprecationMiddleware(since: policy.deprecatedSince, sunset: policy.sunset, link: policy.deprecationLink, for: [operation]))
        }
        let rateLimit = policy.rateLimit.map { RateLimitMiddleware($0, named: operation, for: [operation]) }
        if policy.rateLimit?.key == .client, let rateLimit { chain.append(rateLimit) }
        if let validation { chain.append(validation) }
        if policy.rateLimit?.key == .principal, let rateLimit { chain.append(rateLimit) }
        if let keys = policy.idempotency ?? idempotency.map({ IdempotencyKeys($0) }) {
            chain.append(IdempotencyMiddleware(keys, for: [operation]))
        }
        chain += policy.middlewares
        return chain
    }

    /// The answer to a request whose handler missed the deadline (and was cancelled).
    package func missedDeadline(_ head: HTTPRequest, logger: Logger) -> Response {
        logger.warning("deadline passed", metadata: [
            "operation": "\(operation)", "deadline": "\((deadline ?? .zero).inSeconds)", "status": "\(deadlineStatus.code)", "path": "\(LogValue.quoted(LogRedaction.target(head.path ?? "")))",
        ], source: logSource)
        return ProblemDetails(status: deadlineStatus, detail: "the operation did not answer within its deadline (\((deadline ?? .zero).inSeconds))").response(to: head)
    }

    /// `response` with its streamed body ended at `end`: one of unknown length (an event stream)
    /// finishes there cleanly; one of known length is cut off (its length cannot be kept).
    package func ending(_ response: Response, at end: ContinuousClock.Instant, logger: Logger) -> Response {
        guard case .stream(let length, let write) = response.body.storage else { return response }
        var ended = response
        ended.body = ResponseBody(length: length) { [operation, deadline] writer in
            guard try await withDeadline(end, awaitingCancelledWork: true, { try await write(writer) }) == nil else { return }
            logger.warning("deadline passed", metadata: [
                "operation": "\(operation)", "deadline": "\((deadline ?? .zero).inSeconds)", "during": "the response body", "ended": length == nil ? "cleanly" : "cut off",
            ], source: logSource)
            if length != nil { throw DeadlinePassed() }
        }
        return ended
    }
}

/// A body of known length stopped at its operation's deadline.
struct DeadlinePassed: Error, CustomStringConvertible {
    var description: String { "the operation's deadline passed while its body was sent" }
}

extension Duration {
    /// Seconds as people write them: `60 s`, `1.5 s`.
    var inSeconds: String {
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int64(seconds)) s" : "\(seconds) s"
    }
}
