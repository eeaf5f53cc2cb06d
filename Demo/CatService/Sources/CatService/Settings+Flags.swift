import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Whisker

extension WhiskerServer.Configuration {
    /// The flags given, over what the defaults and the sources made of the configuration: a flag
    /// changes its setting and leaves the rest as the sources set it. A bad flag value is an error
    /// naming the flag.
    mutating func layerFlags(_ command: CatServiceCommand, activation: SystemdSocketActivation?) throws {
        do {
            try setCleartextListener(host: command.host, port: Settings.port(command.port, flag: "--port"), enabled: command.cleartext)
        } catch let error as WhiskerServerError {
            throw SettingsError("--no-cleartext (or CAT_SERVICE_CLEARTEXT=false): \(error)")
        }
        io.workers = try Settings.number(command.workers, flag: "--workers", range: 1...256) ?? io.workers
        requestIDs = command.requestIDs ?? requestIDs
        try layerLimitFlags(command)
        try layerTLSFlags(command)
        if let enabled = command.http2 {
            http2 = enabled ? (http2 ?? HTTP2Settings()) : nil
        }
        if command.h2cOnly { cleartextHTTP2Only = true }
        if command.h2cUpgrade { acceptsH2CUpgrade = true }
        if let enabled = command.compression {
            compression = enabled ? (compression ?? CompressionSettings()) : nil
        }
        if let enabled = command.requestDecompression {
            requestDecompression = enabled ? (requestDecompression ?? RequestDecompressionSettings()) : nil
        }
        try layerCORSFlags(command)
        try layerProxyFlags(command, activation: activation)
        try layerHealthFlags(command)
        try layerUnixSocketFlags(command)
    }

    /// --unix-socket replaces the sources' socket; --unix-socket-mode sets its file's mode.
    private mutating func layerUnixSocketFlags(_ command: CatServiceCommand) throws {
        var permissions: UInt32?
        if let text = command.unixSocketMode {
            guard let mode = UInt32(text, radix: 8), mode <= 0o777 else {
                throw ValidationError("--unix-socket-mode must be permissions in octal, 0 to 777 (660: owner and group), got \"\(text)\"")
            }
            permissions = mode
        }
        if let path = command.unixSocket {
            setUnixDomainSocket(path, permissions: permissions)
        } else if let permissions {
            setUnixDomainSocket(nil, permissions: permissions)
        }
    }

    private mutating func layerLimitFlags(_ command: CatServiceCommand) throws {
        limits.maxConnections = try Settings.number(command.maxConnections, flag: "--max-connections", range: 1...1_000_000) ?? limits.maxConnections
        limits.maxHeaderBytes = try Settings.number(command.maxHeaderBytes, flag: "--max-header-bytes", range: 1024...(16 << 20)) ?? limits.maxHeaderBytes
        if let size = try Settings.number(command.maxRequestBodySize, flag: "--max-request-body-size", range: 0...Int.max) {
            limits.maxRequestBodySize = Int64(size)
        }
        if let bytes = try Settings.number(command.minRequestBodyRate, flag: "--min-request-body-rate", range: 0...Int.max) {
            limits.minRequestBodyRate = bytes == 0 ? nil : MinimumDataRate(bytesPerSecond: Double(bytes))
        }
        if let bytes = try Settings.number(command.minResponseRate, flag: "--min-response-rate", range: 0...Int.max) {
            limits.minResponseRate = bytes == 0 ? nil : MinimumDataRate(bytesPerSecond: Double(bytes))
        }
        timeouts.tlsHandshake = try Settings.seconds(command.tlsHandshakeTimeout, flag: "--tls-handshake-timeout") ?? timeouts.tlsHandshake
        timeouts.requestHeader = try Settings.seconds(command.requestHeaderTimeout, flag: "--request-header-timeout") ?? timeouts.requestHeader
        timeouts.requestBody = try Settings.seconds(command.requestBodyTimeout, flag: "--request-body-timeout") ?? timeouts.requestBody
        timeouts.idle = try Settings.seconds(command.idleTimeout, flag: "--idle-timeout") ?? timeouts.idle
        timeouts.write = try Settings.seconds(command.writeTimeout, flag: "--write-timeout") ?? timeouts.write
        timeouts.shutdownGracePeriod = try Settings.seconds(command.shutdownGracePeriod, flag: "--shutdown-grace-period") ?? timeouts.shutdownGracePeriod
    }

