import HTTPTypes
package import Logging
import Synchronization

/// What every connection of a running server shares: routes, configuration, logger, what observes
/// requests (`nil` when nothing does) and what is done to every response. Immutable.
package struct ServerContext: Sendable {
    let router: Router<Route>
    package let configuration: WhiskerServer.Configuration
    let observer: (any RequestObserver)?
    let responseSteps: ResponseSteps
    /// Who answers before routing, in order (``EarlyAnswer``): the health checks, CORS preflights.
    let earlyAnswers: [any EarlyAnswer]
    /// A listener serves only the health checks.
    let healthChecksHaveOwnListener: Bool
    /// The methods of a path, for the early answers: one closure for the server, not one a request.
    let routeMethods: @Sendable (Substring) -> [HTTPRequest.Method]
    /// Whether the server takes new work (what WhiskerHealth's readiness route says).
    let readiness: Readiness
    /// The configuration's limits, with the largest request body any route accepts: what a
    /// connection enforces before a request is routed (each route's own limit is applied after).
    package let connectionLimits: WhiskerServer.Limits
    package var logger: Logger { configuration.logger }

    init(router: Router<Route>, configuration: WhiskerServer.Configuration, readiness: Readiness = Readiness(), largestBodyLimit: Int64?? = nil) {
        self.router = router
        self.configuration = configuration
        self.readiness = readiness
        var limits = configuration.limits
        if let largestBodyLimit { limits.maxRequestBodySize = largestBodyLimit }
        self.connectionLimits = limits
        self.observer = configuration.requestObserver
        self.responseSteps = ResponseSteps(configuration)
        self.earlyAnswers = configuration.earlyAnswers.values.sorted { $0.order < $1.order }
        self.healthChecksHaveOwnListener = configuration.healthChecksHaveOwnListener
        self.routeMethods = { [router] path in router.methods(path: path) }
    }
}

/// Whether the server takes new work: true while it runs, false from the moment a graceful
/// shutdown starts (WhiskerHealth's readiness route then answers 503). Shared by every connection.
final class Readiness: Sendable {
    private let ready = Atomic(false)

    var isReady: Bool { ready.load(ordering: .relaxed) }

    func set(_ value: Bool) { ready.store(value, ordering: .relaxed) }
}
