package import Logging

/// What every connection of a running server shares: routes, configuration, logger, what observes
/// requests (`nil` when nothing does) and what is done to every response. Immutable.
package struct ServerContext: Sendable {
    let router: Router<Route>
    package let configuration: WhiskerServer.Configuration
    let observer: (any RequestObserver)?
    let responseSteps: ResponseSteps
    /// What the readiness route says (``WhiskerServer/HealthChecks``).
    let readiness: Readiness
    /// The health checks have a listener of their own (and the others do not answer them).
    let healthChecksHaveOwnListener: Bool
    /// The configuration's limits, with the largest request body any route accepts: what a
    /// connection enforces before a request is routed (each route's own limit is applied after).
    package let connectionLimits: WhiskerServer.Limits
    package var logger: Logger { configuration.logger }

    init(router: Router<Route>, configuration: WhiskerServer.Configuration, readiness: Readiness = Readiness(), largestBodyLimit: Int64?? = nil) {
        self.router = router
        self.configuration = configuration
        self.readiness = readiness
        self.healthChecksHaveOwnListener = configuration.healthChecksHaveOwnListener
        var limits = configuration.limits
        if let largestBodyLimit { limits.maxRequestBodySize = largestBodyLimit }
        self.connectionLimits = limits
        self.observer = configuration.requestObserver
        self.responseSteps = ResponseSteps(configuration)
    }
}
