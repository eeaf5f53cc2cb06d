import WhiskerCore

extension WhiskerServer.Configuration {
    /// `limits.*`: connections, request heads and bodies, and the slowest rates.
    mutating func applyLimitKeys(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        limits.maxConnections = try sources.integer("limits.maxConnections", in: 1...1_000_000) ?? limits.maxConnections
        limits.maxHeaderBytes = try sources.integer("limits.maxHeaderBytes", in: 1024...(16 << 20)) ?? limits.maxHeaderBytes
        if let size = try sources.integer("limits.maxRequestBodySize", in: 0...Int.max) {
            limits.maxRequestBodySize = Int64(size)
        }
        if let rate = try sources.integer("limits.minRequestBodyRate", in: 0...Int.max) {
            limits.minRequestBodyRate = rate == 0 ? nil : MinimumDataRate(bytesPerSecond: Double(rate))
        }
        if let rate = try sources.integer("limits.minResponseRate", in: 0...Int.max) {
            limits.minResponseRate = rate == 0 ? nil : MinimumDataRate(bytesPerSecond: Double(rate))
        }
    }

    /// `timeouts.*`, each in seconds.
    mutating func applyTimeoutKeys(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        timeouts.tlsHandshake = try sources.seconds("timeouts.tlsHandshake") ?? timeouts.tlsHandshake
        timeouts.requestHeader = try sources.seconds("timeouts.requestHeader") ?? timeouts.requestHeader
        timeouts.requestBody = try sources.seconds("timeouts.requestBody") ?? timeouts.requestBody
        timeouts.idle = try sources.seconds("timeouts.idle") ?? timeouts.idle
        timeouts.write = try sources.seconds("timeouts.write") ?? timeouts.write
        timeouts.shutdownGracePeriod = try sources.seconds("timeouts.shutdownGracePeriod") ?? timeouts.shutdownGracePeriod
    }
}
