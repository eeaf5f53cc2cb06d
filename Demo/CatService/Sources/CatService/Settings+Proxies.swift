import ArgumentParser
import Foundation
import Whisker

extension Settings {
    /// The reverse proxies and health checks from their flags, else their `CAT_SERVICE_*` variables.
    mutating func readProxySettings(_ command: CatServiceCommand, _ variables: Variables) throws {
        let rangeTexts = !command.trustedProxies.isEmpty ? command.trustedProxies : variables.list("CAT_SERVICE_TRUSTED_PROXIES")
        let source = !command.trustedProxies.isEmpty ? "--trusted-proxy" : "CAT_SERVICE_TRUSTED_PROXIES"
        var proxies: WhiskerServer.ReverseProxies?
        if !rangeTexts.isEmpty {
            do {
                proxies = try WhiskerServer.ReverseProxies(trusting: rangeTexts)
            } catch {
                throw ValidationError("\(source): \(error)")
            }
        }
        let listenerText = command.proxyProtocol ?? variables["CAT_SERVICE_PROXY_PROTOCOL"]
        let sockets = !command.proxyProtocolSockets.isEmpty ? command.proxyProtocolSockets : variables.list("CAT_SERVICE_PROXY_PROTOCOL_SOCKETS")
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
                    throw ValidationError("\(command.proxyProtocol != nil ? "--proxy-protocol" : "CAT_SERVICE_PROXY_PROTOCOL") must be http, https or http,https, got \"\(listenerText)\"")
                }
            }
        }
        proxies?.proxyProtocolSocketNames = Set(sockets)
        if let timeout = try Self.seconds(command.proxyHeaderTimeout, flag: "--proxy-header-timeout", variable: "CAT_SERVICE_PROXY_HEADER_TIMEOUT", in: variables) {
            proxies?.proxyHeaderTimeout = timeout
        }
        proxies?.readsForwardedFields = try command.forwardedFields ?? variables.bool("CAT_SERVICE_FORWARDED_FIELDS") ?? true
        reverseProxies = proxies

        if try command.healthChecks ?? variables.bool("CAT_SERVICE_HEALTH_CHECKS") ?? true {
            var health = WhiskerServer.HealthChecks()
            if command.healthPort != nil || variables["CAT_SERVICE_HEALTH_PORT"] != nil {
                health.port = try Self.port(command.healthPort, flag: "--health-port", variable: "CAT_SERVICE_HEALTH_PORT", in: variables, default: 0)
            }
            health.drainDelay = try Self.seconds(command.drainDelay, flag: "--drain-delay", variable: "CAT_SERVICE_DRAIN_DELAY", in: variables) ?? .zero
            healthChecks = health
        } else if command.healthPort != nil || command.drainDelay != nil {
            throw ValidationError("--health-port and --drain-delay need the health checks, which --no-health-checks (or CAT_SERVICE_HEALTH_CHECKS=false) turns off")
        }
    }
}
