#if Configuration
public import WhiskerConfiguration
public import WhiskerCore

extension WhiskerServer.ConfigurationKeys {
    /// `proxies.trusted` (the reverse proxies believed about the client, each an address range, or
    /// `RANGE=FIELD` for proxies that set another field), replacing any the configuration had;
    /// `proxies.forwardedFields`, `proxies.forwardingField` and the PROXY protocol's
    /// `proxies.proxyProtocol`, `proxies.proxyProtocolSockets` and `proxies.headerTimeout` adjust
    /// them and need them. The PROXY protocol's keys set which listeners expect a header:
    /// `proxies.proxyProtocol` the TCP ones by kind, `proxies.proxyProtocolSockets` the sockets
    /// systemd passed by name (read after socket activation made them listeners).
    public static let proxies = Self([
        "proxies.trusted", "proxies.proxyProtocol", "proxies.proxyProtocolSockets", "proxies.headerTimeout",
        "proxies.forwardedFields", "proxies.forwardingField",
    ]) { configuration, sources throws(WhiskerServer.ConfigurationError) in
        try configuration.applyProxyKeys(sources)
    }
}

extension WhiskerServer.Configuration {
    /// `proxies.*`: the trusted reverse proxies, replacing any the configuration had when
    /// `proxies.trusted` is set; the other keys adjust them and need them.
    mutating func applyProxyKeys(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        if let ranges = try sources.list("proxies.trusted"), !ranges.isEmpty {
            do {
                // Each a range, or a range and the field its proxies set: 192.0.2.0/24=Forwarded.
                reverseProxies = try WhiskerServer.ReverseProxies(trustingEntries: ranges)
            } catch {
                throw WhiskerServer.ConfigurationError(key: "proxies.trusted", "\(sources.origin(of: "proxies.trusted")): \(error)")
            }
        }
        let listeners = try sources.value("proxies.proxyProtocol")
        let sockets = try sources.list("proxies.proxyProtocolSockets")
        let timeout = try sources.seconds("proxies.headerTimeout")
        let forwarded = try sources.bool("proxies.forwardedFields")
        let field = try sources.value("proxies.forwardingField")
        guard var proxies = reverseProxies else {
            if let key = ["proxies.proxyProtocol", "proxies.proxyProtocolSockets", "proxies.headerTimeout", "proxies.forwardedFields", "proxies.forwardingField"]
                .first(where: { ((try? sources.value($0)) ?? nil) != nil })
            {
                throw WhiskerServer.ConfigurationError(key: key, "\(sources.origin(of: key)) needs proxies.trusted: the addresses whose word about the client is believed")
            }
            return
        }
        if let listeners {
            var kinds: WhiskerServer.ProxyProtocolListeners = []
            for name in listeners.items {
                switch name {
                case "http": kinds.insert(.cleartext)
                case "https": kinds.insert(.https)
                default: throw listeners.mustBe("http, https or http,https")
                }
            }
            expectProxyProtocol(on: kinds)
        }
        if let sockets {
            do {
                try expectProxyProtocol(onSocketsNamed: Set(sockets))
            } catch {
                throw WhiskerServer.ConfigurationError(key: "proxies.proxyProtocolSockets", "\(sources.origin(of: "proxies.proxyProtocolSockets")): \(error)")
            }
        }
        proxies.proxyHeaderTimeout = timeout ?? proxies.proxyHeaderTimeout
        proxies.readsForwardedFields = forwarded ?? proxies.readsForwardedFields
        if let field {
            guard let name = field.items.first, field.items.count == 1, let value = WhiskerServer.ForwardingField(name) else {
                throw field.mustBe("X-Forwarded-For, Forwarded or none")
            }
            proxies.forwardingField = value
        }
        reverseProxies = proxies
    }
}
#endif