    /// HTTPS from --tls-certificate and --tls-private-key (either may complete the other's pair
    /// from the sources), on --tls-port; mutual TLS from --tls-client-ca.
    private mutating func layerTLSFlags(_ command: CatServiceCommand) throws {
        let port = try Settings.port(command.tlsPort, flag: "--tls-port")
        let current = listeners.lazy.compactMap(\.tls).first
        var tls = current
        if command.tlsCertificate != nil || command.tlsPrivateKey != nil {
            guard let certificate = command.tlsCertificate ?? current?.certificateChainPath, let key = command.tlsPrivateKey ?? current?.privateKeyPath else {
                throw ValidationError("--tls-certificate and --tls-private-key (or CAT_SERVICE_TLS_CERTIFICATE and CAT_SERVICE_TLS_PRIVATE_KEY) go together: give both, or neither")
            }
            var configured = current ?? TLSConfiguration(certificateChainPath: certificate, privateKeyPath: key)
            configured.certificateChainPath = certificate
            configured.privateKeyPath = key
            tls = configured
        }
        if let requirement = command.tlsClientCertificate, requirement != "required", requirement != "optional" {
            throw ValidationError("--tls-client-certificate must be required or optional, got \"\(requirement)\"")
        }
        if command.tlsClientCA != nil || command.tlsClientCertificate != nil {
            guard let clientCA = command.tlsClientCA ?? tls?.clientCertificates?.trustedCAPath else {
                throw ValidationError("--tls-client-certificate (or CAT_SERVICE_TLS_CLIENT_CERTIFICATE) needs --tls-client-ca (or CAT_SERVICE_TLS_CLIENT_CA)")
            }
            guard var configured = tls else {
                throw ValidationError("--tls-client-ca (or CAT_SERVICE_TLS_CLIENT_CA) needs HTTPS: give --tls-certificate and --tls-private-key")
            }
            let required = command.tlsClientCertificate.map { $0 == "required" } ?? configured.clientCertificates?.isRequired ?? true
            configured.clientCertificates = .init(trustedCAPath: clientCA, isRequired: required)
            tls = configured
        }
        guard let tls, tls != current || port != nil else { return }
        do {
            try serveHTTPS(tls, port: port, host: command.host)
        } catch {
            let names = listeners.compactMap { listener -> String? in
                if case .inherited(let descriptor) = listener.address { descriptor.name } else { nil }
            }
            throw SettingsError("--tls-certificate (or CAT_SERVICE_TLS_CERTIFICATE) is set, but socket activation passed no socket named \"https\" or \"tls\" to serve HTTPS on (LISTEN_FDNAMES: \(names.joined(separator: ":")))")
        }
    }

    /// --cors-origin replaces the sources' origins; --cors-credentials lets them send credentials.
    private mutating func layerCORSFlags(_ command: CatServiceCommand) throws {
        let current = cors.first
        guard !command.corsOrigins.isEmpty || command.corsCredentials else { return }
        var policy: WhiskerServer.CORS
        if !command.corsOrigins.isEmpty {
            policy = WhiskerServer.CORS(allowedOrigins: command.corsOrigins, pathPrefix: current?.pathPrefix ?? "/api/")
            policy.allowsCredentials = current?.allowsCredentials ?? false
            policy.exposedHeaders = current?.exposedHeaders ?? ["X-Request-ID"]
        } else if let current {
            policy = current
        } else {
            throw ValidationError("--cors-credentials (or CAT_SERVICE_CORS_CREDENTIALS) needs --cors-origin (or CAT_SERVICE_CORS_ORIGINS)")
        }
        if command.corsCredentials { policy.allowsCredentials = true }
        do {
            try policy.validate()
        } catch {
            let source = !command.corsOrigins.isEmpty ? "--cors-origin" : "--cors-credentials"
            throw ValidationError("\(source): \(error.description.replacing("configuration.cors: ", with: ""))")
        }
        cors = [policy]
    }

