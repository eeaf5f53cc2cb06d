public import WhiskerCore

extension WhiskerServer {
    /// Liveness and readiness routes for load balancers and orchestrators, answered by the server
    /// itself before routing (handlers never see them; like every response they are in the access
    /// log and the metrics), over HTTP/1.1 and HTTP/2, to `GET` and `HEAD`:
    ///
    /// - ``livenessPath`` (`/healthz`): `200 ok` while the process serves at all.
    /// - ``readinessPath`` (`/readyz`): `200 ready` while the server takes new work; `503 draining`
    ///   from the moment a graceful shutdown starts. The listeners stay open for ``drainDelay``
    ///   after that, still serving, so that a balancer that polls readiness sees the 503 and stops
    ///   sending new requests before connections are refused; then the shutdown goes on as usual.
    ///
    ///     configuration.healthChecks = .init()
    ///     configuration.healthChecks?.drainDelay = .seconds(5)   // longer than the balancer's poll interval
    ///
    /// A listener of their own (`.tcp(port: 9090).servingOnlyHealthChecks()` among the
    /// configuration's listeners) answers them and nothing else, so that probes need neither TLS
    /// nor the PROXY protocol the main listeners may require; they are then not served on the others.
    public struct HealthChecks: Sendable, Equatable {
        /// The liveness route's path.
        public var livenessPath = "/healthz"
        /// The readiness route's path.
        public var readinessPath = "/readyz"
        /// How long readiness answers 503 before the listeners close, at the start of a graceful
        /// shutdown. Zero by default: the listeners close at once.
        public var drainDelay: Duration = .zero

        /// Creates the routes with the default paths.
        public init(livenessPath: String = "/healthz", readinessPath: String = "/readyz", drainDelay: Duration = .zero) {
            self.livenessPath = livenessPath
            self.readinessPath = readinessPath
            self.drainDelay = drainDelay
        }
    }
}

extension WhiskerServer.Configuration {
    /// Liveness and readiness routes answered by the server itself (``WhiskerCore/WhiskerServer/HealthChecks``),
    /// for balancers and orchestrators; `nil` (the default) for none.
    ///
    ///     import WhiskerHealth
    ///     configuration.healthChecks = .init(drainDelay: .seconds(5))
    ///
    /// A listener of the list may serve only them: `.tcp(port: 9090).servingOnlyHealthChecks()`.
    public var healthChecks: WhiskerServer.HealthChecks? {
        get { features[HealthChecksFeature.self]?.checks }
        set { features[HealthChecksFeature.self] = newValue.map(HealthChecksFeature.init) }
    }
}

extension WhiskerServer.Configuration {
    /// Serves the health checks on a cleartext listener of their own at `host` (else the first TCP
    /// listener's) and `port`, replacing any they had: what a setting that names their port does
    /// (`health.port`, a program's flag). Turns them on if they were off.
    public mutating func serveHealthChecksAlone(port: Int, host: String? = nil) {
        if healthChecks == nil { healthChecks = WhiskerServer.HealthChecks() }
        let listener = WhiskerServer.Listener.tcp(host: host ?? hostForNewListeners, port: port).servingOnlyHealthChecks()
        listeners.removeAll(where: \.servesOnlyHealthChecks)
        listeners.append(listener)
    }
}
