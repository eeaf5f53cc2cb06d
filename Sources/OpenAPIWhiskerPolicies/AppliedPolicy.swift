package import HTTPTypes
package import Logging
package import WhiskerCore

/// The source of this file's log lines: the transport's, as before the module was split from it
/// (issue 39), so that a filter on `[OpenAPIWhisker]` still sees them.
private let logSource = "OpenAPIWhisker"

/// An ``OperationPolicy`` ready to apply to its operation's requests: the deadline, the rate
/// limiter with its buckets, and the deprecation fields made once.
package struct AppliedPolicy: Sendable {
    /// The operationId (or `METHOD /path`), for log lines and the rate limit's name.
    let operation: String
    package let deadline: Duration?
    let deadlineStatus: HTTPResponse.Status
    let limiter: RateLimiter?
    /// `Deprecation`, `Sunset`, `Link`, for a deprecated operation.
    package let deprecation: HTTPFields?

    /// The policy of `operation`, or `nil` when there is nothing to apply: no policy, or one
    /// with only a body limit or rate (which the route applies), and no `deprecated` in the document.
    package init?(_ policy: OperationPolicy?, operation: String, deprecated: Bool) {
        let policy = policy ?? OperationPolicy()
        guard policy.deadline != nil || policy.rateLimit != nil || policy.deprecates || deprecated else { return nil }
        self.operation = operation
        deadline = policy.deadline
        deadlineStatus = policy.deadlineStatus
        limiter = policy.rateLimit.map { RateLimiter($0, name: operation) }
        deprecation = policy.deprecates || deprecated ? policy.deprecationFields() : nil
    }

    /// What the rate limit says of one more request: its fields, or `429` with `Retry-After`.
    package enum Admission {
        case admitted(HTTPFields)
        case refused(Response)
    }

    /// Where in a request a token is taken: a limit by client address before the checks read
    /// anything, one by principal once authentication has named it (or not).
    package enum Stage {
        case beforeChecks
        case afterAuthentication(Principal?)
    }

    /// Takes a token for `request` if its limit is counted at `stage` (else `nil`), from the bucket
    /// of its client (`RequestContext.client`) or of its principal.
    package func admit(_ request: Request, at stage: Stage, logger: Logger) -> Admission? {
        guard let limiter else { return nil }
        let limitKey = limiter.limit.key
        let principal: Principal?
        switch stage {
        case .beforeChecks where limitKey == .client: principal = nil
        case .afterAuthentication(let authenticated) where limitKey == .principal: principal = authenticated
        default: return nil
        }
        let client = RequestContext.current?.client ?? request.peer
        let decision = limiter.take(RateLimiter.key(client: client, principal: principal?.name, by: limitKey))
        let fields = limiter.fields(for: decision)
        guard !decision.allowed else { return .admitted(fields) }
        let detail = "more than \(limiter.limit.requests) requests in \(limiter.limit.window.inSeconds); retry in \(decision.retryAfter ?? 1) s"
        logger.info("request refused", metadata: ["operation": "\(operation)", "status": "429", "error": "rate limit: \(detail)"], source: logSource)
        return .refused(ProblemDetails(status: .tooManyRequests, detail: detail).response(to: request.head, fields: fields))
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
