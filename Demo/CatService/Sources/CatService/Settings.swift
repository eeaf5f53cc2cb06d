import ArgumentParser
import CatServiceCore
import Foundation
import Logging
import Whisker

/// cat-service's settings, each from its flag, else its key in the sources (its `CAT_SERVICE_*`
/// environment variable, else the configuration file; see SettingsSources), else its default. A bad
/// value is an error naming the flag, the variable, or the key and the file it came from.
struct Settings {
    var host: String
    var port: Int
    var tlsCertificate: String?
    var tlsPrivateKey: String?
    /// Mutual TLS: the client CAs, and whether a certificate is required.
    var clientCertificates: TLSConfiguration.ClientCertificates?
    var tlsPort: Int
    /// A Unix domain socket to serve on too, and its file's mode.
    var unixSocket: String?
    var unixSocketMode: UInt32 = 0o660
    var cleartext: Bool
    var http2: Bool
    var h2cOnly: Bool
    /// Upgrade: h2c answered with 101 on the cleartext port.
    var h2cUpgrade: Bool
    var accessLog: Bool
    var requestIDs: Bool
    var metrics: Bool
    var compression: Bool
    var requestDecompression: Bool
    /// Requests checked against the document before the handlers run.
    var validation: Bool
    /// Responses checked against the document, violations logged and counted.
    var contractCheck: Bool
    /// Bearer tokens for GET /api/report: with reports:read, and known without it.
    var reportTokens: Set<String>
    var visitorTokens: Set<String>
    /// The event stream's and the census' deadlines, and the adoptions' rate limit.
    var policies = CatServiceOperations.Policies()
    var logLevel: Logger.Level
    var workers = IOWorkerGroup.defaultCount
    /// How the workers learn of readiness: epoll sets, or a Dispatch source per connection.
    var ioBackend = IOBackend.default
    var limits = WhiskerServer.Limits()
    var timeouts = WhiskerServer.Timeouts()
    var reverseProxies: WhiskerServer.ReverseProxies?
    var healthChecks: WhiskerServer.HealthChecks?
    /// The CORS policy for /api/, if any origin is allowed.
    var cors: WhiskerServer.CORS?

