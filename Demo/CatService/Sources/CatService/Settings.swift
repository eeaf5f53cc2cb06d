import ArgumentParser
import CatServiceCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import Whisker

/// cat-service's settings. The server's come from Whisker's key table: cat-service's defaults
/// (HTTP/2, compression and health checks on; CORS for /api/), then the sources (its `CAT_SERVICE_*`
/// environment variables, then the configuration file; see SettingsSources) read by the modules
/// themselves (`configuration.apply(_:reading:)`), then the flags given, layered on top. cat-service's
/// own keys (log level, tokens, policies, ...) are read here, each from its flag, else the sources.
/// A bad value is an error naming the flag, the variable, or the key and the file it came from.
struct Settings {
    /// The server's configuration: the defaults, the sources, then the flags.
    var configuration: WhiskerServer.Configuration
    var accessLog: Bool
    var metrics: Bool
    /// Requests checked against the document before the handlers run.
    var validation: Bool
    /// Responses checked against the document, violations logged and counted.
    var contractCheck: Bool
    /// A directory served at / beside the API (--static).
    var staticDirectory: String?
    /// Bearer tokens for GET /api/report: with reports:read, and known without it.
    var reportTokens: Set<String>
    var visitorTokens: Set<String>
    /// The event stream's and the census' deadlines, and the adoptions' rate limit.
    var policies = CatServiceOperations.Policies()
    /// The Redis URL the adoptions' rate limit and idempotency keys live in (--store), if any:
    /// the store itself is made when the server is, with its logger and metrics.
    var store: String?
    var logLevel: Logger.Level
    /// How the workers learn of readiness: epoll sets, or a Dispatch source per connection.
    var ioBackend = IOBackend.default

    /// The settings of `command` over `sources`, serving the sockets of `activation` (systemd
    /// socket activation) instead of binding, when there are any: they are the listeners before
    /// anything is read, so the keys and flags that make HTTPS or the PROXY protocol apply to them.
    init(_ command: CatServiceCommand, sources: WhiskerServer.ConfigurationSources, activation: SystemdSocketActivation? = nil) throws {
        var configuration = Self.defaults
        if let activation { configuration.listeners = activation.descriptors.map { .inherited($0) } }
        try configuration.apply(sources, reading: WhiskerServer.ConfigurationKeys.whisker)
        try configuration.exposeCORSForTheAPI(unless: sources)
        try configuration.layerFlags(command, activation: activation)
        self.configuration = configuration

        accessLog = try command.accessLog ?? sources.bool("accessLog") ?? false
        metrics = try command.metrics ?? sources.bool("metrics") ?? false
        validation = try command.validation ?? sources.bool("validation") ?? true
        contractCheck = try (command.contractCheck ? true : nil) ?? sources.bool("contractCheck") ?? false
        staticDirectory = try command.staticDirectory ?? sources.value("staticDirectory")?.text
        reportTokens = Set(!command.reportTokens.isEmpty ? command.reportTokens : (try sources.list("reportTokens") ?? []))
        visitorTokens = Set(!command.visitorTokens.isEmpty ? command.visitorTokens : (try sources.list("visitorTokens") ?? []))
        policies.streamDeadline = try Self.seconds(command.streamDeadline, flag: "--stream-deadline") ?? sources.seconds("streamDeadline") ?? policies.streamDeadline
        policies.censusDeadline = try Self.seconds(command.censusDeadline, flag: "--census-deadline") ?? sources.seconds("censusDeadline") ?? policies.censusDeadline
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
        if let url = try command.store ?? sources.value("store")?.text {
            do {
                _ = try RedisStore.Configuration(url: url)
            } catch {
                throw ValidationError("\(command.store != nil ? "--store" : sources.origin(of: "store")): \(error)")
            }
            store = url
        }
        if let text = try command.storeFailure ?? sources.choice("storeFailure", from: ["allow", "refuse"]) {
            guard let failure: StoreFailure = text == "allow" ? .allow : text == "refuse" ? .refuse : nil else {
                throw ValidationError("--store-failure must be allow or refuse, got \"\(text)\"")
            }
            policies.adoptions.whenStoreFails = failure
            policies.adoptionKeys.whenStoreFails = failure
        }
        if let level = command.logLevel {
            logLevel = level
        } else if let text = try sources.choice("logLevel", from: Logger.Level.allCases.map(\.rawValue)), let level = Logger.Level(rawValue: text) {
            logLevel = level
        } else {
            logLevel = .info
        }
        if let text = try command.ioBackend ?? sources.choice("ioBackend", from: ["epoll", "dispatch"]) {
            guard let backend = IOBackend(name: text) else {
                throw ValidationError("--io-backend must be epoll or dispatch, got \"\(text)\"")
            }
            ioBackend = backend
        }
        try checkTheWhole(activation: activation)
    }

