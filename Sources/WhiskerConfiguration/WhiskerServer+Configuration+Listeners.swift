import WhiskerCore

extension WhiskerServer.Configuration {
    /// `host`, `port`, `cleartext`, `workers`, `requestIDs`.
    mutating func applyListenerKeys(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        host = try sources.string("host") ?? host
        port = try sources.port("port") ?? port
        servesCleartext = try sources.bool("cleartext") ?? servesCleartext
        workers = try sources.integer("workers", in: 1...256) ?? workers
        requestIDs = try sources.bool("requestIDs") ?? requestIDs
    }

    /// `unixSocket.path` and `unixSocket.mode`: the listeners the rest implies, then the socket
    /// (before a health checks' own listener, which stays last).
    mutating func applyUnixSocketKeys(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        var permissions: UInt32 = 0o660
        if let mode = try sources.value("unixSocket.mode") {
            guard let octal = UInt32(mode.text, radix: 8), octal <= 0o777 else {
                throw mode.mustBe("permissions in octal, 0 to 777 (660: owner and group)")
            }
            permissions = octal
        }
        guard let path = try sources.string("unixSocket.path") else {
            if permissions != 0o660 {
                throw WhiskerServer.ConfigurationError(key: "unixSocket.mode", "\(sources.origin(of: "unixSocket.mode")) needs unixSocket.path")
            }
            return
        }
        let implied: [WhiskerServer.Listener]
        do {
            implied = try impliedListeners()
        } catch {
            throw WhiskerServer.ConfigurationError(key: "unixSocket.path", "\(sources.origin(of: "unixSocket.path")): \(error)")
        }
        listeners = implied.filter(\.options.servesRoutes)
            + [.unixDomainSocket(path, permissions: permissions)]
            + implied.filter { !$0.options.servesRoutes }
    }
}
