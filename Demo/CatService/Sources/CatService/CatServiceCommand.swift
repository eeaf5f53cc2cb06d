import ArgumentParser
import CatServiceCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import OpenAPIRuntime
import ServiceLifecycle
import Whisker


/// The `cat-service` daemon: the CatService's OpenAPI handlers on a Whisker server.
@main
struct CatServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cat-service",
        abstract: "The WWDC23 CatService (cat emoji, a cat clip) on Whisker.",
        discussion: """
            Routes (under the OpenAPI document's server path /api):
              GET /api/emoji?count=N  N random cat emoji, text/plain (1...100; default 1)
              GET /api/emoji/stream?count=N&interval_ms=M
                                      N server-sent events, one random cat each, M ms
                                      apart, text/event-stream (count 1...100, default
                                      10; interval_ms 0...5000, default 1000)
              GET /api/clip           a three-second H.264 clip, video/mp4
              POST /api/census        count the cats in a text (up to 64 MiB; gzip or
                                      deflate accepted), JSON
              POST /api/adopt         {"name": "..."} (up to 1 KiB): 201 and a welcome
              GET /api/report         adoptions so far, JSON, for a --report-token bearer
              GET /api/openapi.yaml   the OpenAPI document, with ETag; /api/openapi.json
                                      is the same document as JSON
              GET /api/docs           a page listing the operations, with "Try it"
              GET /metrics            with --metrics: request metrics, Prometheus text
              GET /ws/echo            WebSocket (RFC 6455): text and binary messages
                                      echoed as sent, on every HTTP/1.1 listener (beside
                                      h2c, and over TLS)
              GET /healthz, /readyz   liveness and readiness (503 from the start of a
                                      shutdown), answered by the server;
                                      --no-health-checks turns them off
              OPTIONS /api/...        with --cors-origin: CORS preflights, answered by
                                      the server
            HEAD is answered for each. Text responses are compressed (br or gzip) for
            clients that send Accept-Encoding, unless --no-compression.

            When the server is listening it prints one line per listener to standard
            output:
              cat-service listening on http://HOST:PORT
              cat-service listening on https://HOST:TLS-PORT  (with --tls-certificate)
            HTTPS needs a PEM certificate chain and key; Scripts/make-dev-certificates.sh
            makes a development CA and a localhost certificate (trust it with curl
            --cacert ca.pem).

            Socket activation (systemd): started with LISTEN_FDS and LISTEN_PID (a
            .socket unit, or systemd-socket-activate), it serves the sockets it inherited
            instead of binding --host, --port and --tls-port, and prints the same lines
            for them. A socket named "https" or "tls" (FileDescriptorName=,
            LISTEN_FDNAMES) serves HTTPS with --tls-certificate and --tls-private-key;
            the others serve cleartext HTTP. A TLS socket without a certificate, a
            certificate without a TLS socket, or a cleartext socket with --no-cleartext
            stops the start (exit 1). With $NOTIFY_SOCKET set (Type=notify) it sends
            READY=1 once listening and STOPPING=1 when it drains. Demo/systemd has
            example units.

            Behind a load balancer: --trusted-proxy names the proxies believed about the
            client (RequestContext.client, the access log's "client"): by the PROXY
            protocol on the --proxy-protocol listeners (a connection there without a
            valid header from a trusted proxy is closed and logged), and by the one field
            they append to (--forwarding-field, X-Forwarded-For by default; a client's
            own Forwarded is then never read). Nothing is believed by default.
            --drain-delay keeps serving while /readyz says 503, so balancers stop sending
            work before the listeners close.

            Settings: each flag, else its CAT_SERVICE_* environment variable, else its
            key in the --config file (JSON or YAML: Whisker's configuration key table,
            such as {"port": 8080, "limits": {"maxConnections": 500}}, and cat-service's
            own keys: logLevel, accessLog, metrics, validation, reportTokens, ...), else
            its default. SIGHUP reads the --config file again and applies its logLevel at
            once (other changed keys are logged as needing a restart), and reloads the
            TLS certificate and key from their files for new connections.

            Logs go to standard error. SIGINT or SIGTERM stops accepting connections,
            answers every request already received (within --shutdown-grace-period; then
            what is left is closed), and exits with status 0; a second signal exits at
            once. If the server cannot start (for example, the port is taken) it prints
            the reason to standard error and exits 1.
            """
    )

    @Option(
        name: .customLong("config"),
        help: ArgumentHelp("A configuration file, JSON (.json) or YAML (.yaml, .yml), with any of the settings under Whisker's configuration keys (see the README); flags and environment variables win over it. (default: none; env: CAT_SERVICE_CONFIG)", valueName: "file")
    )
    var config: String?

    @Option(help: "The address to listen on: a numeric IPv4 or IPv6 address, or localhost. (default: 127.0.0.1; env: CAT_SERVICE_HOST)")
    var host: String?

    @Option(help: "The TCP port to listen on; 0 picks a free port (printed when listening). (default: 8080; env: CAT_SERVICE_PORT)")
    var port: Int?

    @Option(
        name: .customLong("tls-certificate"),
        help: ArgumentHelp("A PEM certificate chain (leaf first): serve HTTPS on --tls-port. (env: CAT_SERVICE_TLS_CERTIFICATE)", valueName: "path")
    )
    var tlsCertificate: String?

    @Option(
        name: .customLong("tls-private-key"),
        help: ArgumentHelp("The PEM private key of --tls-certificate. (env: CAT_SERVICE_TLS_PRIVATE_KEY)", valueName: "path")
    )
    var tlsPrivateKey: String?

    @Option(
        name: .customLong("tls-client-ca"),
        help: ArgumentHelp("A PEM file of CA certificates: ask HTTPS clients for a certificate they issued (mutual TLS); one that does not verify ends the handshake. (default: none; env: CAT_SERVICE_TLS_CLIENT_CA)", valueName: "path")
    )
    var tlsClientCA: String?

    @Option(
        name: .customLong("tls-client-certificate"),
        help: ArgumentHelp("With --tls-client-ca: whether a client must present a certificate (required) or may come without (optional). (default: required; env: CAT_SERVICE_TLS_CLIENT_CERTIFICATE)", valueName: "required|optional")
    )
    var tlsClientCertificate: String?

    @Option(name: .customLong("tls-port"), help: "The TCP port for HTTPS; 0 picks a free port. (default: 8443; env: CAT_SERVICE_TLS_PORT)")
    var tlsPort: Int?

    @Option(
        name: .customLong("unix-socket"),
        help: ArgumentHelp("Also serve cleartext HTTP (and h2c) on a Unix domain socket at this path, for a proxy on this machine (nginx: proxy_pass http://unix:PATH:); a stale socket file there is replaced, and the file is removed at exit. (default: none; env: CAT_SERVICE_UNIX_SOCKET)", valueName: "path")
    )
    var unixSocket: String?

    @Option(
        name: .customLong("unix-socket-mode"),
        help: ArgumentHelp("The --unix-socket file's permissions, in octal: who may connect. (default: 660; env: CAT_SERVICE_UNIX_SOCKET_MODE)", valueName: "octal")
    )
    var unixSocketMode: String?

    @Flag(
        name: .customLong("cleartext"),
        inversion: .prefixedNo,
        help: "Whether to serve cleartext HTTP on --port too (turn off to serve HTTPS only). (default: on; env: CAT_SERVICE_CLEARTEXT=true|false)"
    )
    var cleartext: Bool?

    @Flag(
        name: .customLong("http2"),
        inversion: .prefixedNo,
        help: "Whether to serve HTTP/2: h2c with prior knowledge on the cleartext port (Upgrade: h2c with --h2c-upgrade), h2 by ALPN over TLS. (default: on; env: CAT_SERVICE_HTTP2=true|false)"
    )
    var http2: Bool?

    @Flag(
        name: .customLong("h2c-only"),
        help: "Serve only HTTP/2 (prior knowledge) on the cleartext port, as a backend behind an h2c proxy; HTTP/1.1 there gets GOAWAY. (default: off; env: CAT_SERVICE_H2C_ONLY=true|false)"
    )
    var h2cOnly: Bool = false

    @Flag(
        name: .customLong("h2c-upgrade"),
        help: "Answer Upgrade: h2c (curl --http2 on http://) with 101 and HTTP/2 on the cleartext port; without it such a request is served as HTTP/1.1. Not with --trusted-proxy: through a proxy that forwards Upgrade, a 101 is a tunnel past the proxy (h2c smuggling). (default: off; env: CAT_SERVICE_H2C_UPGRADE=true|false)"
    )
    var h2cUpgrade: Bool = false

    @Flag(
        name: .customLong("access-log"),
        inversion: .prefixedNo,
        help: "Whether to log one line per request to standard error. (default: off; env: CAT_SERVICE_ACCESS_LOG=true|false)"
    )
    var accessLog: Bool?

    @Flag(
        name: .customLong("request-ids"),
        inversion: .prefixedNo,
        help: "Whether to give every request an X-Request-ID (kept from the client when usable) and send it back. (default: off; env: CAT_SERVICE_REQUEST_IDS=true|false)"
    )
    var requestIDs: Bool?

    @Flag(
        name: .customLong("metrics"),
        inversion: .prefixedNo,
        help: "Whether to measure requests (OpenTelemetry HTTP server metrics) and serve them at GET /metrics in the Prometheus text format. (default: off; env: CAT_SERVICE_METRICS=true|false)"
    )
    var metrics: Bool?

    @Flag(
        name: .customLong("compression"),
        inversion: .prefixedNo,
        help: "Whether to compress text responses (br or gzip, as the client's Accept-Encoding prefers; 256 bytes and up; event streams per event). (default: on; env: CAT_SERVICE_COMPRESSION=true|false)"
    )
    var compression: Bool?

    @Flag(
        name: .customLong("request-decompression"),
        inversion: .prefixedNo,
        help: "Whether to decode request bodies sent with Content-Encoding: gzip or deflate (the limits count decoded bytes; past 200:1 a body is refused with 413; other codings get 415). (default: on; env: CAT_SERVICE_REQUEST_DECOMPRESSION=true|false)"
    )
    var requestDecompression: Bool?

    @Flag(
        name: .customLong("validation"),
        inversion: .prefixedNo,
        help: "Whether to check each request against the OpenAPI document (parameters, media type, JSON body) before its handler runs, answering 400 with every violation. (default: on; env: CAT_SERVICE_VALIDATION=true|false)"
    )
    var validation: Bool?

    @Flag(
        name: .customLong("contract-check"),
        help: "Check each response against the OpenAPI document (status, Content-Type, JSON body) and log a warning \"contract violation\" for each that is not one it describes (counted in openapi_contract_violations_total with --metrics); for tests and staging. (default: off; env: CAT_SERVICE_CONTRACT_CHECK=true|false)"
    )
    var contractCheck: Bool = false

    @Option(
        name: .customLong("static"),
        help: ArgumentHelp("A directory whose files are served at / beside the API (which keeps /api): index.html for a folder, .br and .gz siblings by Accept-Encoding; no dotfiles, no symbolic links. (default: none; env: CAT_SERVICE_STATIC)", valueName: "directory")
    )
    var staticDirectory: String?

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "The lowest level of log message written to standard error: trace, debug, info, notice, warning, error or critical. (default: info; env: CAT_SERVICE_LOG_LEVEL)",
            valueName: "level"
        )
    )
    var logLevel: Logger.Level?

    @Option(name: .customLong("workers"), help: "How many I/O workers (event loops) serve the connections. (default: one per processor this process may use; env: CAT_SERVICE_WORKERS)")
    var workers: Int?

    @Option(name: .customLong("io-backend"), help: ArgumentHelp("How the workers learn that a connection is ready: epoll (an epoll set each) or dispatch (a Dispatch read and write source per connection). (default: epoll, or what WHISKER_IO_BACKEND says; env: CAT_SERVICE_IO_BACKEND)", valueName: "backend"))
    var ioBackend: String?

    @Option(name: .customLong("max-connections"), help: "The most simultaneous connections; the next one gets 503. (default: 10000; env: CAT_SERVICE_MAX_CONNECTIONS)")
    var maxConnections: Int?

    @Option(name: .customLong("max-header-bytes"), help: ArgumentHelp("The largest request head (request line and fields); larger gets 431. (default: 81920; env: CAT_SERVICE_MAX_HEADER_BYTES)", valueName: "bytes"))
    var maxHeaderBytes: Int?

    @Option(name: .customLong("max-request-body-size"), help: ArgumentHelp("The largest request body; larger gets 413. (default: 16777216; env: CAT_SERVICE_MAX_REQUEST_BODY_SIZE)", valueName: "bytes"))
    var maxRequestBodySize: Int?

    @Option(name: .customLong("min-request-body-rate"), help: ArgumentHelp("The slowest a client may send a request body, after a 5 s grace period; slower gets 408 (slow POST). 0: no minimum. (default: 240; env: CAT_SERVICE_MIN_REQUEST_BODY_RATE)", valueName: "bytes/s"))
    var minRequestBodyRate: Int?

    @Option(name: .customLong("min-response-rate"), help: ArgumentHelp("The slowest a client may read a response, after a 5 s grace period; slower is closed (slow read). 0: no minimum. (default: 240; env: CAT_SERVICE_MIN_RESPONSE_RATE)", valueName: "bytes/s"))
    var minResponseRate: Int?

    @Option(name: .customLong("tls-handshake-timeout"), help: ArgumentHelp("How long an HTTPS client may take to complete its TLS handshake; then the connection is closed. (default: 10; env: CAT_SERVICE_TLS_HANDSHAKE_TIMEOUT)", valueName: "seconds"))
    var tlsHandshakeTimeout: Double?

    @Option(name: .customLong("request-header-timeout"), help: ArgumentHelp("How long a request head may take to arrive; then 408. (default: 30; env: CAT_SERVICE_REQUEST_HEADER_TIMEOUT)", valueName: "seconds"))
    var requestHeaderTimeout: Double?

    @Option(name: .customLong("request-body-timeout"), help: ArgumentHelp("How long a request body may stall; then 408. (default: 30; env: CAT_SERVICE_REQUEST_BODY_TIMEOUT)", valueName: "seconds"))
    var requestBodyTimeout: Double?

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("How long a keep-alive connection may sit idle; then it is closed. (default: 60; env: CAT_SERVICE_IDLE_TIMEOUT)", valueName: "seconds"))
    var idleTimeout: Double?

    @Option(name: .customLong("write-timeout"), help: ArgumentHelp("How long a response write may make no progress; then the connection is closed. (default: 30; env: CAT_SERVICE_WRITE_TIMEOUT)", valueName: "seconds"))
    var writeTimeout: Double?

    @Option(
        name: .customLong("shutdown-grace-period"),
        help: ArgumentHelp("On SIGTERM or SIGINT, how long requests in flight may take to finish; then their connections close. (default: 10; env: CAT_SERVICE_SHUTDOWN_GRACE_PERIOD)", valueName: "seconds")
    )
    var shutdownGracePeriod: Double?

    @Option(
        name: .customLong("trusted-proxy"),
        help: ArgumentHelp("A reverse proxy (an address or CIDR range, e.g. 10.0.0.0/8) whose PROXY protocol header and --forwarding-field say who the client is, or RANGE=FIELD for one that sets another field (192.0.2.0/24=Forwarded); repeat for more. (default: none; env: CAT_SERVICE_TRUSTED_PROXIES, comma-separated)", valueName: "range")
    )
    var trustedProxies: [String] = []

    @Option(
        name: .customLong("proxy-protocol"),
        help: ArgumentHelp("The listeners on which every connection starts with a PROXY protocol header (v1 or v2) from a --trusted-proxy: http, https, or http,https. (default: none; env: CAT_SERVICE_PROXY_PROTOCOL)", valueName: "listeners")
    )
    var proxyProtocol: String?

    @Option(
        name: .customLong("proxy-protocol-socket"),
        help: ArgumentHelp("With socket activation: an inherited socket's name (FileDescriptorName=) on which every connection starts with a PROXY protocol header; repeat for more. (default: none; env: CAT_SERVICE_PROXY_PROTOCOL_SOCKETS, comma-separated)", valueName: "name")
    )
    var proxyProtocolSockets: [String] = []

    @Option(name: .customLong("proxy-header-timeout"), help: ArgumentHelp("How long a connection on a PROXY protocol listener may take to send its header; then it is closed. (default: 5; env: CAT_SERVICE_PROXY_HEADER_TIMEOUT)", valueName: "seconds"))
    var proxyHeaderTimeout: Double?

    @Flag(
        name: .customLong("forwarded-fields"),
        inversion: .prefixedNo,
        help: "Whether the --forwarding-field of a --trusted-proxy says who the client is. (default: on; env: CAT_SERVICE_FORWARDED_FIELDS=true|false)"
    )
    var forwardedFields: Bool?

    @Option(
        name: .customLong("forwarding-field"),
        help: ArgumentHelp("The field the --trusted-proxy proxies append the client to, as nginx's real_ip_header: X-Forwarded-For (with X-Forwarded-Proto), Forwarded, or none (PROXY protocol only). The other field is the client's own and never believed. (default: X-Forwarded-For; env: CAT_SERVICE_FORWARDING_FIELD)", valueName: "field")
    )
    var forwardingField: String?

    @Flag(
        name: .customLong("health-checks"),
        inversion: .prefixedNo,
        help: "Whether the server answers GET /healthz (200 while it runs) and GET /readyz (200, then 503 from the start of a shutdown) itself. (default: on; env: CAT_SERVICE_HEALTH_CHECKS=true|false)"
    )
    var healthChecks: Bool?

    @Option(name: .customLong("health-port"), help: "Serve /healthz and /readyz on a cleartext listener of their own on this port (0 picks one), and not on the others. (default: none; env: CAT_SERVICE_HEALTH_PORT)")
    var healthPort: Int?

    @Option(
        name: .customLong("drain-delay"),
        help: ArgumentHelp("On SIGTERM or SIGINT, how long /readyz answers 503 while the listeners still serve, before they close (longer than the balancer's health-check interval). (default: 0; env: CAT_SERVICE_DRAIN_DELAY)", valueName: "seconds")
    )
    var drainDelay: Double?

    @Option(
        name: .customLong("cors-origin"),
        help: ArgumentHelp("A web origin whose pages may call /api from a browser (CORS): https://cats.example, https://*.cats.example, or * for any; repeat for more. Preflights are answered for every /api path. (default: none; env: CAT_SERVICE_CORS_ORIGINS, comma-separated)", valueName: "origin")
    )
    var corsOrigins: [String] = []

    @Option(
        name: .customLong("report-token"),
        help: ArgumentHelp("A bearer token that may read GET /api/report (it holds reports:read); repeat for more. Never logged; prefer the environment variable, which ps does not show. (default: none, so the report answers 401; env: CAT_SERVICE_REPORT_TOKENS, comma-separated)", valueName: "token")
    )
    var reportTokens: [String] = []

    @Option(
        name: .customLong("visitor-token"),
        help: ArgumentHelp("A bearer token that is known but holds no scope: GET /api/report answers it 403; repeat for more. (default: none; env: CAT_SERVICE_VISITOR_TOKENS, comma-separated)", valueName: "token")
    )
    var visitorTokens: [String] = []

    @Option(name: .customLong("stream-deadline"), help: ArgumentHelp("How long GET /api/emoji/stream may run; a stream still going then is ended (cleanly: an EventSource reconnects). (default: 600; env: CAT_SERVICE_STREAM_DEADLINE)", valueName: "seconds"))
    var streamDeadline: Double?

    @Option(name: .customLong("census-deadline"), help: ArgumentHelp("How long POST /api/census may take, its upload included; then 503 and the count is abandoned. (default: 120; env: CAT_SERVICE_CENSUS_DEADLINE)", valueName: "seconds"))
    var censusDeadline: Double?

    @Option(name: .customLong("adoption-rate-limit"), help: ArgumentHelp("How many adoptions (POST /api/adopt) a client address may ask for per time: REQUESTS/SECONDS, as a token bucket; past it, 429 with Retry-After. (default: 20/60; env: CAT_SERVICE_ADOPTION_RATE_LIMIT)", valueName: "requests/seconds"))
    var adoptionRateLimit: String?

    @Option(name: .customLong("store"), help: ArgumentHelp("Where the adoptions' rate limit counts and their idempotency keys' answers are kept, shared by every instance given the same one: redis://[[user]:password@]host[:port][/database] or unix:///path/to/redis.sock. (default: in memory, each instance on its own; env: CAT_SERVICE_STORE)", valueName: "url"))
    var store: String?

    @Option(name: .customLong("store-failure"), help: ArgumentHelp("What an adoption gets while the --store cannot answer: allow (it runs, unlimited and without its key's record) or refuse (503). (default: allow; env: CAT_SERVICE_STORE_FAILURE)", valueName: "allow|refuse"))
    var storeFailure: String?

    @Flag(
        name: .customLong("cors-credentials"),
        help: "Let --cors-origin pages send cookies and HTTP authentication (Access-Control-Allow-Credentials; not with *). (default: off; env: CAT_SERVICE_CORS_CREDENTIALS=true|false)"
    )
    var corsCredentials: Bool = false

    func run() async throws {
        // Read here, not in validate(): the configuration file is read asynchronously.
        let environment = ProcessInfo.processInfo.environment
        let sources: WhiskerServer.ConfigurationSources
        let settings: Settings
        let activation: SystemdSocketActivation?
        do {
            sources = try await SettingsSources.load(environment: environment, file: SettingsSources.configFile(self, environment: environment))
            // Read (and unset) LISTEN_* here, once: the inherited sockets are the listeners the
            // settings then change (HTTPS on the ones named for it, the PROXY protocol by name).
            activation = try SystemdSocketActivation.fromEnvironment()
            settings = try Settings(self, sources: sources, activation: activation)
        } catch let error as WhiskerServer.ConfigurationError {
            throw ValidationError(error.description)
        } catch let error as SettingsError {
            writeLine("cat-service: \(error)", to: .standardError)
            throw ExitCode.failure
        } catch let error as SystemdSocketActivationError {
            writeLine("cat-service: \(error)", to: .standardError)
            throw ExitCode.failure
        }
        let levels = LogLevelSwitch(settings.logLevel)
        LoggingSystem.bootstrap { label in SwitchedLogHandler(label: label, levels: levels) }
        let logger = Logger(label: "cat-service")

        do {
            try await serve(settings, logger: logger) { server in
                ReloadOnHangup(server: server, command: self, environment: environment, sources: sources, activation: activation, levels: levels, logger: logger)
            }
        } catch {
            writeLine("cat-service: \(error)", to: .standardError)
            throw ExitCode.failure
        }
    }

    /// Builds the server, registers the CatService on it and runs it until it is shut down.
    /// `reloader` makes the service that acts on SIGHUP for the server.
    private func serve(_ settings: Settings, logger: Logger, reloader: (WhiskerServer) -> ReloadOnHangup) async throws {
        var configuration = settings.configuration
        configuration.logger = logger
        if settings.accessLog {
            var accessLog = Logger(label: "cat-service.access")
            accessLog.logLevel = .info
            configuration.accessLog = accessLog
        }
        let metrics = settings.metrics ? PrometheusMetrics() : nil
        configuration.metrics = metrics?.factory
        configuration.io.backend = settings.ioBackend
        var policies = settings.policies
        if let url = settings.store {
            let store = try RedisStore(url: url, logger: logger, metrics: metrics?.factory)
            policies.adoptions.store = store
            policies.adoptionKeys.store = store
        }
        let document = try CatServiceOperations.document()
        if settings.contractCheck {
            configuration.responseSteps.append(try ContractCheck(document, serverURL: try CatServiceOperations.serverURL(), logger: logger) { violation in
                metrics?.countContractViolation(of: violation.operationID)
            })
        }
        let listeners = configuration.listeners
        let server = WhiskerServer(configuration: configuration)
        let operations = try CatServiceOperations()
        let transport = try operations.transport(
            on: server, validating: settings.validation, reportTokens: settings.reportTokens, visitorTokens: settings.visitorTokens,
            policies: policies
        )
        try operations.registerHandlers(on: transport)
        try transport.serveDocument(document, serverURL: try CatServiceOperations.serverURL())
        try metrics?.register(on: server)
        // WebSocket beside the API, on the same ports (h2c included: over HTTP/2 the route answers
        // 426); the upgrade request is logged and gets its request id like any request.
        try server.webSocket("/ws/echo") { socket in
            for try await message in socket.messages { try await socket.send(message) }
        }
        // Files at / beside the API: every route above wins, the files answer the rest.
        if let directory = settings.staticDirectory { try server.serveFiles(from: directory, at: "/") }

        // SIGTERM or SIGINT drains the server (its own grace period bounds that); the group's
        // deadline, a little later, is only a backstop that cancels whatever is left.
        var group = ServiceGroupConfiguration(
            // Shut down in reverse order: the server drains first, then the signal watchers end.
            services: [
                .init(service: SecondSignalExit(logger: logger)),
                .init(service: reloader(server)),
                .init(service: server),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        group.maximumGracefulShutdownDuration = configuration.timeouts.shutdownGracePeriod + .seconds(5)
        group.maximumCancellationDuration = .seconds(5)
        let services = ServiceGroup(configuration: group)
        try await withThrowingDiscardingTaskGroup { tasks in
            tasks.addTask { try await services.run() }
            // The lines on stdout that scripts wait for; written unbuffered.
            let addresses = try await server.listeningAddresses()
            // One address a listener, in their order; the health checks' own listener is last.
            for (listener, address) in zip(listeners, addresses) {
                if listener.servesOnlyHealthChecks {
                    writeLine("cat-service health checks on http://\(address)", to: .standardOutput)
                } else {
                    // A Unix domain socket is named by its path: unix:/run/cats.sock.
                    writeLine("cat-service listening on \(address.unixPath != nil ? "" : listener.isTLS ? "https://" : "http://")\(address)", to: .standardOutput)
                }
            }
        }
    }
}

private enum OutputStream {
    case standardOutput, standardError
}

/// Writes `line` and a newline straight to the file descriptor, so nothing waits in a buffer.
private func writeLine(_ line: String, to stream: OutputStream) {
    let descriptor = stream == .standardOutput ? STDOUT_FILENO : STDERR_FILENO
    var bytes = Array((line + "\n").utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
