import WhiskerCore
import WhiskerProxies

extension WhiskerServer.Configuration {
    /// `proxies.*`: the trusted reverse proxies, replacing any the configuration had when
    /// `proxies.trusted` is set; the other keys adjust them and need them.
    mutating func applyProxyKeys(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        if let ranges = try sources.list("proxies.trusted"), !ranges.isEmpty {
            do {
                reverseProxies = try WhiskerServer.ReverseProxies(trusting: ranges)
            } catch {
                throw WhiskerServer.ConfigurationError(key: "proxies.trusted", "\(sources.origin(of: "proxies.trusted")): \(error)")
            }
        }
        let listeners = try sources.value("proxies.proxyProtocol")
        let sockets = try sources.list("proxies.proxyProtocolSockets")
        let timeout = try sources.seconds("proxies.headerTimeout")
        let forwarded = try sources.bool("proxies.forwardedFields")
        guard var proxies = reverseProxies else {
            if let key = ["proxies.proxyProtocol", "proxies.proxyProtocolSockets", "proxies.headerTimeout", "proxies.forwardedFields"]
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
        reverseProxies = proxies
    }
}
