import HTTPTypes
package import Logging
import Synchronization

/// What every connection of a running server shares: routes, configuration, logger, what observes
/// requests (`nil` when nothing does) and what is done to every response. Immutable.
package struct ServerContext: Sendable {
    let router: Router<Route>
    package let configuration: WhiskerServer.Configuration
    /// What the configuration's features contribute (``ServerFeature``), gathered once.
    package let contributions: ServerFeatureContributions
    let observer: (any RequestObserver)?
    let responseSteps: ResponseSteps
    /// The logger, access log, steps and observer, as each handler's task takes them.
    let handlerRun: HandlerRunShared
    /// Who answers before routing, in order (``EarlyAnswer``): the health checks, CORS preflights.
    let earlyAnswers: [any EarlyAnswer]
    /// The protocols a connection may be handed to, in order (``ProtocolHandover``).
    package let handovers: [any ProtocolHandover]
    /// The methods of a path, for the early answers: one closure for the server, not one a request.
    let routeMethods: @Sendable (Substring) -> [HTTPRequest.Method]
    /// Whether the server takes new work (what WhiskerHealth's readiness route says).
    let readiness: Readiness
    /// The configuration's limits, with the largest request body any route accepts: what a
    /// connection enforces before a request is routed (each route's own limit is applied after).
    package let connectionLimits: WhiskerServer.Limits
    package var logger: Logger { configuration.logger }
    /// The server trusts reverse proxies (WhiskerProxies): a pre-routing upgrade through one
    /// would be a tunnel past it.
    package var trustsProxies: Bool { contributions.proxyTrust != nil }

    init(router: Router<Route>, configuration: WhiskerServer.Configuration, readiness: Readiness = Readiness(), largestBodyLimit: Int64?? = nil) {
        self.router = router
        self.configuration = configuration
        self.readiness = readiness
        var limits = configuration.limits
        if let largestBodyLimit { limits.maxRequestBodySize = largestBodyLimit }
        self.connectionLimits = limits
        let contributions = ServerFeatureContributions(configuration)
        self.contributions = contributions
        self.observer = ObserverChain.make(contributions.requestObservers + [configuration.requestObserver].compactMap { $0 })
        self.responseSteps = ResponseSteps(configuration, featureSteps: contributions.responseSteps)
        self.handlerRun = HandlerRunShared(logger: configuration.logger, accessLog: configuration.accessLog, steps: responseSteps, observer: observer)
        // Stable: answers of one order keep the order their features were added in.
        self.earlyAnswers = contributions.earlyAnswers.enumerated().sorted { ($0.element.order, $0.offset) < ($1.element.order, $1.offset) }.map(\.element)
        self.handovers = contributions.protocolHandovers
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
