package import Logging

/// What every connection of a running server shares: routes, configuration, logger, and what
/// observes requests (`nil` when nothing does). Immutable.
package struct ServerContext: Sendable {
    let router: Router<Route>
    package let configuration: WhiskerServer.Configuration
    let observer: (any RequestObserver)?
    package var logger: Logger { configuration.logger }

    init(router: Router<Route>, configuration: WhiskerServer.Configuration) {
        self.router = router
        self.configuration = configuration
        self.observer = configuration.requestObserver
    }
}
