#if Configuration
public import Configuration
public import WhiskerConfiguration
public import WhiskerCore
#if TLS
import WhiskerTLS
#endif
#if HTTP2
import WhiskerHTTP2
#endif
#if Compression
import WhiskerCompression
#endif
import WhiskerCORS
import WhiskerHealth
import WhiskerProxies

extension WhiskerServer.ConfigurationKeys {
    /// Every module's keys in this build, in the order they are read: the listeners', the
    /// server's, then each feature's, and the Unix domain socket last (it joins the listeners the
    /// others imply). A feature the package's traits leave out refuses its keys, naming the trait.
    ///
    /// `WhiskerServer.Configuration.init(_:)` reads these; a program that adds keys of its own
    /// features reads `whisker + [.myFeature]` with `init(_:reading:)`.
    public static var whisker: [Self] {
        var groups: [Self] = [.listeners, .server]
        #if TLS
        groups.append(.tls)
        #else
        groups.append(.leftOut(["tls.certificate", "tls.privateKey", "tls.port", "tls.clientCA", "tls.clientCertificate"], trait: "TLS"))
        #endif
        #if HTTP2
        groups.append(.http2)
        #else
        groups.append(.leftOut(["http2.enabled", "http2.cleartextOnly", "http2.upgrade"], trait: "HTTP2"))
        #endif
        groups += [.cors, .proxies, .health]
        #if Compression
        groups.append(.compression)
        #else
        groups.append(.leftOut(["compression.enabled", "compression.requestDecompression"], trait: "Compression"))
        #endif
        groups.append(.unixSocket)
        return groups
    }
}

