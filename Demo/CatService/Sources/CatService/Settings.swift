import ArgumentParser
import CatServiceCore
import Foundation
import Logging
import Whisker

/// cat-service's settings, each from its flag, else its `CAT_SERVICE_*` environment variable, else
/// its default. A bad value is a `ValidationError` naming the flag or the variable it came from.
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
    var limits = WhiskerServer.Limits()
    var timeouts = WhiskerServer.Timeouts()
    var reverseProxies: WhiskerServer.ReverseProxies?
    var healthChecks: WhiskerServer.HealthChecks?
    /// The CORS policy for /api/, if any origin is allowed.
    var cors: WhiskerServer.CORS?

    init(_ command: CatServiceCommand, environment: [String: String]) throws {
        let variables = Variables(environment)
        host = command.host ?? variables["CAT_SERVICE_HOST"] ?? "127.0.0.1"
        port = try Self.port(command.port, flag: "--port", variable: "CAT_SERVICE_PORT", in: variables, default: 8080)
        tlsPort = try Self.port(command.tlsPort, flag: "--tls-port", variable: "CAT_SERVICE_TLS_PORT", in: variables, default: 8443)
        unixSocket = command.unixSocket ?? variables["CAT_SERVICE_UNIX_SOCKET"]
        if let text = command.unixSocketMode ?? variables["CAT_SERVICE_UNIX_SOCKET_MODE"] {
            guard let mode = UInt32(text, radix: 8), mode <= 0o777 else {
                let source = command.unixSocketMode != nil ? "--unix-socket-mode" : "CAT_SERVICE_UNIX_SOCKET_MODE"
                throw ValidationError("\(source) must be permissions in octal, 0 to 777 (660: owner and group), got \"\(text)\"")
            }
            unixSocketMode = mode
        }
        tlsCertificate = command.tlsCertificate ?? variables["CAT_SERVICE_TLS_CERTIFICATE"]
        tlsPrivateKey = command.tlsPrivateKey ?? variables["CAT_SERVICE_TLS_PRIVATE_KEY"]
        cleartext = try command.cleartext ?? variables.bool("CAT_SERVICE_CLEARTEXT") ?? true
        http2 = try command.http2 ?? variables.bool("CAT_SERVICE_HTTP2") ?? true
        h2cOnly = try (command.h2cOnly ? true : nil) ?? variables.bool("CAT_SERVICE_H2C_ONLY") ?? false
        accessLog = try command.accessLog ?? variables.bool("CAT_SERVICE_ACCESS_LOG") ?? false
        requestIDs = try command.requestIDs ?? variables.bool("CAT_SERVICE_REQUEST_IDS") ?? false
        metrics = try command.metrics ?? variables.bool("CAT_SERVICE_METRICS") ?? false
        compression = try command.compression ?? variables.bool("CAT_SERVICE_COMPRESSION") ?? true
        requestDecompression = try command.requestDecompression ?? variables.bool("CAT_SERVICE_REQUEST_DECOMPRESSION") ?? true
        validation = try command.validation ?? variables.bool("CAT_SERVICE_VALIDATION") ?? true
        contractCheck = try (command.contractCheck ? true : nil) ?? variables.bool("CAT_SERVICE_CONTRACT_CHECK") ?? false
        reportTokens = Set(!command.reportTokens.isEmpty ? command.reportTokens : variables.list("CAT_SERVICE_REPORT_TOKENS"))
        visitorTokens = Set(!command.visitorTokens.isEmpty ? command.visitorTokens : variables.list("CAT_SERVICE_VISITOR_TOKENS"))
        policies.streamDeadline = try Self.seconds(command.streamDeadline, flag: "--stream-deadline", variable: "CAT_SERVICE_STREAM_DEADLINE", in: variables) ?? policies.streamDeadline
        policies.censusDeadline = try Self.seconds(command.censusDeadline, flag: "--census-deadline", variable: "CAT_SERVICE_CENSUS_DEADLINE", in: variables) ?? policies.censusDeadline
        if let text = command.adoptionRateLimit ?? variables["CAT_SERVICE_ADOPTION_RATE_LIMIT"] {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let requests = Int(parts[0]), (1...1_000_000).contains(requests),
                  let window = Double(parts[1]), window > 0, window <= 86_400
            else {
                let source = command.adoptionRateLimit != nil ? "--adoption-rate-limit" : "CAT_SERVICE_ADOPTION_RATE_LIMIT"
                throw ValidationError("\(source) must be REQUESTS/SECONDS (1 to 1000000 requests, above 0 and at most 86400 seconds), got \"\(text)\"")
            }
            policies.adoptions = RateLimit(requests, per: .milliseconds(Int64((window * 1000).rounded())))
        }
        if let level = command.logLevel {
            logLevel = level
        } else if let text = variables["CAT_SERVICE_LOG_LEVEL"] {
            guard let level = Logger.Level(rawValue: text) else {
                throw ValidationError("CAT_SERVICE_LOG_LEVEL must be trace, debug, info, notice, warning, error or critical, got \"\(text)\"")
            }
            logLevel = level
        } else {
            logLevel = .info
        }
        workers = try Self.number(command.workers, flag: "--workers", variable: "CAT_SERVICE_WORKERS", in: variables, range: 1...256) ?? workers
        limits.maxConnections = try Self.number(command.maxConnections, flag: "--max-connections", variable: "CAT_SERVICE_MAX_CONNECTIONS", in: variables, range: 1...1_000_000) ?? limits.maxConnections
        limits.maxHeaderBytes = try Self.number(command.maxHeaderBytes, flag: "--max-header-bytes", variable: "CAT_SERVICE_MAX_HEADER_BYTES", in: variables, range: 1024...(16 << 20)) ?? limits.maxHeaderBytes
        if let size = try Self.number(command.maxRequestBodySize, flag: "--max-request-body-size", variable: "CAT_SERVICE_MAX_REQUEST_BODY_SIZE", in: variables, range: 0...Int.max) {
            limits.maxRequestBodySize = Int64(size)
        }
        func rate(_ given: Int?, _ flag: String, _ variable: String, default value: MinimumDataRate?) throws -> MinimumDataRate? {
            guard let bytes = try Self.number(given, flag: flag, variable: variable, in: variables, range: 0...Int.max) else { return value }
            return bytes == 0 ? nil : MinimumDataRate(bytesPerSecond: Double(bytes))
        }
        limits.minRequestBodyRate = try rate(command.minRequestBodyRate, "--min-request-body-rate", "CAT_SERVICE_MIN_REQUEST_BODY_RATE", default: limits.minRequestBodyRate)
        limits.minResponseRate = try rate(command.minResponseRate, "--min-response-rate", "CAT_SERVICE_MIN_RESPONSE_RATE", default: limits.minResponseRate)
        func seconds(_ given: Double?, _ flag: String, _ variable: String, default value: Duration) throws -> Duration {
            try Self.seconds(given, flag: flag, variable: variable, in: variables) ?? value
        }
        timeouts.tlsHandshake = try seconds(command.tlsHandshakeTimeout, "--tls-handshake-timeout", "CAT_SERVICE_TLS_HANDSHAKE_TIMEOUT", default: timeouts.tlsHandshake)
        timeouts.requestHeader = try seconds(command.requestHeaderTimeout, "--request-header-timeout", "CAT_SERVICE_REQUEST_HEADER_TIMEOUT", default: timeouts.requestHeader)
        timeouts.requestBody = try seconds(command.requestBodyTimeout, "--request-body-timeout", "CAT_SERVICE_REQUEST_BODY_TIMEOUT", default: timeouts.requestBody)
        timeouts.idle = try seconds(command.idleTimeout, "--idle-timeout", "CAT_SERVICE_IDLE_TIMEOUT", default: timeouts.idle)
        timeouts.write = try seconds(command.writeTimeout, "--write-timeout", "CAT_SERVICE_WRITE_TIMEOUT", default: timeouts.write)
        timeouts.shutdownGracePeriod = try seconds(command.shutdownGracePeriod, "--shutdown-grace-period", "CAT_SERVICE_SHUTDOWN_GRACE_PERIOD", default: timeouts.shutdownGracePeriod)
        try readProxySettings(command, variables)
        let origins = !command.corsOrigins.isEmpty ? command.corsOrigins : variables.list("CAT_SERVICE_CORS_ORIGINS")
        let credentials = try (command.corsCredentials ? true : nil) ?? variables.bool("CAT_SERVICE_CORS_CREDENTIALS") ?? false
        if !origins.isEmpty {
            var cors = WhiskerServer.CORS(allowedOrigins: origins, pathPrefix: "/api/")
            cors.allowsCredentials = credentials
            cors.exposedHeaders = ["X-Request-ID"]
            do {
                try cors.validate()
            } catch {
                let source = !command.corsOrigins.isEmpty ? "--cors-origin" : "CAT_SERVICE_CORS_ORIGINS"
                throw ValidationError("\(source): \(error.description.replacingOccurrences(of: "configuration.cors: ", with: ""))")
            }
            self.cors = cors
        } else if credentials {
            throw ValidationError("--cors-credentials (or CAT_SERVICE_CORS_CREDENTIALS) needs --cors-origin (or CAT_SERVICE_CORS_ORIGINS)")
        }
        let requirement = command.tlsClientCertificate ?? variables["CAT_SERVICE_TLS_CLIENT_CERTIFICATE"]
        if let clientCA = command.tlsClientCA ?? variables["CAT_SERVICE_TLS_CLIENT_CA"] {
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

    /// The port the flag gives (`given`), else the variable, else the default; checked to be 0...65535.
    static func port(_ given: Int?, flag: String, variable: String, in variables: Variables, default value: Int) throws -> Int {
        if let given {
            guard (0...65535).contains(given) else { throw ValidationError("\(flag) must be between 0 and 65535, got \(given)") }
            return given
        }
        guard let text = variables[variable] else { return value }
        guard let port = Int(text), (0...65535).contains(port) else {
            throw ValidationError("\(variable) must be a whole number between 0 and 65535, got \"\(text)\"")
        }
        return port
    }
}

extension Settings {
    /// A whole number from the flag, else the variable, else `nil` (the default); checked to be in `range`.
    private static func number(_ given: Int?, flag: String, variable: String, in variables: Variables, range: ClosedRange<Int>) throws -> Int? {
        let bounds = range.upperBound == Int.max ? "at least \(range.lowerBound)" : "between \(range.lowerBound) and \(range.upperBound)"
        if let given {
            guard range.contains(given) else { throw ValidationError("\(flag) must be \(bounds), got \(given)") }
            return given
        }
        guard let text = variables[variable] else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw ValidationError("\(variable) must be a whole number \(bounds), got \"\(text)\"")
        }
        return number
    }

    /// A duration in seconds (fractions allowed) from the flag, else the variable, else `nil`;
    /// checked to be more than 0 and at most a day.
    static func seconds(_ given: Double?, flag: String, variable: String, in variables: Variables) throws -> Duration? {
        let valid: (Double) -> Bool = { $0 > 0 && $0 <= 86_400 }
        if let given {
            guard valid(given) else { throw ValidationError("\(flag) must be a number of seconds above 0 and at most 86400, got \(given)") }
            return .milliseconds(Int64((given * 1000).rounded()))
        }
        guard let text = variables[variable] else { return nil }
        guard let value = Double(text), valid(value) else {
            throw ValidationError("\(variable) must be a number of seconds above 0 and at most 86400, got \"\(text)\"")
        }
        return .milliseconds(Int64((value * 1000).rounded()))
    }
}

/// Settings that cannot work together, found when the server starts; one line naming them.
struct SettingsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The `CAT_SERVICE_*` variables; an empty one counts as unset.
struct Variables {
    let environment: [String: String]

    init(_ environment: [String: String]) { self.environment = environment }

    subscript(name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// A comma-separated list, each item trimmed; empty when unset.
    func list(_ name: String) -> [String] {
        (self[name] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func bool(_ name: String) throws -> Bool? {
        guard let text = self[name] else { return nil }
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ValidationError("\(name) must be true or false, got \"\(text)\"")
        }
    }
}
