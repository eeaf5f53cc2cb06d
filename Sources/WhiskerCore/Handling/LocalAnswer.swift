public import HTTPTypes
import Logging

/// A response the server makes itself, without a handler: a health check's, a preflight's, or a
/// refusal (404, 405, 400, 408, 413, 415, 431, 503), which becomes problem details or plain text
/// as the client accepts (``ProblemDetails``). What an ``EarlyAnswer`` gives.
public enum LocalAnswer: Sendable {
    /// A response made whole (a health check, an allowed preflight, `OPTIONS *`).
    case response(Response)
    /// A refusal, with fields for its response (`Allow` for a 405).
    case rejection(HTTPRejection, fields: HTTPFields)

    /// A refusal without fields of its own.
    public static func rejection(_ rejection: HTTPRejection) -> Self { .rejection(rejection, fields: [:]) }

    /// The response, before the ``ResponseSteps``: a rejection as ``ProblemDetails`` naming `requestID`.
    package func response(to head: HTTPRequest?, requestID: String?) -> Response {
        switch self {
        case .response(let response): response
        case .rejection(let rejection, let fields):
            ProblemDetails(status: rejection.status, detail: rejection.reason, requestID: requestID).response(to: head, fields: fields)
        }
    }
}

extension ServerContext {
    /// The way out for every response the server makes itself, over any protocol: `answer` made
    /// a response for `head` (`nil`: a request whose head could not be read), through the
    /// ``ResponseSteps`` as a handler's response is, observed (``RequestObserver``) and written
    /// to the access log as one request; `write` sends it, synchronously.
    package func answer(_ answer: LocalAnswer, to head: HTTPRequest?, origin: RequestOrigin, write: (Response) -> Void) {
        self.answer(answer, to: head, context: requestContext(for: head, origin: origin), write: write)
    }

    func answer(_ answer: LocalAnswer, to head: HTTPRequest?, context: RequestContext, write: (Response) -> Void) {
        let started = ContinuousClock.now
        let response = self.response(for: answer, to: head, requestID: context.requestID)
        let status = Int(response.head.status.code)
        if let observer {
            observer.observeLocalResponse(to: head, status: status, context: context) { write(response) }
        } else {
            write(response)
        }
        let bytes = head?.method == .head ? 0 : response.localBody.count
        configuration.accessLog?.logAccess(head, status: status, bytes: bytes, since: started, context: context)
    }

    /// `answer` as it leaves for `head`, through the ``ResponseSteps``, not observed nor logged:
    /// for the answer to a request whose handler runs (a body refused under it), which the
    /// handler's run observes and logs.
    package func response(for answer: LocalAnswer, to head: HTTPRequest?, requestID: String?) -> Response {
        var response = answer.response(to: head, requestID: requestID)
        if let head {
            responseSteps.apply(to: &response, for: head, requestID: requestID)
        } else {
            responseSteps.applyWithoutRequest(to: &response, requestID: requestID)
        }
        return response
    }
}

extension Logger {
    /// The access log's line for one request (`GET /pets/7 200`; `- - 400` for a head that could not
    /// be read), with its status, body bytes, duration, protocol, client, peer and id. What the
    /// client sent is quoted where it could add a field (`LogValue`, issue 38): the request id,
    /// the client a proxy names, the certificate's subject, an odd request target.
    func logAccess(_ head: HTTPRequest?, status: Int, bytes: Int, since started: ContinuousClock.Instant, context: RequestContext) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        var metadata: Logger.Metadata = [
            "status": "\(status)", "bytes": "\(bytes)", "duration_ms": "\(Int(milliseconds.rounded()))",
            "protocol": "\(context.httpVersion.rawValue)", "client": "\(LogValue.quoted(context.client.port == 0 ? context.client.host : "\(context.client)"))",
            "peer": "\(context.peer)", "request_id": "\(LogValue.quoted(context.requestID ?? "-"))",
        ]
        if let certificate = context.tls?.clientCertificate { metadata["client_certificate"] = "\(LogValue.quoted(certificate.subject))" }
        let request = head.map { "\(LogValue.quoted($0.method.rawValue)) \(LogValue.target(LogRedaction.target($0.path ?? "")))" } ?? "- -"
        info("\(request) \(status)", metadata: metadata)
    }
}

extension ResponseHeadWriter {
    /// The answer when routing found no handler: 405 with `Allow` when other methods have the
    /// path (`allowed` not empty), else 404. `OPTIONS *` asks about the server as a whole
    /// (RFC 9110 §9.3.7): 204 with every method some route takes (`serverMethods`) in `Allow`.
    package static func routeMiss(method: HTTPRequest.Method, path: Substring, allowed: [HTTPRequest.Method], serverMethods: Set<HTTPRequest.Method>) -> LocalAnswer {
        if method == .options, path == "*" {
            let allow = serverMethods.union([.options]).map(\.rawValue).sorted().joined(separator: ", ")
            return .response(Response(status: .noContent, headerFields: [.allow: allow], body: .init(bytes: [])))
        }
        guard !allowed.isEmpty else { return .rejection(HTTPRejection(.notFound, "no route for \(path)")) }
        let allow = allowed.map(\.rawValue).joined(separator: ", ")
        return .rejection(HTTPRejection(.methodNotAllowed, "\(method.rawValue) is not allowed here; allowed: \(allow)"), fields: [.allow: allow])
    }
}
