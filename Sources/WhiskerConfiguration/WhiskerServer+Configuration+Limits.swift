public import WhiskerCore

extension WhiskerServer.ConfigurationKeys {
    /// The server's own settings: `workers`, `requestIDs`, `limits.*` (connections, request heads
    /// and bodies, the slowest rates) and `timeouts.*` (each in seconds).
    public static let server = Self([
        "workers", "requestIDs",
        "limits.maxConnections", "limits.maxHeaderBytes", "limits.maxRequestBodySize", "limits.minRequestBodyRate", "limits.minResponseRate",
        "timeouts.tlsHandshake", "timeouts.requestHeader", "timeouts.requestBody", "timeouts.idle", "timeouts.write", "timeouts.shutdownGracePeriod",
    ]) { configuration, sources throws(WhiskerServer.ConfigurationError) in
        configuration.io.workers = try sources.integer("workers", in: 1...256) ?? configuration.io.workers
        configuration.requestIDs = try sources.bool("requestIDs") ?? configuration.requestIDs
        configuration.limits = try WhiskerServer.Limits(sources, over: configuration.limits)
        configuration.timeouts = try WhiskerServer.Timeouts(sources, over: configuration.timeouts)
    }
}

extension WhiskerServer.Limits {
    /// `base`, changed by the `limits.*` keys that `sources` set.
    init(_ sources: WhiskerServer.ConfigurationSources, over base: Self) throws(WhiskerServer.ConfigurationError) {
        self = base
        maxConnections = try sources.integer("limits.maxConnections", in: 1...1_000_000) ?? maxConnections
        maxHeaderBytes = try sources.integer("limits.maxHeaderBytes", in: 1024...(16 << 20)) ?? maxHeaderBytes
        if let size = try sources.integer("limits.maxRequestBodySize", in: 0...Int.max) {
            maxRequestBodySize = Int64(size)
        }
        if let rate = try sources.integer("limits.minRequestBodyRate", in: 0...Int.max) {
            minRequestBodyRate = rate == 0 ? nil : MinimumDataRate(bytesPerSecond: Double(rate))
        }
        if let rate = try sources.integer("limits.minResponseRate", in: 0...Int.max) {
            minResponseRate = rate == 0 ? nil : MinimumDataRate(bytesPerSecond: Double(rate))
        }
    }
}

extension WhiskerServer.Timeouts {
    /// `base`, changed by the `timeouts.*` keys that `sources` set, each in seconds.
    init(_ sources: WhiskerServer.ConfigurationSources, over base: Self) throws(WhiskerServer.ConfigurationError) {
        self = base
        tlsHandshake = try sources.seconds("timeouts.tlsHandshake") ?? tlsHandshake
        requestHeader = try sources.seconds("timeouts.requestHeader") ?? requestHeader
        requestBody = try sources.seconds("timeouts.requestBody") ?? requestBody
        idle = try sources.seconds("timeouts.idle") ?? idle
        write = try sources.seconds("timeouts.write") ?? write
        shutdownGracePeriod = try sources.seconds("timeouts.shutdownGracePeriod") ?? shutdownGracePeriod
    }
}
