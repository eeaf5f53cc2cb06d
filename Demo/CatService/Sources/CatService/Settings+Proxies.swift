import ArgumentParser
import Foundation
import Whisker

extension Settings {
    /// The reverse proxies and health checks from their flags, else their keys in the sources.
    mutating func readProxySettings(_ command: CatServiceCommand, _ sources: WhiskerServer.ConfigurationSources) throws {
        let rangeTexts = !command.trustedProxies.isEmpty ? command.trustedProxies : (try sources.list("proxies.trusted") ?? [])
        let source = !command.trustedProxies.isEmpty ? "--trusted-proxy" : sources.origin(of: "proxies.trusted")
        var proxies: WhiskerServer.ReverseProxies?
        var field = WhiskerServer.ForwardingField.xForwardedFor
        if let text = try command.forwardingField ?? sources.string("proxies.forwardingField") {
            guard let named = WhiskerServer.ForwardingField(text) else {
                let origin = command.forwardingField != nil ? "--forwarding-field" : sources.origin(of: "proxies.forwardingField")
                throw ValidationError("\(origin) must be X-Forwarded-For, Forwarded or none, got \"\(text)\"")
            }
            field = named
        }
        if !rangeTexts.isEmpty {
            do {
                // Each a range, or RANGE=FIELD for proxies that set another field.
                proxies = try WhiskerServer.ReverseProxies(trustingEntries: rangeTexts, forwardingField: field)
            } catch {
                throw ValidationError("\(source): \(error)")
            }
        } else if command.forwardingField != nil {
            throw ValidationError("--forwarding-field needs --trusted-proxy (or CAT_SERVICE_TRUSTED_PROXIES): the proxies that set it")
        }
        let listenerText = try command.proxyProtocol ?? sources.string("proxies.proxyProtocol")
        let sockets = !command.proxyProtocolSockets.isEmpty ? command.proxyProtocolSockets : (try sources.list("proxies.proxyProtocolSockets") ?? [])
        if listenerText != nil || !sockets.isEmpty {
            guard proxies != nil else {
                throw ValidationError("--proxy-protocol and --proxy-protocol-socket (or CAT_SERVICE_PROXY_PROTOCOL and CAT_SERVICE_PROXY_PROTOCOL_SOCKETS) need --trusted-proxy (or CAT_SERVICE_TRUSTED_PROXIES): the addresses whose PROXY header is believed")
            }
        }
        if let listenerText {
            for name in listenerText.split(separator: ",", omittingEmptySubsequences: false) {
                switch name.trimmingCharacters(in: .whitespaces) {
                case "http": proxies?.proxyProtocol.insert(.cleartext)
                case "https": proxies?.proxyProtocol.insert(.https)
                default:
                    throw ValidationError("\(command.proxyProtocol != nil ? "--proxy-protocol" : sources.origin(of: "proxies.proxyProtocol")) must be http, https or http,https, got \"\(listenerText)\"")
                }
            }
        }
        proxies?.proxyProtocolSocketNames = Set(sockets)
        if let timeout = try Self.seconds(command.proxyHeaderTimeout, flag: "--proxy-header-timeout", key: "proxies.headerTimeout", in: sources) {
            proxies?.proxyHeaderTimeout = timeout
        }
        proxies?.readsForwardedFields = try command.forwardedFields ?? sources.bool("proxies.forwardedFields") ?? true
        reverseProxies = proxies

        if try command.healthChecks ?? sources.bool("health.enabled") ?? true {
            var health = WhiskerServer.HealthChecks()
            if try command.healthPort != nil || sources.value("health.port") != nil {
                health.port = try Self.port(command.healthPort, flag: "--health-port", key: "health.port", in: sources, default: 0)
            }
            health.drainDelay = try Self.seconds(command.drainDelay, flag: "--drain-delay", key: "health.drainDelay", in: sources) ?? .zero
            healthChecks = health
        } else if command.healthPort != nil || command.drainDelay != nil {
            throw ValidationError("--health-port and --drain-delay need the health checks, which --no-health-checks (or CAT_SERVICE_HEALTH_CHECKS=false) turns off")
        }
    }
}
