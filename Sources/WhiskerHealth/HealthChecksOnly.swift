public import WhiskerCore

/// The listener option of the health checks' own listener (`Listener.servingOnlyHealthChecks()`).
public struct HealthChecksOnly: ListenerOption, Equatable {
    /// The option.
    public init() {}

    public var logField: (name: String, value: String) { ("health_only", "true") }
    public var servesRoutes: Bool { false }

    public func validate(_ listener: WhiskerServer.Listener, in configuration: WhiskerServer.Configuration) throws(WhiskerServerError) {
        guard configuration.healthChecks != nil else {
            throw WhiskerServerError("a listener serves only the health checks (\(listener.address)), but none are configured (configuration.healthChecks)")
        }
    }
}

extension WhiskerServer.Listener {
    /// This listener answering only the health checks (`configuration.healthChecks`), on any path;
    /// the other listeners then do not answer them.
    ///
    ///     configuration.listeners = [.tcp(host: "0.0.0.0", port: 8080), .tcp(port: 9090).servingOnlyHealthChecks()]
    public func servingOnlyHealthChecks() -> Self { with(HealthChecksOnly()) }

    /// Whether this listener answers only the health checks.
    public var servesOnlyHealthChecks: Bool { options[HealthChecksOnly.self] != nil }
}
