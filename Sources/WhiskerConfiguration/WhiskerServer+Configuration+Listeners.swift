public import WhiskerCore

// The listeners' keys edit `configuration.listeners` by role: the cleartext TCP listener (host,
// port, cleartext), the HTTPS one (tls.*, WhiskerTLS), the health checks' own (health.port,
// WhiskerHealth), a Unix domain socket (unixSocket.*, read last).
extension WhiskerServer.ConfigurationKeys {
    /// `host`, `port` and `cleartext`: the address every TCP listener binds, the cleartext
    /// listener's port, and whether there is one.
    public static let listeners = Self(["host", "port", "cleartext"]) { configuration, sources throws(WhiskerServer.ConfigurationError) in
        try configuration.applyListenerKeys(sources)
    }

    /// `unixSocket.path` and `unixSocket.mode`: a Unix domain socket beside the listeners the other
    /// keys made, before a health checks' own listener. Read it last.
    public static let unixSocket = Self(["unixSocket.path", "unixSocket.mode"]) { configuration, sources throws(WhiskerServer.ConfigurationError) in
        try configuration.applyUnixSocketKeys(sources)
    }
}

extension WhiskerServer.Configuration {
    /// Changes the listeners as settings that name a host, a port and whether cleartext is served
    /// do (the `host`, `port` and `cleartext` keys, a program's flags): `host` moves every TCP
    /// listener; `port` moves the cleartext TCP listener that serves the routes, adding one if
    /// there is none and no socket was inherited; `enabled` `false` removes the cleartext TCP
    /// listeners, `true` adds one if there is none (on 8080 without `port`). `nil` leaves each as it is.
    /// - Throws: ``/WhiskerCore/WhiskerServerError`` for `enabled` `false` with a socket systemd
    ///   passed that is not named for TLS (`SystemdSocketActivation.defaultTLSNames`):
    ///   it would serve cleartext.
    public mutating func setCleartextListener(host: String?, port: Int?, enabled: Bool?) throws(WhiskerServerError) {
        if let host { listeners = listeners.map { $0.binding(host: host) } }
        let inherits = listeners.contains { if case .inherited = $0.address { true } else { false } }
        if enabled == false {
            for listener in listeners where !listener.isTLS {
                guard case .inherited(let descriptor) = listener.address, !SystemdSocketActivation.defaultTLSNames.contains(descriptor.name) else { continue }
                throw WhiskerServerError("the inherited socket \(descriptor) would serve cleartext HTTP, but cleartext is off; name it \"https\" or \"tls\" (FileDescriptorName=) to serve HTTPS on it")
            }
            listeners.removeAll(where: \.isCleartextTCP)
        } else if let index = listeners.firstIndex(where: \.isCleartextTCP) {
            if let port { listeners[index] = listeners[index].binding(port: port) }
        } else if enabled == true || port != nil, !inherits {
            insertServingListener(.tcp(host: host ?? hostForNewListeners, port: port ?? 8080))
        }
    }

    /// Serves a Unix domain socket at `path` instead of any the listeners had (`nil`: the one
    /// they have), with the file mode `permissions` (`nil`: the one it had, else `0o660`).
    public mutating func setUnixDomainSocket(_ path: String?, permissions: UInt32?) {
        var current: (path: String, permissions: UInt32)?
        for listener in listeners {
            if case .unixDomainSocket(let path, let permissions) = listener.address { current = (path, permissions) }
        }
        guard let path = path ?? current?.path else { return }
        listeners.removeAll { if case .unixDomainSocket = $0.address { true } else { false } }
        insertServingListener(.unixDomainSocket(path, permissions: permissions ?? current?.permissions ?? 0o660))
    }

    /// `host`, `port`, `cleartext`.
    mutating func applyListenerKeys(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        let (host, port, enabled) = try (sources.string("host"), sources.port("port"), sources.bool("cleartext"))
        do {
            try setCleartextListener(host: host, port: port, enabled: enabled)
        } catch {
            throw WhiskerServer.ConfigurationError(key: "cleartext", "\(sources.origin(of: "cleartext")): \(error)")
        }
    }

    /// `unixSocket.path` and `unixSocket.mode`.
    mutating func applyUnixSocketKeys(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        var permissions: UInt32?
        if let mode = try sources.value("unixSocket.mode") {
            guard let octal = UInt32(mode.text, radix: 8), octal <= 0o777 else {
                throw mode.mustBe("permissions in octal, 0 to 777 (660: owner and group)")
            }
            permissions = octal
        }
        guard let path = try sources.string("unixSocket.path") else {
            if permissions != nil {
                throw WhiskerServer.ConfigurationError(key: "unixSocket.mode", "\(sources.origin(of: "unixSocket.mode")) needs unixSocket.path")
            }
            return
        }
        setUnixDomainSocket(path, permissions: permissions)
    }
}
