import HTTPTypes
import WhiskerCore

extension WhiskerServer.HealthChecks {
    /// The answer to a request for one of the health routes, or `nil` when `path` is neither:
    /// 200 or 503 to `GET` and `HEAD`, 405 to another method. Never cached.
    func answer(_ readMethod: @autoclosure () -> HTTPRequest.Method, path: Substring, isReady: Bool) -> LocalAnswer? {
        let status: HTTPResponse.Status
        let text: String
        if path == livenessPath {
            (status, text) = (.ok, "ok\n")
        } else if path == readinessPath {
            (status, text) = isReady ? (.ok, "ready\n") : (.serviceUnavailable, "draining\n")
        } else {
            return nil
        }
        // Read only for a health path: `HTTPRequest.method` parses its field on every read.
        let method = readMethod()
        guard method == .get || method == .head else {
            return .rejection(HTTPRejection(.methodNotAllowed, "\(method.rawValue) is not allowed here; allowed: GET, HEAD"), fields: [.allow: "GET, HEAD"])
        }
        return .response(Response(status: status, headerFields: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"], body: .init(string: text)))
    }

    /// The answer on the health checks' own listener to any other path.
    static let notFound = LocalAnswer.rejection(HTTPRejection(.notFound, "this listener serves only the health checks"))
}

/// The health checks as a feature: an ``EarlyAnswer``, first of all, on every listener, or only
/// (and there to every path) on their own (``HealthChecksOnly``); and the drain delay.
struct HealthChecksFeature: ServerFeature {
    let checks: WhiskerServer.HealthChecks

    func contribute(to contributions: inout ServerFeatureContributions) {
        let listeners = contributions.configuration.listeners
        let ownListener = listeners.contains(where: \.servesOnlyHealthChecks)
        contributions.add(HealthAnswer(checks: checks, haveOwnListener: ownListener))
        contributions.drainDelay = checks.drainDelay
    }
}

/// The health checks' answer before routing.
struct HealthAnswer: EarlyAnswer {
    let checks: WhiskerServer.HealthChecks
    /// Some listener serves only the health checks, so the others do not answer them.
    let haveOwnListener: Bool

    func answer(_ head: HTTPRequest, path: Substring, context: EarlyAnswerContext) -> LocalAnswer? {
        // Without a listener of their own, no listener has the option: no lookup a request.
        let servesOnlyHealth = haveOwnListener && context.listenerOptions[HealthChecksOnly.self] != nil
        guard !haveOwnListener || servesOnlyHealth else { return nil }
        return checks.answer(head.method, path: path, isReady: context.isReady) ?? (servesOnlyHealth ? WhiskerServer.HealthChecks.notFound : nil)
    }
}