    init(_ command: CatServiceCommand, sources: WhiskerServer.ConfigurationSources) throws {
        host = try command.host ?? sources.string("host") ?? "127.0.0.1"
        port = try Self.port(command.port, flag: "--port", key: "port", in: sources, default: 8080)
        tlsPort = try Self.port(command.tlsPort, flag: "--tls-port", key: "tls.port", in: sources, default: 8443)
        unixSocket = try command.unixSocket ?? sources.string("unixSocket.path")
        if let text = try command.unixSocketMode ?? sources.string("unixSocket.mode") {
            guard let mode = UInt32(text, radix: 8), mode <= 0o777 else {
                let source = command.unixSocketMode != nil ? "--unix-socket-mode" : sources.origin(of: "unixSocket.mode")
                throw ValidationError("\(source) must be permissions in octal, 0 to 777 (660: owner and group), got \"\(text)\"")
            }
            unixSocketMode = mode
        }
        tlsCertificate = try command.tlsCertificate ?? sources.string("tls.certificate")
        tlsPrivateKey = try command.tlsPrivateKey ?? sources.string("tls.privateKey")
        cleartext = try command.cleartext ?? sources.bool("cleartext") ?? true
        http2 = try command.http2 ?? sources.bool("http2.enabled") ?? true
        h2cOnly = try (command.h2cOnly ? true : nil) ?? sources.bool("http2.cleartextOnly") ?? false
        h2cUpgrade = try (command.h2cUpgrade ? true : nil) ?? sources.bool("http2.upgrade") ?? false
        accessLog = try command.accessLog ?? sources.bool("accessLog") ?? false
        requestIDs = try command.requestIDs ?? sources.bool("requestIDs") ?? false
        metrics = try command.metrics ?? sources.bool("metrics") ?? false
        compression = try command.compression ?? sources.bool("compression.enabled") ?? true
        requestDecompression = try command.requestDecompression ?? sources.bool("compression.requestDecompression") ?? true
        validation = try command.validation ?? sources.bool("validation") ?? true
        contractCheck = try (command.contractCheck ? true : nil) ?? sources.bool("contractCheck") ?? false
        reportTokens = Set(!command.reportTokens.isEmpty ? command.reportTokens : (try sources.list("reportTokens") ?? []))
        visitorTokens = Set(!command.visitorTokens.isEmpty ? command.visitorTokens : (try sources.list("visitorTokens") ?? []))
        policies.streamDeadline = try Self.seconds(command.streamDeadline, flag: "--stream-deadline", key: "streamDeadline", in: sources) ?? policies.streamDeadline
        policies.censusDeadline = try Self.seconds(command.censusDeadline, flag: "--census-deadline", key: "censusDeadline", in: sources) ?? policies.censusDeadline
        if let text = try command.adoptionRateLimit ?? sources.value("adoptionRateLimit")?.text {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let requests = Int(parts[0]), (1...1_000_000).contains(requests),
                  let window = Double(parts[1]), window > 0, window <= 86_400
            else {
                let source = command.adoptionRateLimit != nil ? "--adoption-rate-limit" : sources.origin(of: "adoptionRateLimit")
                throw ValidationError("\(source) must be REQUESTS/SECONDS (1 to 1000000 requests, above 0 and at most 86400 seconds), got \"\(text)\"")
            }
            policies.adoptions = RateLimit(requests, per: .milliseconds(Int64((window * 1000).rounded())))
        }
        if let level = command.logLevel {
            logLevel = level
        } else if let text = try sources.choice("logLevel", from: Logger.Level.allCases.map(\.rawValue)), let level = Logger.Level(rawValue: text) {
            logLevel = level
        } else {
            logLevel = .info
        }
        workers = try Self.number(command.workers, flag: "--workers", key: "workers", in: sources, range: 1...256) ?? workers
        if let text = try command.ioBackend ?? sources.choice("ioBackend", from: ["epoll", "dispatch"]) {
            guard let backend = IOBackend(name: text) else {
                throw ValidationError("--io-backend must be epoll or dispatch, got \"\(text)\"")
            }
            ioBackend = backend
        }
        limits.maxConnections = try Self.number(command.maxConnections, flag: "--max-connections", key: "limits.maxConnections", in: sources, range: 1...1_000_000) ?? limits.maxConnections
        limits.maxHeaderBytes = try Self.number(command.maxHeaderBytes, flag: "--max-header-bytes", key: "limits.maxHeaderBytes", in: sources, range: 1024...(16 << 20)) ?? limits.maxHeaderBytes
        if let size = try Self.number(command.maxRequestBodySize, flag: "--max-request-body-size", key: "limits.maxRequestBodySize", in: sources, range: 0...Int.max) {
            limits.maxRequestBodySize = Int64(size)
        }
        func rate(_ given: Int?, _ flag: String, _ key: String, default value: MinimumDataRate?) throws -> MinimumDataRate? {
            guard let bytes = try Self.number(given, flag: flag, key: key, in: sources, range: 0...Int.max) else { return value }
            return bytes == 0 ? nil : MinimumDataRate(bytesPerSecond: Double(bytes))
        }
        limits.minRequestBodyRate = try rate(command.minRequestBodyRate, "--min-request-body-rate", "limits.minRequestBodyRate", default: limits.minRequestBodyRate)
        limits.minResponseRate = try rate(command.minResponseRate, "--min-response-rate", "limits.minResponseRate", default: limits.minResponseRate)
        func seconds(_ given: Double?, _ flag: String, _ key: String, default value: Duration) throws -> Duration {
            try Self.seconds(given, flag: flag, key: key, in: sources) ?? value
        }
        timeouts.tlsHandshake = try seconds(command.tlsHandshakeTimeout, "--tls-handshake-timeout", "timeouts.tlsHandshake", default: timeouts.tlsHandshake)
        timeouts.requestHeader = try seconds(command.requestHeaderTimeout, "--request-header-timeout", "timeouts.requestHeader", default: timeouts.requestHeader)
        timeouts.requestBody = try seconds(command.requestBodyTimeout, "--request-body-timeout", "timeouts.requestBody", default: timeouts.requestBody)
        timeouts.idle = try seconds(command.idleTimeout, "--idle-timeout", "timeouts.idle", default: timeouts.idle)
        timeouts.write = try seconds(command.writeTimeout, "--write-timeout", "timeouts.write", default: timeouts.write)
        timeouts.shutdownGracePeriod = try seconds(command.shutdownGracePeriod, "--shutdown-grace-period", "timeouts.shutdownGracePeriod", default: timeouts.shutdownGracePeriod)
        try readProxySettings(command, sources)
        let origins = !command.corsOrigins.isEmpty ? command.corsOrigins : (try sources.list("cors.origins") ?? [])
        let credentials = try (command.corsCredentials ? true : nil) ?? sources.bool("cors.credentials") ?? false
        if !origins.isEmpty {
            var cors = WhiskerServer.CORS(allowedOrigins: origins, pathPrefix: "/api/")
            cors.allowsCredentials = credentials
            cors.exposedHeaders = ["X-Request-ID"]
            do {
                try cors.validate()
            } catch {
                let source = !command.corsOrigins.isEmpty ? "--cors-origin" : sources.origin(of: "cors.origins")
                throw ValidationError("\(source): \(error.description.replacingOccurrences(of: "configuration.cors: ", with: ""))")
            }
            self.cors = cors
        } else if credentials {
            throw ValidationError("--cors-credentials (or CAT_SERVICE_CORS_CREDENTIALS) needs --cors-origin (or CAT_SERVICE_CORS_ORIGINS)")
        }
        let requirement = try command.tlsClientCertificate ?? sources.choice("tls.clientCertificate", from: ["required", "optional"])
        if let clientCA = try command.tlsClientCA ?? sources.string("tls.clientCA") {
            guard requirement == nil || requirement == "required" || requirement == "optional" else {
                throw ValidationError("\(command.tlsClientCertificate != nil ? "--tls-client-certificate" : "CAT_SERVICE_TLS_CLIENT_CERTIFICATE") must be required or optional, got \"\(requirement ?? "")\"")
            }
            guard tlsCertificate != nil else {
                throw ValidationError("--tls-client-ca (or CAT_SERVICE_TLS_CLIENT_CA) needs HTTPS: give --tls-certificate and --tls-private-key")
            }
            clientCertificates = .init(trustedCAPath: clientCA, isRequired: requirement != "optional")
        } else if requirement != nil {
            throw ValidationError("--tls-client-certificate (or CAT_SERVICE_TLS_CLIENT_CERTIFICATE) needs --tls-client-ca (or CAT_SERVICE_TLS_CLIENT_CA)")
        }
        guard (tlsCertificate == nil) == (tlsPrivateKey == nil) else {
            throw ValidationError("--tls-certificate and --tls-private-key (or CAT_SERVICE_TLS_CERTIFICATE and CAT_SERVICE_TLS_PRIVATE_KEY) go together: give both, or neither")
        }
        guard cleartext || tlsCertificate != nil else {
            throw ValidationError("--no-cleartext (or CAT_SERVICE_CLEARTEXT=false) needs a TLS certificate and key: there would be nothing to serve")
        }
        guard !h2cOnly || http2 else {
            throw ValidationError("--h2c-only (or CAT_SERVICE_H2C_ONLY=true) needs HTTP/2, which --no-http2 (or CAT_SERVICE_HTTP2=false) turns off")
        }
        guard !h2cUpgrade || http2 else {
            throw ValidationError("--h2c-upgrade (or CAT_SERVICE_H2C_UPGRADE=true) needs HTTP/2, which --no-http2 (or CAT_SERVICE_HTTP2=false) turns off")
        }
        guard !h2cUpgrade || reverseProxies == nil else {
            throw ValidationError("--h2c-upgrade (or CAT_SERVICE_H2C_UPGRADE=true) is refused with --trusted-proxy (or CAT_SERVICE_TRUSTED_PROXIES): through a proxy that forwards Upgrade, a 101 opens a tunnel past it (h2c smuggling); a proxy reaches cat-service over h2c with prior knowledge (--h2c-only)")
        }
    }

