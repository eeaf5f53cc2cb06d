public import WhiskerCore

// The listeners' keys stay as they were (the listeners are being redesigned, issue 39 item 2):
// host, port and cleartext first, the Unix domain socket last, after every group whose keys imply
// listeners of their own (tls.port, health.port).
extension WhiskerServer.ConfigurationKeys {
    /// `host`, `port` and `cleartext`: the address the cleartext and HTTPS listeners bind, the
    /// cleartext listener's port, and whether it serves.
    public static let listeners = Self(["host", "port", "cleartext"]) { configuration, sources throws(WhiskerServer.ConfigurationError) in
        try configuration.applyListenerKeys(sources)
    }

    /// `unixSocket.path` and `unixSocket.mode`: a Unix domain socket beside the listeners the other
    /// keys imply. Read it last, after every group that implies a listener.
    public static let unixSocket = Self(["unixSocket.path", "unixSocket.mode"]) { configuration, sources throws(WhiskerServer.ConfigurationError) in
        try configuration.applyUnixSocketKeys(sources)
    }
}

extension WhiskerServer.Configuration {
    /// `host`, `port`, `cleartext`.
    mutating func applyListenerKeys(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        host = try sources.string("host") ?? host
        port = try sources.port("port") ?? port
        servesCleartext = try sources.bool("cleartext") ?? servesCleartext
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
