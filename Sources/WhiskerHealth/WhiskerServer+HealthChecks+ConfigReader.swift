#if Configuration
public import WhiskerConfiguration
public import WhiskerCore

extension WhiskerServer.ConfigurationKeys {
    /// `health.enabled`, `health.port` and `health.drainDelay`: `health.enabled` turns the checks
    /// on or off; a port or drain delay turns them on unless `health.enabled` says `false`, which
    /// they then contradict. `health.port` is the checks' own listener
    /// (`servingOnlyHealthChecks()`), replacing any they had, on the host of the others.
    public static let health = Self(["health.enabled", "health.port", "health.drainDelay"]) {
        configuration, sources throws(WhiskerServer.ConfigurationError) in
        let enabled = try sources.bool("health.enabled")
        let port = try sources.port("health.port")
        let drainDelay = try sources.seconds("health.drainDelay")
        if enabled == false {
            if let key = port != nil ? "health.port" : drainDelay != nil ? "health.drainDelay" : nil {
                throw WhiskerServer.ConfigurationError(key: key, "\(sources.origin(of: key)) needs the health checks, which \(sources.origin(of: "health.enabled")) turns off")
            }
            configuration.healthChecks = nil
            configuration.listeners.removeAll(where: \.servesOnlyHealthChecks)
            return
        }
        guard enabled == true || port != nil || drainDelay != nil else { return }
        var checks = configuration.healthChecks ?? WhiskerServer.HealthChecks()
        checks.drainDelay = drainDelay ?? checks.drainDelay
        configuration.healthChecks = checks
        if let port { configuration.serveHealthChecksAlone(port: port, host: try sources.string("host")) }
    }
}
#endif
