public import WhiskerCore

/// The listener option of a listener whose every connection starts with a PROXY protocol header
/// (`Listener.expectingProxyProtocol()`).
public struct ProxyProtocolFirst: ListenerOption, Equatable {
    /// The option.
    public init() {}

    public var logField: (name: String, value: String) { ("proxy_protocol", "true") }

    public func validate(_ listener: WhiskerServer.Listener, in configuration: WhiskerServer.Configuration) throws(WhiskerServerError) {
        guard configuration.reverseProxies != nil else {
            throw WhiskerServerError("the listener \(listener.address) expects the PROXY protocol, but no proxy is trusted (configuration.reverseProxies)")
        }
    }
}

extension WhiskerServer.Listener {
    /// This listener with every connection starting with a PROXY protocol header (v1 or v2) from
    /// one of the trusted proxies (`configuration.reverseProxies`); one that does not is closed.
    ///
    ///     configuration.listeners = [.tcp(host: "0.0.0.0", port: 8080).expectingProxyProtocol()]
    public func expectingProxyProtocol() -> Self { with(ProxyProtocolFirst()) }

    /// Whether connections here start with a PROXY protocol header.
    public var expectsProxyProtocol: Bool { options[ProxyProtocolFirst.self] != nil }
}

extension WhiskerServer.Configuration {
    /// Sets which TCP listeners expect the PROXY protocol by kind, as a setting that names kinds
    /// (`proxies.proxyProtocol: http,https`) does: the cleartext ones that serve the routes and
    /// the HTTPS ones in `kinds` expect it, the others of those two kinds no longer do.
    public mutating func expectProxyProtocol(on kinds: WhiskerServer.ProxyProtocolListeners) {
        for index in listeners.indices {
            let listener = listeners[index]
            guard case .tcp = listener.address, listener.options.servesRoutes else { continue }
            listeners[index].options[ProxyProtocolFirst.self] = kinds.contains(listener.isTLS ? .https : .cleartext) ? ProxyProtocolFirst() : nil
        }
    }

    /// Sets which sockets systemd passed expect the PROXY protocol, by name (`FileDescriptorName=`).
    /// - Throws: ``/WhiskerCore/WhiskerServerError`` for a name no listener's socket has.
    public mutating func expectProxyProtocol(onSocketsNamed names: Set<String>) throws(WhiskerServerError) {
        var seen: [String] = []
        for index in listeners.indices {
            guard case .inherited(let descriptor) = listeners[index].address else { continue }
            seen.append(descriptor.name)
            listeners[index].options[ProxyProtocolFirst.self] = names.contains(descriptor.name) ? ProxyProtocolFirst() : nil
        }
        if let missing = names.sorted().first(where: { !seen.contains($0) }) {
            let known = seen.isEmpty ? "no socket activation" : "the names are \(seen.joined(separator: ":"))"
            throw WhiskerServerError("no inherited socket is named \"\(missing)\" (\(known))")
        }
    }
}
