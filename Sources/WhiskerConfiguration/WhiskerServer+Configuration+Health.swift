import WhiskerCore
import WhiskerHealth

extension WhiskerServer.Configuration {
    /// `health.*`: `health.enabled` turns the checks on or off; a port or drain delay turns them
    /// on unless `health.enabled` says `false`, which they then contradict.
    mutating func applyHealthKeys(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        let enabled = try sources.bool("health.enabled")
        let port = try sources.port("health.port")
        let drainDelay = try sources.seconds("health.drainDelay")
        if enabled == false {
            if let key = port != nil ? "health.port" : drainDelay != nil ? "health.drainDelay" : nil {
                throw WhiskerServer.ConfigurationError(key: key, "\(sources.origin(of: key)) needs the health checks, which \(sources.origin(of: "health.enabled")) turns off")
            }
            healthChecks = nil
            return
        }
        guard enabled == true || port != nil || drainDelay != nil else { return }
        var checks = healthChecks ?? WhiskerServer.HealthChecks()
        checks.port = port ?? checks.port
        checks.drainDelay = drainDelay ?? checks.drainDelay
        healthChecks = checks
    }
}
