public import Logging
public import WhiskerSockets

/// One accepted connection: its byte stream (a socket, or a wrapper such as TLS around it) and
/// the handler that speaks its protocol. Every connection starts with HTTP/1.1; a handler may
/// hand the connection over to another protocol (HTTP/2 by ALPN, by its preface or after
/// `Upgrade: h2c`, see ``ProtocolHandover``; or after a `101`, ``ProtocolSwitch``) with `handOver(to:buffered:)`, after which the
/// stream's events go straight to the new handler: nothing is forwarded through the old one.
/// The registry entry (`onClose`) belongs to the connection, so it outlives any handover.
///
/// Ownership: while the stream is open, its callbacks (read readiness, `onClose`) hold the
/// connection, and the connection holds its current handler, which holds the connection back
/// (strongly: a handler may close the stream in the middle of a batch of events and must still be
/// able to read the connection afterwards). Nothing holds it `unowned`. When the stream closes it
/// drops its callbacks, and the connection drops its handler after telling it
/// (``ConnectionHandler/streamClosed()``), which breaks both cycles; what still runs (a handler
/// task finishing) keeps the objects it reaches alive until it ends, and finds them closed.
///
/// Everything runs on the stream's queue.
public final class Connection {
    /// The bytes of the connection: a socket, or TLS over one.
    public let stream: any ByteStream
    package let context: ServerContext
    /// The socket under ``stream`` (the same object for cleartext), for what comes before it;
    /// `nil` for a stream with no socket (tests).
    package let socket: SocketConnection?
    /// What the listener that accepted the connection asks of it.
    package let role: ListenerRole
    /// The options of the listener that accepted the connection (``ListenerOption``).
    public var listenerOptions: ListenerOptions { role.options }
    /// What the connection started with before HTTP, on a listener that expects it: the PROXY
    /// protocol header (``ProxyTrust``), which requests' contexts carry.
    package var preamble: ConnectionPreamble?
    /// HTTP/1.1 from ``start()`` until a handover.
    package private(set) var handler: (any ConnectionHandler)?
    /// Called once, on the queue, after the stream closed.
    var onClose: (() -> Void)?

    init(stream: any ByteStream, socket: SocketConnection? = nil, role: ListenerRole = ListenerRole(), context: ServerContext) {
        self.stream = stream
        self.socket = socket
        self.role = role
        self.context = context
    }

    /// Starts reading: the PROXY protocol header first on a listener that expects one (see
    /// ``ProxyTrust``), then HTTP/1.1.
    func start() {
        stream.onClose = { [self] in
            let handler = self.handler
            self.handler = nil
            handler?.streamClosed()
            let onClose = self.onClose
            self.onClose = nil
            onClose?()
        }
        stream.startReading { [self] in handler?.readable() }
        var nothing = ReadBuffer()
        if let reader = context.contributions.proxyTrust?.preambleReader(for: self) {
            handOver(to: reader, buffered: &nothing)
        } else {
            startHTTP1()
        }
    }

    /// Hands the connection to HTTP/1.1, which every connection speaks first.
    package func startHTTP1() {
        var nothing = ReadBuffer()
        handOver(to: HTTP1Connection(connection: self), buffered: &nothing)
    }

    /// Where a request on this connection came from, for its ``RequestContext``.
    package func requestOrigin(httpVersion: RequestContext.HTTPVersion, tls: TLSDetails?, executor: DispatchQueueExecutor) -> RequestOrigin {
        RequestOrigin(peer: stream.peer, httpVersion: httpVersion, tls: tls, executor: executor, preamble: preamble, listenerOptions: role.options)
    }

    /// Makes `handler` the connection's protocol from now on, and starts it with `buffered`: the
    /// bytes the previous handler read and did not consume. The previous handler must have
    /// stopped its timers; it gets no more events. On a stream that closed meanwhile nothing
    /// starts (the handler would hold the connection with nothing left to release it).
    package func handOver(to handler: any ConnectionHandler, buffered: inout ReadBuffer) {
        guard !stream.isClosed else { return }
        self.handler = handler
        handler.start(buffered: &buffered)
    }

    /// A graceful shutdown of whatever protocol the connection speaks now.
    func beginShutdown() { handler?.beginShutdown() }

    /// Closes now (aborting anything in flight).
    public func close() { stream.close() }

    /// The server's logger, for lines about this connection.
    public var logger: Logger { context.logger }
}