    /// cat-service's defaults, which the sources and then the flags change: HTTP/2 (h2c and h2),
    /// compression both ways and the health checks on, where the library leaves them off.
    static var defaults: WhiskerServer.Configuration {
        var configuration = WhiskerServer.Configuration()
        // Set even when off: an HTTP/2 client with prior knowledge is then told so in HTTP/2.
        configuration.http2 = HTTP2Settings()
        configuration.compression = CompressionSettings()
        configuration.requestDecompression = RequestDecompressionSettings()
        configuration.healthChecks = WhiskerServer.HealthChecks()
        return configuration
    }

    /// Settings that cannot work together, once the sources and the flags are both in.
    private func checkTheWhole(activation: SystemdSocketActivation?) throws {
        if activation != nil { try checkTLSSockets() }
        guard configuration.listeners.contains(where: \.options.servesRoutes) else {
            throw ValidationError("--no-cleartext (or CAT_SERVICE_CLEARTEXT=false) needs a TLS certificate and key: there would be nothing to serve")
        }
        guard !configuration.cleartextHTTP2Only || configuration.http2 != nil else {
            throw ValidationError("--h2c-only (or CAT_SERVICE_H2C_ONLY=true) needs HTTP/2, which --no-http2 (or CAT_SERVICE_HTTP2=false) turns off")
        }
        guard !configuration.acceptsH2CUpgrade || configuration.http2 != nil else {
            throw ValidationError("--h2c-upgrade (or CAT_SERVICE_H2C_UPGRADE=true) needs HTTP/2, which --no-http2 (or CAT_SERVICE_HTTP2=false) turns off")
        }
        guard !configuration.acceptsH2CUpgrade || configuration.reverseProxies == nil else {
            throw ValidationError("--h2c-upgrade (or CAT_SERVICE_H2C_UPGRADE=true) is refused with --trusted-proxy (or CAT_SERVICE_TRUSTED_PROXIES): through a proxy that forwards Upgrade, a 101 opens a tunnel past it (h2c smuggling); a proxy reaches cat-service over h2c with prior knowledge (--h2c-only)")
        }
    }

    /// The sockets systemd passed named `https` or `tls`, as the keys and flags made them: one
    /// without a certificate is a `SettingsError` naming it.
    private func checkTLSSockets() throws {
        for listener in configuration.listeners {
            guard case .inherited(let descriptor) = listener.address, SystemdSocketActivation.defaultTLSNames.contains(descriptor.name), !listener.isTLS else { continue }
            throw SettingsError("socket activation passed \(descriptor) for HTTPS, but no certificate is set: give --tls-certificate and --tls-private-key (or CAT_SERVICE_TLS_CERTIFICATE and CAT_SERVICE_TLS_PRIVATE_KEY)")
        }
    }
}

extension WhiskerServer.Configuration {
    /// cat-service's CORS policy covers /api/ and lets pages read X-Request-ID, unless the sources
    /// say otherwise (`cors.pathPrefix`, `cors.exposedHeaders`).
    mutating func exposeCORSForTheAPI(unless sources: WhiskerServer.ConfigurationSources) throws {
        guard var policy = cors.first else { return }
        if try sources.value("cors.pathPrefix") == nil { policy.pathPrefix = "/api/" }
        if try sources.value("cors.exposedHeaders") == nil { policy.exposedHeaders = ["X-Request-ID"] }
        cors = [policy]
    }
}

/// Settings that cannot work together, found when the server starts; one line naming them.
struct SettingsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
