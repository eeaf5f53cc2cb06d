public import struct WhiskerSockets.SystemdNotifier
@_exported public import struct WhiskerSockets.SystemdSocketActivation
@_exported public import struct WhiskerSockets.SystemdSocketActivationError
public import Logging
public import WhiskerSockets

extension WhiskerServer {
    /// Everything a server needs to listen and serve, with production defaults.
    ///
    ///     var configuration = WhiskerServer.Configuration(host: "0.0.0.0", port: 8080)
    ///     configuration.limits.maxRequestBodySize = 64 << 20
    ///     configuration.timeouts.idle = .seconds(30)
    ///
    /// Where the server listens is ``listeners`` and nothing else; what it can do besides HTTP/1.1
    /// and routing is ``features``, which the modules' one-line settings (`configuration.http2`,
    /// `.cors`, `.healthChecks`, ...) fill.
    public struct Configuration: Sendable {
        /// The sockets to listen on, each with what it asks of its connections (``Listener``):
        /// cleartext TCP, HTTPS with its certificate (WhiskerTLS's `.https(...)`), a Unix domain
        /// socket, a socket systemd passed, each with the options the modules offer.
        ///
        ///     configuration.listeners = [
        ///         .tcp(host: "0.0.0.0", port: 8080),
        ///         .https(host: "0.0.0.0", port: 8443, tls: tls),            // WhiskerTLS
        ///         .unixDomainSocket("/run/cats.sock"),
        ///         .tcp(host: "0.0.0.0", port: 9090).servingOnlyHealthChecks(), // WhiskerHealth
        ///     ]
        ///
        /// One cleartext listener on 127.0.0.1:8080 by default. ``WhiskerServer/listeningAddresses()``
        /// answers one address for each, in this order.
        public var listeners: [Listener]
        /// What the server can do besides HTTP/1.1 and routing, each a value a module (or you)
        /// adds (``ServerFeature``): `configuration.cors`, `.http2`, `.healthChecks`,
        /// `.compression`, `.reverseProxies`, `.metrics`... set theirs here.
        public var features = ServerFeatures()
        /// Size and count limits, each answered with its own status.
        public var limits: Limits
        /// How long the server waits for a slow peer.
        public var timeouts: Timeouts
        /// What the server does to responses on its own: byte ranges and `ETag`s.
        public var responses = ResponseDefaults()
        /// How many I/O workers serve the connections, and how they learn a socket is ready.
        public var io = IOSettings()
        /// Where the server logs rejected requests, handler errors and its lifecycle.
        public var logger: Logger
        /// Where to log one line per request (method, path, status, bytes, duration, protocol, peer,
        /// request id), at `info`; `nil` (the default) for none, at no cost.
        public var accessLog: Logger?
        /// Request ids: with this on, a request without a usable `X-Request-ID` gets a random one,
        /// and every response carries its id back in `X-Request-ID` (see ``RequestContext``). Off
        /// by default: a client's own `X-Request-ID` still reaches ``RequestContext/requestID``.
        public var requestIDs = false
        /// Where to send systemd readiness (`READY=1` once listening, `STOPPING=1` when a graceful
        /// shutdown starts, with `STATUS=` lines); by default `$NOTIFY_SOCKET`, which systemd sets
        /// for `Type=notify` services, so nothing is sent when the variable is absent.
        public var systemdNotifier: SystemdNotifier? = .fromEnvironment()

        /// Creates a configuration that listens on `listeners`.
        /// - Parameters:
        ///   - listeners: Where to listen; one cleartext listener on 127.0.0.1:8080 by default.
        ///   - limits: Size and count limits.
        ///   - timeouts: Timeouts for slow peers.
        ///   - logger: The logger for the server's own messages.
        public init(
            listeners: [Listener] = [.tcp(port: 8080)],
            limits: Limits = .init(),
            timeouts: Timeouts = .init(),
            logger: Logger = Logger(label: "whisker")
        ) {
            self.listeners = listeners
            self.limits = limits
            self.timeouts = timeouts
            self.logger = logger
        }