extension WhiskerServer.Configuration {
    /// A configuration with the defaults, changed by every key that `sources` set: the keys of
    /// every module of the build (`WhiskerServer.ConfigurationKeys.whisker`), each module reading
    /// its own.
    ///
    /// Keys are dot-separated paths: in JSON or YAML, nested objects (`{"tls": {"port": 8443}}`);
    /// in memory, the path itself (`"tls.port"`); as environment variables, swift-configuration's
    /// `EnvironmentVariablesProvider` spells them in capitals with underscores (`TLS_PORT`,
    /// `LIMITS_MAX_CONNECTIONS`), and a `KeyMappingProvider` can give them other names.
    ///
    /// | Key | Type | Default | Meaning |
    /// |---|---|---|---|
    /// | `host` | address | `127.0.0.1` | The address every TCP listener binds (cleartext, HTTPS, the health checks' own). |
    /// | `port` | port | `8080` | The cleartext listener's TCP port; 0 picks a free one. |
    /// | `cleartext` | bool | `true` | Whether to serve cleartext HTTP on `port` (the listeners the others make stay). |
    /// | `workers` | 1 to 256 | one per processor | The I/O workers (event loops). |
    /// | `requestIDs` | bool | `false` | Whether every request gets an X-Request-ID. |
    /// | `unixSocket.path` | path | none | Serve cleartext HTTP on a Unix domain socket here too. |
    /// | `unixSocket.mode` | octal | `660` | That socket file's permissions. |
    /// | `tls.certificate` | path | none | A PEM certificate chain: serve HTTPS (with `tls.privateKey`). |
    /// | `tls.privateKey` | path | none | The certificate's PEM private key. |
    /// | `tls.port` | port | `8443` | The HTTPS listener's TCP port. |
    /// | `tls.clientCA` | path | none | PEM CA certificates: ask clients for a certificate (mutual TLS). |
    /// | `tls.clientCertificate` | `required` or `optional` | `required` | Whether a client must present one. |
    /// | `http2.enabled` | bool | `false` | Serve HTTP/2: h2c on cleartext, h2 by ALPN over TLS. |
    /// | `http2.cleartextOnly` | bool | `false` | Serve only HTTP/2 (prior knowledge) on cleartext. |
    /// | `http2.upgrade` | bool | `false` | Answer `Upgrade: h2c` with 101 on cleartext; never while proxies are trusted. |
    /// | `limits.maxConnections` | 1 to 1000000 | `10000` | Simultaneous connections; the next gets 503. |
    /// | `limits.maxHeaderBytes` | 1024 to 16777216 | `81920` | The largest request head; larger gets 431. |
    /// | `limits.maxRequestBodySize` | bytes, at least 0 | `16777216` | The largest request body; larger gets 413. |
    /// | `limits.minRequestBodyRate` | bytes/s, 0: none | `240` | The slowest upload after a grace period; slower gets 408. |
    /// | `limits.minResponseRate` | bytes/s, 0: none | `240` | The slowest download after a grace period; slower is closed. |
    /// | `timeouts.tlsHandshake` | seconds | `10` | A TLS handshake's time. |
    /// | `timeouts.requestHeader` | seconds | `30` | A request head's time to arrive; then 408. |
    /// | `timeouts.requestBody` | seconds | `30` | How long a request body may stall; then 408. |
    /// | `timeouts.idle` | seconds | `60` | How long a keep-alive connection may sit idle. |
    /// | `timeouts.write` | seconds | `30` | How long a write may make no progress. |
    /// | `timeouts.shutdownGracePeriod` | seconds | `10` | How long requests in flight may finish at shutdown. |
    /// | `cors.origins` | list | none | Web origins whose pages may call the server (CORS). |
    /// | `cors.pathPrefix` | path | `/` | The paths the CORS policy covers. |
    /// | `cors.credentials` | bool | `false` | Whether those pages may send cookies and authentication. |
    /// | `cors.exposedHeaders` | list | none | Response fields those pages may read. |
    /// | `proxies.trusted` | list of address ranges | none | Reverse proxies believed about the client; `RANGE=Forwarded` for one that sets another field than `proxies.forwardingField`. |
    /// | `proxies.proxyProtocol` | list of `http`, `https` | none | Listeners whose connections start with a PROXY header. |
    /// | `proxies.proxyProtocolSockets` | list of names | none | Inherited sockets (systemd) that do. |
    /// | `proxies.headerTimeout` | seconds | `5` | A PROXY header's time to arrive. |
    /// | `proxies.forwardedFields` | bool | `true` | Whether the proxies' forwarding field is believed. |
    /// | `proxies.forwardingField` | `X-Forwarded-For`, `Forwarded`, `none` | `X-Forwarded-For` | The field the trusted proxies append the client to; the other is never read. |
    /// | `health.enabled` | bool | `false` | Answer GET /healthz and /readyz in the server. |
    /// | `health.port` | port | none | Serve them on a cleartext listener of their own. |
    /// | `health.drainDelay` | seconds | `0` | At shutdown, how long /readyz says 503 before the listeners close. |
    /// | `compression.enabled` | bool | `false` | Compress text responses (br, gzip). |
    /// | `compression.requestDecompression` | bool | `false` | Decode gzip and deflate request bodies. |
    ///
    /// A bool is `true`, `yes`, `on`, `1` or their opposites; seconds may have fractions (above 0,
    /// at most 86400); a list is an array or comma-separated text. The `tls.*`, `http2.*` and
    /// `compression.*` keys need the package traits TLS, HTTP2 and Compression (on by default);
    /// without one, setting its keys is an error.
    ///
    /// - Throws: `WhiskerServer.ConfigurationError` for the first bad value, naming the key and
    ///   its source (`"limits.maxConnections in /etc/cats.yaml must be a whole number between 1
    ///   and 1000000, got "0""`), or settings that do not fit together.
    public init(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        self.init()
        try apply(sources)
    }

    /// A configuration with the defaults, changed by every key that `reader` has: the same key
    /// table, read through the `ConfigReader` an application already uses for its own settings.
    ///
    ///     let config = ConfigReader(providers: [EnvironmentVariablesProvider(), file])
    ///     let server = WhiskerServer(configuration: try .init(config.scoped(to: "server")))
    ///     // server.port, server.tls.certificate, ... (SERVER_PORT in the environment)
    ///
    /// A reader does not say which of its providers held a bad value, so its errors name the key
    /// alone (`"server.port must be ..."` reads `"port must be ..."` in a scoped reader). To name
    /// the file or the variable too, give the providers one by one: `init(_:)` with
    /// `WhiskerServer.ConfigurationSources`.
    public init(_ reader: ConfigReader) throws(WhiskerServer.ConfigurationError) {
        try self.init(WhiskerServer.ConfigurationSources([.init(reader)]))
    }

    /// Changes what `sources` set (the keys of `init(_:)`) and leaves the rest as it is: a
    /// program's own defaults, then its configuration file and environment over them.
    public mutating func apply(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        try apply(sources, reading: WhiskerServer.ConfigurationKeys.whisker)
    }
}
#endif