    /// How to serve the sockets systemd passed (socket activation): the ones named `https` or
    /// `tls` with the TLS certificate, the rest as cleartext. A combination that cannot work is a
    /// `SettingsError` naming the socket and the setting, so the start fails with one line.
    func socketActivation(_ activation: SystemdSocketActivation) throws -> WhiskerServer.SocketActivation {
        let serving = WhiskerServer.SocketActivation(activation)
        let tlsNames = "\"https\" or \"tls\""
        for descriptor in activation.descriptors {
            if serving.servesTLS(descriptor) {
                guard tlsCertificate != nil else {
                    throw SettingsError("socket activation passed \(descriptor) for HTTPS, but no certificate is set: give --tls-certificate and --tls-private-key (or CAT_SERVICE_TLS_CERTIFICATE and CAT_SERVICE_TLS_PRIVATE_KEY)")
                }
            } else if !cleartext {
                throw SettingsError("socket activation passed \(descriptor) for cleartext HTTP, but --no-cleartext (or CAT_SERVICE_CLEARTEXT=false) is set: name it \(tlsNames) (FileDescriptorName=) to serve HTTPS on it")
            }
        }
        if tlsCertificate != nil, !activation.descriptors.contains(where: serving.servesTLS) {
            let names = activation.descriptors.map(\.name).joined(separator: ":")
            throw SettingsError("--tls-certificate (or CAT_SERVICE_TLS_CERTIFICATE) is set, but socket activation passed no socket named \(tlsNames) to serve HTTPS on (LISTEN_FDNAMES: \(names))")
        }
        let names = activation.descriptors.map(\.name)
        if let missing = reverseProxies?.proxyProtocolSocketNames.sorted().first(where: { !names.contains($0) }) {
            throw SettingsError("--proxy-protocol-socket (or CAT_SERVICE_PROXY_PROTOCOL_SOCKETS) names \"\(missing)\", but socket activation passed no socket with that name (LISTEN_FDNAMES: \(names.joined(separator: ":")))")
        }
        return serving
    }