        /// Creates a configuration with one cleartext listener on `host`:`port`: shorthand for
        /// `init(listeners: [.tcp(host: host, port: port)])`.
        /// - Parameters:
        ///   - host: A numeric IPv4 or IPv6 address (`0.0.0.0`, `::`, `127.0.0.1`, `::1`) or `localhost`.
        ///   - port: The port; 0 picks a free one (see ``WhiskerServer/listeningAddresses()``).
        ///   - limits: Size and count limits.
        ///   - timeouts: Timeouts for slow peers.
        ///   - logger: The logger for the server's own messages.
        public init(
            host: String, port: Int, limits: Limits = .init(), timeouts: Timeouts = .init(), logger: Logger = Logger(label: "whisker")
        ) {
            self.init(listeners: [.tcp(host: host, port: port)], limits: limits, timeouts: timeouts, logger: logger)
        }

        /// What watches every request besides the features' observers, innermost: `import
        /// WhiskerObservability` and set `configuration.metrics` or `configuration.tracer` for the
        /// OpenTelemetry HTTP server metrics and spans, or give an observer of your own here.
        /// `nil` (the default): no request is observed, and the request path pays one `nil` check.
        public var requestObserver: (any RequestObserver)? {
            get { features[OwnSteps.self]?.observer }
            set { features[OwnSteps.self] = OwnSteps(steps: responseSteps, observer: newValue).nonEmpty }
        }
        /// Steps of your own on the way out of every response (``ResponseStep``), a handler's or
        /// the server's, after the features' steps of their phase; none by default.
        public var responseSteps: [any ResponseStep] {
            get { features[OwnSteps.self]?.steps ?? [] }
            set { features[OwnSteps.self] = OwnSteps(steps: newValue, observer: requestObserver).nonEmpty }
        }
    }

    /// What the server does to responses on its own (``Configuration/responses``).
    public struct ResponseDefaults: Sendable, Equatable {
        /// Byte ranges (RFC 9110 §14), on by default: a 200 to GET (or HEAD) with a known length and
        /// no `Content-Encoding` says `Accept-Ranges: bytes`, and a request with one
        /// `Range: bytes=first-last`, `first-` or `-suffix` gets 206 with `Content-Range` and only
        /// those bytes (a streamed body is cut as it flows), or 416 when the range starts past the
        /// end. Several ranges, a malformed `Range` or an `If-Range` that does not match the
        /// response's `ETag` or `Last-Modified` get the whole 200. A handler that answers 206
        /// itself (with `Content-Range`) or says `Accept-Ranges: none` is left alone. This is what
        /// lets browsers seek in a video a handler returns.
        public var servesByteRanges = true
        /// Strong `ETag`s for responses whose body is in memory, on by default: a 200 to GET or HEAD
        /// without an `ETag` gets one made from its bytes (length and a 64-bit FNV-1a hash), so that
        /// `If-None-Match` can answer 304 and `If-Range` can match. An `ETag` the handler sets (one
        /// the OpenAPI document declares, say) is kept; streamed bodies get none (their bytes are
        /// not known before the head goes out). Preconditions (`If-None-Match`, `If-Match`, and
        /// `If-Modified-Since` equal to `Last-Modified`) are answered whatever this says.
        public var generatesETags = true

        /// Both on.
        public init() {}
    }

    /// How the server's I/O runs (``Configuration/io``).
    public struct IOSettings: Sendable, Equatable {
        /// How many I/O workers serve the connections: each is a serial queue with the epoll set of
        /// the connections it was given (in turn, as they are accepted), so a connection's reads,
        /// writes, timers and handler tasks all run on one worker. One per processor by default.
        /// A handler that blocks its thread instead of suspending stalls its worker's other
        /// connections (see `IOWorker`).
        public var workers: Int = IOWorkerGroup.defaultCount
        /// How the workers learn that a connection is ready: an epoll set each (the default on
        /// Linux) or a Dispatch read and write source per connection; see `IOBackend` for what
        /// each costs. `IOBackend.default` is the platform's choice unless `WHISKER_IO_BACKEND`
        /// (`epoll` or `dispatch`) says otherwise, which is how a test suite runs on the other one.
        public var backend: IOBackend = .default