    /// The reverse proxies: --trusted-proxy replaces the sources' list (keeping their PROXY
    /// protocol and field settings); the other flags adjust them and need them.
    private mutating func layerProxyFlags(_ command: CatServiceCommand, activation: SystemdSocketActivation?) throws {
        var field: WhiskerServer.ForwardingField?
        if let text = command.forwardingField {
            guard let named = WhiskerServer.ForwardingField(text) else {
                throw ValidationError("--forwarding-field must be X-Forwarded-For, Forwarded or none, got \"\(text)\"")
            }
            field = named
        }
        var proxies = reverseProxies
        if !command.trustedProxies.isEmpty {
            do {
                // Each a range, or RANGE=FIELD for proxies that set another field.
                var trusted = try WhiskerServer.ReverseProxies(trustingEntries: command.trustedProxies, forwardingField: field ?? proxies?.forwardingField ?? .xForwardedFor)
                if let proxies {
                    trusted.proxyHeaderTimeout = proxies.proxyHeaderTimeout
                    trusted.readsForwardedFields = proxies.readsForwardedFields
                }
                proxies = trusted
            } catch {
                throw ValidationError("--trusted-proxy: \(error)")
            }
        } else if let field {
            guard proxies != nil else {
                throw ValidationError("--forwarding-field needs --trusted-proxy (or CAT_SERVICE_TRUSTED_PROXIES): the proxies that set it")
            }
            proxies?.forwardingField = field
        }
        if command.proxyProtocol != nil || !command.proxyProtocolSockets.isEmpty {
            guard proxies != nil else {
                throw ValidationError("--proxy-protocol and --proxy-protocol-socket (or CAT_SERVICE_PROXY_PROTOCOL and CAT_SERVICE_PROXY_PROTOCOL_SOCKETS) need --trusted-proxy (or CAT_SERVICE_TRUSTED_PROXIES): the addresses whose PROXY header is believed")
            }
        }
        if let text = command.proxyProtocol {
            var kinds: WhiskerServer.ProxyProtocolListeners = []
            for name in text.split(separator: ",", omittingEmptySubsequences: false) {
                switch trimmingSpacesAndTabs(name) {
                case "http": kinds.insert(.cleartext)
                case "https": kinds.insert(.https)
                default: throw ValidationError("--proxy-protocol must be http, https or http,https, got \"\(text)\"")
                }
            }
            expectProxyProtocol(on: kinds)
        }
        if !command.proxyProtocolSockets.isEmpty {
            do {
                try expectProxyProtocol(onSocketsNamed: Set(command.proxyProtocolSockets))
            } catch {
                let names = activation.map { $0.descriptors.map(\.name).joined(separator: ":") } ?? ""
                let missing = command.proxyProtocolSockets.sorted().first { name in !(activation?.descriptors.contains { $0.name == name } ?? false) } ?? ""
                throw SettingsError("--proxy-protocol-socket (or CAT_SERVICE_PROXY_PROTOCOL_SOCKETS) names \"\(missing)\", but socket activation passed no socket with that name (LISTEN_FDNAMES: \(names))")
            }
        }
        if let timeout = try Settings.seconds(command.proxyHeaderTimeout, flag: "--proxy-header-timeout") {
            proxies?.proxyHeaderTimeout = timeout
        }
        if let forwarded = command.forwardedFields {
            proxies?.readsForwardedFields = forwarded
        }
        reverseProxies = proxies
    }

    /// --health-checks / --no-health-checks, --health-port and --drain-delay.
    private mutating func layerHealthFlags(_ command: CatServiceCommand) throws {
        if let enabled = command.healthChecks {
            healthChecks = enabled ? (healthChecks ?? WhiskerServer.HealthChecks()) : nil
        }
        let port = try Settings.port(command.healthPort, flag: "--health-port")
        let drainDelay = try Settings.seconds(command.drainDelay, flag: "--drain-delay")
        guard port != nil || drainDelay != nil else { return }
        guard var checks = healthChecks else {
            throw ValidationError("--health-port and --drain-delay need the health checks, which --no-health-checks (or CAT_SERVICE_HEALTH_CHECKS=false) turns off")
        }
        checks.drainDelay = drainDelay ?? checks.drainDelay
        healthChecks = checks
        if let port { serveHealthChecksAlone(port: port, host: command.host) }
    }
}

extension Settings {
    /// The port a flag gives, checked to be 0...65535, or `nil` when the flag is not given.
    static func port(_ given: Int?, flag: String) throws -> Int? {
        guard let given else { return nil }
        guard (0...65535).contains(given) else { throw ValidationError("\(flag) must be between 0 and 65535, got \(given)") }
        return given
    }

    /// A whole number a flag gives, checked to be in `range`, or `nil` when the flag is not given.
    static func number(_ given: Int?, flag: String, range: ClosedRange<Int>) throws -> Int? {
        guard let given else { return nil }
        let bounds = range.upperBound == Int.max ? "at least \(range.lowerBound)" : "between \(range.lowerBound) and \(range.upperBound)"
        guard range.contains(given) else { throw ValidationError("\(flag) must be \(bounds), got \(given)") }
        return given
    }

    /// A duration in seconds (fractions allowed) a flag gives, checked to be more than 0 and at
    /// most a day, or `nil` when the flag is not given.
    static func seconds(_ given: Double?, flag: String) throws -> Duration? {
        guard let given else { return nil }
        guard given > 0, given <= 86_400 else { throw ValidationError("\(flag) must be a number of seconds above 0 and at most 86400, got \(given)") }
        return .milliseconds(Int64((given * 1000).rounded()))
    }
}

/// `text` without the spaces and tabs around it (what Foundation's `CharacterSet.whitespaces` trims).
private func trimmingSpacesAndTabs(_ text: Substring) -> Substring {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    let start = text.firstIndex { !blank($0) } ?? text.endIndex
    let end = text[start...].lastIndex { !blank($0) }.map(text.index(after:)) ?? start
    return text[start..<end]
}
