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