        /// The defaults.
        public init() {}
    }

    /// Size and count limits. Each one, when exceeded, is answered with its own status and the
    /// connection is closed.
    public struct Limits: Sendable, Equatable {
        /// The longest request line (method, target, version) in bytes; longer gets 414.
        public var maxRequestLineLength: Int = 8 * 1024
        /// The largest header block (request line and fields) in bytes; larger gets 431.
        public var maxHeaderBytes: Int = 80 * 1024
        /// The most header fields (and, separately, trailer fields); more gets 431. It applies to
        /// HTTP/2 requests too (pseudo-header fields not counted), where the header list's size is
        /// `HTTP2Settings.maxHeaderListSize` (WhiskerHTTP2).
        public var maxHeaderCount: Int = 100
        /// The largest request body in bytes, or `nil` for no limit; larger gets 413,
        /// before the body is read when `Content-Length` says so.
        public var maxRequestBodySize: Int64? = 16 * 1024 * 1024
        /// How many request-body bytes wait for a handler before the server stops reading the socket.
        public var requestBodyBufferSize: Int = 256 * 1024
        /// The most simultaneous connections; the next one gets 503 and is closed.
        public var maxConnections: Int = 10_000
        /// The slowest a client may send a request body, counted while a handler waits for it and
        /// nothing else moves (with `Expect: 100-continue`, from the `100`; not while a response
        /// streams to a request its handler reads at the client's pace, a bidirectional stream):
        /// slower, it gets 408 (or, once the response started, a close; over HTTP/2, a reset of
        /// the stream). A route can have its own (``RequestBodyRate``). `nil`: only
        /// ``Timeouts/requestBody``, which a trickle defeats.
        public var minRequestBodyRate: MinimumDataRate? = .default
        /// The slowest a client may read a response, counted while written bytes wait for it:
        /// slower, the connection is closed. `nil`: only ``Timeouts/write``, which a trickle defeats.
        public var minResponseRate: MinimumDataRate? = .default

        /// Creates limits with the defaults (80 KiB of headers, as Hummingbird).
        public init() {}

        /// How much of a request body that nobody will read (the response came first) the server
        /// reads and drops: an HTTP/1.1 connection with more left closes instead of draining it,
        /// and an HTTP/2 client past it is asked to stop (RST_STREAM NO_ERROR).
        package static let unreadBodyDrain: Int64 = 256 * 1024
    }

    /// How long the server waits for a slow or silent peer before giving up on it.
    public struct Timeouts: Sendable, Equatable {
        /// From accepting an HTTPS connection to the end of its TLS handshake; then the connection
        /// is closed. Short, because a handshake that does not progress holds a connection and a
        /// TLS state for nothing (a client that connects and sends nothing, or stops half way).
        public var tlsHandshake: Duration = .seconds(10)
        /// From the first byte of a request to the end of its header block (slowloris); then 408.
        /// Also how long a client that asked for `Upgrade: h2c` has to send the HTTP/2 preface.
        public var requestHeader: Duration = .seconds(30)
        /// How long a keep-alive connection may sit between requests; then it is closed quietly.
        public var idle: Duration = .seconds(60)
        /// How long a request body may stall while the handler waits for it; then 408 (or a close,
        /// once the response has started; over HTTP/2, a reset of the stream).
        public var requestBody: Duration = .seconds(30)
        /// How long a response write may make no progress; then the connection is closed. Over
        /// HTTP/2 it also bounds how long a stream's response may wait for the client to open its
        /// flow-control window; then the stream is reset (CANCEL).
        public var write: Duration = .seconds(30)
        /// How long a graceful shutdown waits for requests in flight before closing their connections.
        public var shutdownGracePeriod: Duration = .seconds(10)

        /// Creates timeouts with the defaults.
        public init() {}
    }
}
