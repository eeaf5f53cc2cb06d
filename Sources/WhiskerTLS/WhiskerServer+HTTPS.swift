public import WhiskerCore

extension WhiskerServer.Listener {
    /// HTTPS (and h2 through ALPN, with HTTP/2 on) on a TCP port, presenting its own certificate.
    ///
    ///     configuration.listeners = [
    ///         .tcp(port: 8080),
    ///         .https(port: 8443, tls: TLSConfiguration(certificateChainPath: "cats.pem", privateKeyPath: "cats-key.pem")),
    ///     ]
    ///
    /// For HTTPS only, leave the cleartext listener out. ALPN offers `h2` only when HTTP/2 is on
    /// (`configuration.http2`, WhiskerHTTP2).
    /// - Parameters:
    ///   - host: A numeric IPv4 or IPv6 address, or `localhost`.
    ///   - port: The port; 0 picks a free one.
    ///   - tls: The certificate, key, versions and ALPN protocols.
    public static func https(host: String = "127.0.0.1", port: Int, tls: TLSConfiguration) -> Self {
        Self(address: .tcp(host: host, port: port), secure: TLSListener(tls: tls))
    }

    /// TLS on a listening socket systemd passed (socket activation), presenting `tls`'s certificate.
    public static func inheritedHTTPS(_ descriptor: SystemdSocketActivation.Descriptor, tls: TLSConfiguration) -> Self {
        Self(address: .inherited(descriptor), secure: TLSListener(tls: tls))
    }

    /// The certificate, key and versions this listener presents, or `nil` for cleartext.
    public var tls: TLSConfiguration? { (secure as? TLSListener)?.tls }

    /// This listener presenting `tls` instead (a cleartext listener becomes an HTTPS one).
    public func presenting(_ tls: TLSConfiguration) -> Self {
        var listener = self
        listener.secure = TLSListener(tls: tls)
        return listener
    }
}

extension SystemdSocketActivation {
    /// A listener for each socket systemd passed, in order: the ones whose name
    /// (`FileDescriptorName=`, `--fdname=` for `systemd-socket-activate`) is in `tlsNames` serve
    /// HTTPS with `tls`, the others cleartext HTTP.
    ///
    ///     if let activation = try SystemdSocketActivation.fromEnvironment() {
    ///         configuration.listeners = try activation.listeners(https: tls)
    ///     }
    ///
    /// - Parameters:
    ///   - tls: The certificate for the TLS sockets; `nil` when there is none.
    ///   - tlsNames: The names of the sockets to serve with TLS.
    ///   - servesCleartext: Whether a socket not named for TLS may serve cleartext HTTP.
    /// - Throws: ``/WhiskerCore/WhiskerServerError`` naming the socket: one named for TLS without
    ///   `tls`, a cleartext one when `servesCleartext` is `false`, or `tls` given with no socket
    ///   named for it.
    public func listeners(
        https tls: TLSConfiguration?, tlsNames: Set<String> = defaultTLSNames, servesCleartext: Bool = true
    ) throws(WhiskerServerError) -> [WhiskerServer.Listener] {
        let names = tlsNames.sorted().map { "\"\($0)\"" }.joined(separator: " or ")
        var listeners: [WhiskerServer.Listener] = []
        for descriptor in descriptors {
            if tlsNames.contains(descriptor.name) {
                guard let tls else {
                    throw WhiskerServerError("the inherited socket \(descriptor) is named for TLS, but no TLS certificate is configured")
                }
                listeners.append(.inheritedHTTPS(descriptor, tls: tls))
            } else {
                guard servesCleartext else {
                    throw WhiskerServerError("the inherited socket \(descriptor) would serve cleartext HTTP, but cleartext is off; name it \(names) to serve TLS on it")
                }
                listeners.append(.inherited(descriptor))
            }
        }
        if tls != nil, !listeners.contains(where: \.isTLS) {
            throw WhiskerServerError("a TLS certificate is configured, but no inherited socket is named \(names) to serve it on (the names are \(descriptors.map(\.name).joined(separator: ":")))")
        }
        return listeners
    }
}

extension WhiskerServer.Configuration {
    /// Serves HTTPS with `tls` where a configuration built from settings (keys, flags) expects it:
    /// on the HTTPS listeners there are, each presenting `tls` instead (and moved to `port` if
    /// given); else on the sockets systemd passed that are named for TLS (`https`, `tls`); else on
    /// a new HTTPS listener at `host` (else the first TCP listener's) and `port` (8443), after the
    /// listeners that serve the routes.
    ///
    /// - Throws: ``/WhiskerCore/WhiskerServerError`` when the listeners are sockets systemd
    ///   passed and none is named for TLS.
    public mutating func serveHTTPS(_ tls: TLSConfiguration, port: Int? = nil, host: String? = nil) throws(WhiskerServerError) {
        let secure = listeners.indices.filter { listeners[$0].isTLS }
        if !secure.isEmpty {
            for index in secure {
                var listener = listeners[index].presenting(tls)
                if let port { listener = listener.binding(host: host, port: port) }
                listeners[index] = listener
            }
            return
        }
        let inherited = listeners.indices.compactMap { index -> (Int, SystemdSocketActivation.Descriptor)? in
            guard case .inherited(let descriptor) = listeners[index].address else { return nil }
            return (index, descriptor)
        }
        if !inherited.isEmpty {
            let named = inherited.filter { SystemdSocketActivation.defaultTLSNames.contains($0.1.name) }
            guard !named.isEmpty else {
                throw WhiskerServerError("socket activation passed no socket named \"https\" or \"tls\" to serve HTTPS on (the names are \(inherited.map(\.1.name).joined(separator: ":")))")
            }
            for (index, _) in named { listeners[index] = listeners[index].presenting(tls) }
            return
        }
        insertServingListener(.https(host: host ?? hostForNewListeners, port: port ?? 8443, tls: tls))
    }
}
