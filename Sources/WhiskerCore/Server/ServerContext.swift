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
    package var logger: Logger { configuration.logger }

    init(router: Router<Route>, configuration: WhiskerServer.Configuration, readiness: Readiness = Readiness()) {
        self.router = router
        self.configuration = configuration
        self.readiness = readiness
        self.observer = configuration.requestObserver
        self.responseSteps = ResponseSteps(configuration)
    }
}
