package import Logging

/// What every connection of a running server shares: routes, configuration, logger, what observes
/// requests (`nil` when nothing does) and what is done to every response. Immutable.
package struct ServerContext: Sendable {
    let router: Router<Route>
    package let configuration: WhiskerServer.Configuration
    let observer: (any RequestObserver)?
    let responseSteps: ResponseSteps
    /// Who answers before routing, in order: the health checks, then the modules' (``EarlyAnswer``).
    let earlyAnswers: [any EarlyAnswer]
    /// What the readiness route says (``WhiskerServer/HealthChecks``).
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
        let health = configuration.healthChecks.map { HealthAnswer(checks: $0, hasOwnListener: configuration.healthChecksHaveOwnListener) }
        self.earlyAnswers = (health.map { [$0] } ?? []) + configuration.earlyAnswers.values.sorted { $0.order < $1.order }
    }
}
