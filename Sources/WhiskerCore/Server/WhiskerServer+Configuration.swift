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
    public struct Configuration: Sendable {
        /// The sockets to listen on, each with what it asks of its connections (``Listener``): TCP,
        /// HTTPS with its certificate (WhiskerTLS), a Unix domain socket, sockets systemd passed.
        ///
        ///     configuration.listeners = [.tcp(host: "0.0.0.0", port: 8080), .unixDomainSocket("/run/cats.sock")]
        ///
        /// Empty (the default): the ones ``host``, ``port``, ``servesCleartext``, `https`,
        /// ``socketActivation`` and the health checks' `port` describe (``impliedListeners()``),
        /// which are conveniences over this list.
        public var listeners: [Listener] = []
        /// The address to listen on: a numeric IPv4 or IPv6 address (`0.0.0.0`, `::`, `127.0.0.1`,
        /// `::1`) or `localhost`.
        public var host: String
        /// The port to listen on; 0 lets the system pick one (see `run(onListening:)`).
        public var port: Int
        /// Whether to listen for cleartext HTTP on ``host``:``port``; turn it off to serve HTTPS
        /// only (`configuration.https`, WhiskerTLS).
        public var servesCleartext = true
        /// What the server can do besides HTTP/1.1 and routing, each a value a module (or you)
        /// adds (``ServerFeature``): `configuration.cors`, `.http2`, `.healthChecks`,
        /// `.compression`, `.reverseProxies`, `.metrics`, `.https`... set theirs here.
        public var features = ServerFeatures()
        /// Size and count limits, each answered with its own status.
        public var limits: Limits
        /// How long the server waits for a slow peer.
        public var timeouts: Timeouts
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
        public var ioBackend: IOBackend = .default
        /// Where the server logs rejected requests, handler errors and its lifecycle.
        public var logger: Logger
        /// Request ids: with this on, a request without a usable `X-Request-ID` gets a random one,
        /// and every response carries its id back in `X-Request-ID` (see ``RequestContext``). Off
        /// by default: a client's own `X-Request-ID` still reaches ``RequestContext/requestID``.
        public var requestIDs = false
        /// Where to send systemd readiness (`READY=1` once listening, `STOPPING=1` when a graceful
        /// shutdown starts, with `STATUS=` lines); by default `$NOTIFY_SOCKET`, which systemd sets
        /// for `Type=notify` services, so nothing is sent when the variable is absent.
        public var systemdNotifier: SystemdNotifier? = .fromEnvironment()
        /// Serve on listening sockets this process inherited (systemd socket activation) instead
        /// of binding ``host``:``port`` and the HTTPS listener's address; `nil` (the default) binds.
        /// See ``SocketActivation``: sockets named `https` or `tls` are served with
        /// `configuration.https` (WhiskerTLS), the others as cleartext.
        ///
        ///     configuration.socketActivation = try WhiskerServer.SocketActivation.fromEnvironment()
        public var socketActivation: SocketActivation?
        /// Where to log one line per request (method, path, status, bytes, duration, protocol, peer,
        /// request id), at `info`; `nil` (the default) for none, at no cost.
        public var accessLog: Logger?
        /// What watches every request: `import WhiskerObservability` and set
        /// `configuration.metrics` or `configuration.tracer` (which set this) for the OpenTelemetry
        /// HTTP server metrics and spans, or give an observer of your own. `nil` (the default): no
        /// request is observed, and the request path pays one `nil` check.
        public var requestObserver: (any RequestObserver)?
        /// Steps of your own on the way out of every response (``ResponseStep``), a handler's or
        /// the server's, after the built-in ones of their phase; none by default.
        public var responseSteps: [any ResponseStep] = []

        /// Creates a configuration.
        /// - Parameters:
        ///   - host: The address to listen on.
        ///   - port: The port; 0 picks a free one.
        ///   - limits: Size and count limits.
        ///   - timeouts: Timeouts for slow peers.
        ///   - logger: The logger for the server's own messages.
        public init(
            host: String = "127.0.0.1",
            port: Int = 8080,
            limits: Limits = .init(),
            timeouts: Timeouts = .init(),
            logger: Logger = Logger(label: "whisker")
        ) {
            self.host = host
            self.port = port
            self.limits = limits
            self.timeouts = timeouts
            self.logger = logger
        }
    }

    /// Listening sockets handed to the process by systemd (or `systemd-socket-activate`), and
    /// which of them speak TLS.
    ///
    /// With ``Configuration/socketActivation`` set, the server binds nothing: it serves every
    /// inherited socket, in order, and ``Configuration/host``, ``Configuration/port`` and the
    /// HTTPS listener's `host` and `port` are not used. An inherited socket whose
    /// `FileDescriptorName=` is in ``tlsNames`` (`https` or `tls` by default) is served with the
    /// certificate of `configuration.https` (WhiskerTLS); the others serve cleartext HTTP (and h2c). These
    /// are startup errors, each naming the socket and the setting: a TLS socket without
    /// `configuration.https`, a cleartext socket with `servesCleartext` off, and
    /// `configuration.https` with no TLS socket to serve it on.
    ///
    ///     var configuration = WhiskerServer.Configuration()
    ///     configuration.https = .init(port: 0, tls: TLSConfiguration(
    ///         certificateChainPath: "/etc/cat/fullchain.pem", privateKeyPath: "/etc/cat/privkey.pem"))
    ///     configuration.socketActivation = try WhiskerServer.SocketActivation.fromEnvironment()
    ///     // nil when not socket-activated: the server binds host and port as usual.
    ///
    /// `run(onListening:)` reports the inherited sockets' addresses in the order of
    /// ``descriptors``; ``servesTLS(_:)`` says which of them speak TLS.
    public struct SocketActivation: Sendable, Equatable {
        /// The inherited listening sockets; the server adopts each one and closes it when it stops.
        public var descriptors: [SystemdSocketActivation.Descriptor]
        /// The descriptor names (`FileDescriptorName=` in a `.socket` unit, `--fdname=` for
        /// `systemd-socket-activate`) served with TLS.
        public var tlsNames: Set<String>

        /// The names served with TLS unless told otherwise: `https` and `tls`.
        public static let defaultTLSNames: Set<String> = ["https", "tls"]

        /// Serves the given inherited sockets.
        /// - Parameters:
        ///   - descriptors: Listening sockets the process owns, each served by one server only.
        ///   - tlsNames: The names of the descriptors to serve with TLS.
        public init(descriptors: [SystemdSocketActivation.Descriptor], tlsNames: Set<String> = defaultTLSNames) {
            self.descriptors = descriptors
            self.tlsNames = tlsNames
        }

        /// Serves the sockets systemd passed.
        /// - Parameters:
        ///   - activation: What ``/WhiskerSockets/SystemdSocketActivation/fromEnvironment()`` read.
        ///   - tlsNames: The names of the descriptors to serve with TLS.
        public init(_ activation: SystemdSocketActivation, tlsNames: Set<String> = defaultTLSNames) {
            self.init(descriptors: activation.descriptors, tlsNames: tlsNames)
        }

        /// The sockets systemd passed to this process (and unsets `LISTEN_PID`, `LISTEN_FDS` and
        /// `LISTEN_FDNAMES`), or `nil` when it was not socket-activated.
        /// - Parameter tlsNames: The names of the descriptors to serve with TLS.
        /// - Throws: ``/WhiskerSockets/SystemdSocketActivationError`` naming a malformed variable.
        public static func fromEnvironment(tlsNames: Set<String> = defaultTLSNames) throws(SystemdSocketActivationError) -> SocketActivation? {
            try SystemdSocketActivation.fromEnvironment().map { SocketActivation($0, tlsNames: tlsNames) }
        }

        /// Whether `descriptor` is served with TLS: its name is one of ``tlsNames``.
        public func servesTLS(_ descriptor: SystemdSocketActivation.Descriptor) -> Bool {
            tlsNames.contains(descriptor.name)
        }
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
