import ArgumentParser
import Configuration
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Whisker

/// Where cat-service's settings come from besides its flags, through swift-configuration: the
/// `CAT_SERVICE_*` environment variables, then the configuration file (`--config` or
/// `CAT_SERVICE_CONFIG`; JSON or YAML by its extension). Flags win over both; the environment wins
/// over the file, so that a deployment can override one setting of a shared file without editing it.
///
/// The keys are Whisker's configuration key table (`tls.port`, `limits.maxConnections`; see
/// `WhiskerServer.Configuration.init(_:)`) and cat-service's own (`logLevel`, `metrics`, ...);
/// `variableNames` gives each its environment variable.
enum SettingsSources {
    /// Each key's environment variable: the names cat-service has always read.
    static let variableNames: KeyValuePairs<String, String> = [
        "host": "CAT_SERVICE_HOST", "port": "CAT_SERVICE_PORT", "cleartext": "CAT_SERVICE_CLEARTEXT",
        "unixSocket.path": "CAT_SERVICE_UNIX_SOCKET", "unixSocket.mode": "CAT_SERVICE_UNIX_SOCKET_MODE",
        "tls.certificate": "CAT_SERVICE_TLS_CERTIFICATE", "tls.privateKey": "CAT_SERVICE_TLS_PRIVATE_KEY",
        "tls.port": "CAT_SERVICE_TLS_PORT", "tls.clientCA": "CAT_SERVICE_TLS_CLIENT_CA",
        "tls.clientCertificate": "CAT_SERVICE_TLS_CLIENT_CERTIFICATE",
        "http2.enabled": "CAT_SERVICE_HTTP2", "http2.cleartextOnly": "CAT_SERVICE_H2C_ONLY",
        "http2.upgrade": "CAT_SERVICE_H2C_UPGRADE",
        "workers": "CAT_SERVICE_WORKERS", "ioBackend": "CAT_SERVICE_IO_BACKEND", "requestIDs": "CAT_SERVICE_REQUEST_IDS",
        "limits.maxConnections": "CAT_SERVICE_MAX_CONNECTIONS", "limits.maxHeaderBytes": "CAT_SERVICE_MAX_HEADER_BYTES",
        "limits.maxRequestBodySize": "CAT_SERVICE_MAX_REQUEST_BODY_SIZE",
        "limits.minRequestBodyRate": "CAT_SERVICE_MIN_REQUEST_BODY_RATE", "limits.minResponseRate": "CAT_SERVICE_MIN_RESPONSE_RATE",
        "timeouts.tlsHandshake": "CAT_SERVICE_TLS_HANDSHAKE_TIMEOUT", "timeouts.requestHeader": "CAT_SERVICE_REQUEST_HEADER_TIMEOUT",
        "timeouts.requestBody": "CAT_SERVICE_REQUEST_BODY_TIMEOUT", "timeouts.idle": "CAT_SERVICE_IDLE_TIMEOUT",
        "timeouts.write": "CAT_SERVICE_WRITE_TIMEOUT", "timeouts.shutdownGracePeriod": "CAT_SERVICE_SHUTDOWN_GRACE_PERIOD",
        "cors.origins": "CAT_SERVICE_CORS_ORIGINS", "cors.credentials": "CAT_SERVICE_CORS_CREDENTIALS",
        "proxies.trusted": "CAT_SERVICE_TRUSTED_PROXIES", "proxies.proxyProtocol": "CAT_SERVICE_PROXY_PROTOCOL",
        "proxies.proxyProtocolSockets": "CAT_SERVICE_PROXY_PROTOCOL_SOCKETS", "proxies.headerTimeout": "CAT_SERVICE_PROXY_HEADER_TIMEOUT",
        "proxies.forwardedFields": "CAT_SERVICE_FORWARDED_FIELDS", "proxies.forwardingField": "CAT_SERVICE_FORWARDING_FIELD",
        "health.enabled": "CAT_SERVICE_HEALTH_CHECKS", "health.port": "CAT_SERVICE_HEALTH_PORT", "health.drainDelay": "CAT_SERVICE_DRAIN_DELAY",
        "compression.enabled": "CAT_SERVICE_COMPRESSION", "compression.requestDecompression": "CAT_SERVICE_REQUEST_DECOMPRESSION",
        // cat-service's own.
        "logLevel": "CAT_SERVICE_LOG_LEVEL", "accessLog": "CAT_SERVICE_ACCESS_LOG", "metrics": "CAT_SERVICE_METRICS",
        "validation": "CAT_SERVICE_VALIDATION", "contractCheck": "CAT_SERVICE_CONTRACT_CHECK",
        "reportTokens": "CAT_SERVICE_REPORT_TOKENS", "visitorTokens": "CAT_SERVICE_VISITOR_TOKENS",
        "streamDeadline": "CAT_SERVICE_STREAM_DEADLINE", "censusDeadline": "CAT_SERVICE_CENSUS_DEADLINE",
        "adoptionRateLimit": "CAT_SERVICE_ADOPTION_RATE_LIMIT", "staticDirectory": "CAT_SERVICE_STATIC",
        "store": "CAT_SERVICE_STORE", "storeFailure": "CAT_SERVICE_STORE_FAILURE",
    ]

    /// The configuration file `--config` names, else `CAT_SERVICE_CONFIG`, if any.
    static func configFile(_ command: CatServiceCommand, environment: [String: String]) -> String? {
        command.config ?? environment["CAT_SERVICE_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The environment, then the configuration file (read now, so a SIGHUP reads it again).
    static func load(environment: [String: String], file: String?) async throws -> WhiskerServer.ConfigurationSources {
        let names = Dictionary(uniqueKeysWithValues: variableNames.map { ($0.key, $0.value) })
        // A key without a name of its own reads CAT_SERVICE_ and its path: limits.x -> CAT_SERVICE_LIMITS_X.
        let variables = KeyMappingProvider(upstream: EnvironmentVariablesProvider(environmentVariables: environment)) { key in
            AbsoluteConfigKey(names[key.components.joined(separator: ".")].map { [$0] } ?? ["catService"] + key.components)
        }
        var sources: [WhiskerServer.ConfigurationSource] = [.init(variables, name: nil)]
        if let file {
            sources.append(.init(try await fileProvider(file), name: file))
        }
        return WhiskerServer.ConfigurationSources(sources)
    }

    /// The file parsed as JSON (`.json`) or YAML (`.yaml`, `.yml`); anything else, or a file that
    /// does not parse, is an error naming it.
    private static func fileProvider(_ path: String) async throws -> any ConfigProvider {
        // FileProvider reads its path from a reader too, which spares this file swift-system's FilePath.
        let location = ConfigReader(provider: InMemoryProvider(values: ["filePath": .init(.string(path), isSecret: false)]))
        do {
            let name = path.split(separator: "/").last ?? ""
            let parts = name.split(separator: ".", omittingEmptySubsequences: false)
            let pathExtension = parts.count > 1 ? parts[parts.count - 1].lowercased() : ""
            switch pathExtension {
            case "json": return try await FileProvider<WhiskerJSONSnapshot>(config: location)
            case "yaml", "yml": return try await FileProvider<WhiskerYAMLSnapshot>(config: location)
            default: throw ValidationError("--config (or CAT_SERVICE_CONFIG) must name a .json, .yaml or .yml file, got \"\(path)\"")
            }
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("the configuration file \(path) cannot be read: \(error)")
        }
    }
}