    /// The port the flag gives (`given`), else the sources', else the default; checked to be 0...65535.
    static func port(_ given: Int?, flag: String, key: String, in sources: WhiskerServer.ConfigurationSources, default value: Int) throws -> Int {
        if let given {
            guard (0...65535).contains(given) else { throw ValidationError("\(flag) must be between 0 and 65535, got \(given)") }
            return given
        }
        return try sources.port(key) ?? value
    }
}

extension Settings {
    /// A whole number from the flag, else the sources, else `nil` (the default); checked to be in `range`.
    private static func number(_ given: Int?, flag: String, key: String, in sources: WhiskerServer.ConfigurationSources, range: ClosedRange<Int>) throws -> Int? {
        let bounds = range.upperBound == Int.max ? "at least \(range.lowerBound)" : "between \(range.lowerBound) and \(range.upperBound)"
        if let given {
            guard range.contains(given) else { throw ValidationError("\(flag) must be \(bounds), got \(given)") }
            return given
        }
        return try sources.integer(key, in: range)
    }

    /// A duration in seconds (fractions allowed) from the flag, else the sources, else `nil`;
    /// checked to be more than 0 and at most a day.
    static func seconds(_ given: Double?, flag: String, key: String, in sources: WhiskerServer.ConfigurationSources) throws -> Duration? {
        if let given {
            guard given > 0, given <= 86_400 else { throw ValidationError("\(flag) must be a number of seconds above 0 and at most 86400, got \(given)") }
            return .milliseconds(Int64((given * 1000).rounded()))
        }
        return try sources.seconds(key)
    }
}

/// Settings that cannot work together, found when the server starts; one line naming them.
struct SettingsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
