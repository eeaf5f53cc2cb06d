#if Configuration
public import WhiskerConfiguration
public import WhiskerCore

extension WhiskerServer.ConfigurationKeys {
    /// `proxies.trusted` (the reverse proxies believed about the client, each an address range, or
    /// `RANGE=FIELD` for proxies that set another field), replacing any the configuration had;
    /// `proxies.forwardedFields`, `proxies.forwardingField` and the PROXY protocol's
    /// `proxies.proxyProtocol`, `proxies.proxyProtocolSockets` and `proxies.headerTimeout` adjust
    /// them and need them. (The PROXY protocol's keys say which listeners expect a header: they
    /// stay as they are until the listeners' redesign, issue 39 item 2.)
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
            proxies.proxyProtocol = []
            for name in listeners.items {
                switch name {
                case "http": proxies.proxyProtocol.insert(.cleartext)
                case "https": proxies.proxyProtocol.insert(.https)
                default: throw listeners.mustBe("http, https or http,https")
                }
            }
        }
        proxies.proxyProtocolSocketNames = sockets.map(Set.init) ?? proxies.proxyProtocolSocketNames
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
