public import struct Foundation.URL
public import HTTPTypes
public import OpenAPIRuntime
import Synchronization
public import WhiskerCore
import WhiskerSockets

/// A `ClientTransport` for testing the handlers you serve with Whisker through the `Client` that
/// swift-openapi-generator generates from the same document: typed requests, typed responses, and
/// the server's real request path in between.
///
/// **In process** (``init(_:over:)``), there is no listener and no socket: each request opens a
/// connection in memory to the server's routes and the server's own connection code serves it,
/// exactly as it serves an accepted socket (parsing, limits, routing, the response steps,
/// compression, request ids, the access log). The server need not run:
///
///     let server = makeTestServer()
///     try MyHandler().registerHandlers(on: WhiskerTransport(server), serverURL: try Servers.Server1.url())
///     let client = Client(serverURL: try Servers.Server1.url(), transport: WhiskerTestTransport(server))
///     let output = try await client.getGreeting(query: .init(name: "Tom"))
///     #expect(try output.ok.body.json.message == "Hello, Tom!")
///
/// **Live** (``live(_:over:_:)``), the server runs on a free port of 127.0.0.1 and the requests go
/// over TCP, for what only a socket shows (TCP's own backpressure, a real peer address):
///
///     try await WhiskerTestTransport.live(server, over: .http2) { transport in
///         let client = Client(serverURL: try Servers.Server1.url(), transport: transport)
///         ...
///     }
///
/// Either way, each request has a connection of its own, HTTP/1.1 or HTTP/2 (h2c with prior
/// knowledge: configure the server with `configuration.http2 = HTTP2Settings()` for it, with
/// `import WhiskerHTTP2`). Only the path of the client's server URL is used: a request for
/// `http://localhost:8080/api` + `/emoji` asks the server for `/api/emoji`, wherever it is.
///
/// Bodies stream both ways, with backpressure, as over a network:
/// - a request body is sent as the handler reads it (a 20 MiB upload is never whole in memory;
///   a handler that stops reading stops the client's sending);
/// - a response body is readable as the server writes it (each event of an event stream as it is
///   sent), and the server's writes wait while the client does not read;
/// - a response body dropped unread closes its connection, as a client that leaves: the
///   server's handler is cancelled, and the access log says 499.
public struct WhiskerTestTransport: ClientTransport {
    /// The protocol a transport speaks to the server.
    public enum HTTPVersion: Sendable, CustomStringConvertible {
        /// HTTP/1.1: a request body of unknown length is sent chunked.
        case http1
        /// HTTP/2 with prior knowledge (h2c, RFC 9113 section 3.3): the server must have
        /// `configuration.http2` set. The response body is acknowledged (flow control) as it is read.
        case http2

        public var description: String { self == .http1 ? "HTTP/1.1" : "HTTP/2" }
    }

    private enum Destination: Sendable {
        case inProcess(WhiskerServer, SharedWorker)
        case live(SocketAddress, timeout: Duration)
    }

    private let destination: Destination
    /// The protocol this transport speaks.
    public let httpVersion: HTTPVersion

    /// A transport that hands each request to `server`'s routes in memory, through the server's
    /// own connection code: no listener, no socket, and the server need not run. Register the
    /// routes first: the first request freezes them, as running the server does.
    /// - Parameters:
    ///   - server: The server whose routes answer (its address is not used).
    ///   - version: HTTP/1.1, or HTTP/2 with prior knowledge (set `configuration.http2`).
    public init(_ server: WhiskerServer, over version: HTTPVersion = .http1) {
        destination = .inProcess(server, SharedWorker())
        httpVersion = version
    }

    /// A transport that connects to `address` over TCP for each request: for a server you run
    /// yourself (``live(_:over:_:)`` runs one for you).
    /// - Parameters:
    ///   - address: Where the server listens (what ``WhiskerCore/WhiskerServer/withRunning(_:)`` reports).
    ///   - version: HTTP/1.1, or HTTP/2 with prior knowledge (set `configuration.http2`).
    ///   - timeout: How long any one read from the server may wait before the request fails.
    public init(connectingTo address: SocketAddress, over version: HTTPVersion = .http1, timeout: Duration = .seconds(30)) {
        destination = .live(address, timeout: timeout)
        httpVersion = version
    }

    /// Runs `server` on a free port of 127.0.0.1 and calls `body` with a transport that connects
    /// to it over TCP, then shuts the server down gracefully and waits until it has stopped.
    ///
    ///     let server = makeTestServer { $0.http2 = HTTP2Settings() }
    ///     try MyHandler().registerHandlers(on: WhiskerTransport(server), serverURL: try Servers.Server1.url())
    ///     try await WhiskerTestTransport.live(server, over: .http2) { transport in
    ///         let client = Client(serverURL: try Servers.Server1.url(), transport: transport)
    ///         #expect(try await client.getGreeting().ok.body.json.message == "Hello, Stranger!")
    ///     }
    ///
    /// - Parameters:
    ///   - server: A server made with port 0 (``makeTestServer(_:)`` makes one); not yet run.
    ///   - version: HTTP/1.1, or HTTP/2 with prior knowledge (set `configuration.http2`).
    ///   - body: What to do while the server runs.
    /// - Returns: What `body` returns.
    @discardableResult
    public static func live<Result: Sendable>(
        _ server: WhiskerServer, over version: HTTPVersion = .http1, _ body: @Sendable (WhiskerTestTransport) async throws -> Result
    ) async throws -> Result {
        try await server.withRunning { address in
            try await body(WhiskerTestTransport(connectingTo: address, over: version))
        }
    }

    /// Sends `request` on a new connection and returns the response as soon as its head has
    /// arrived; its body streams from the connection as it is read (`nil` for a `HEAD` request,
    /// 204 and 304).
    /// - Parameters:
    ///   - request: The request; its path is appended to `baseURL`'s path.
    ///   - body: The request body, streamed to the server (by `Content-Length` when its length is
    ///     known, else chunked over HTTP/1.1).
    ///   - baseURL: The server URL the client was made with: only its path (and host, for the
    ///     `Host` field or `:authority`) is used.
    ///   - operationID: Unused.
    /// - Throws: ``WhiskerTestTransportError`` when the response cannot be read (the server closed
    ///   the connection first, a malformed response, a live read timed out), or the error the
    ///   request body threw.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        var prefix = baseURL.path(percentEncoded: true)
        while prefix.hasSuffix("/") { prefix.removeLast() }
        request.path = prefix + (request.path ?? "/")
        if request.authority == nil, let host = baseURL.host() {
            request.authority = baseURL.port.map { "\(host):\($0)" } ?? host
        }
        let pipe: any ClientPipe
        switch destination {
        case .inProcess(let server, let worker):
            pipe = try InProcessPipe(to: server, worker: try worker.get())
        case .live(let address, let timeout):
            pipe = try await SocketPipe.connect(to: address, timeout: timeout)
        }
        switch httpVersion {
        case .http1: return try await HTTP1ClientExchange.send(request, body: body, over: pipe)
        case .http2: return try await HTTP2ClientExchange.send(request, body: body, over: pipe)
        }
    }
}

/// The I/O worker a transport's in-memory connections share, made at the first request (a worker
/// holds a descriptor: made per transport, not per request).
private final class SharedWorker: Sendable {
    private let worker = Mutex<IOWorker?>(nil)

    func get() throws -> IOWorker {
        try worker.withLock { worker throws(SocketError) -> IOWorker in
            if let worker { return worker }
            let made = try IOWorker(label: "whisker.test-transport")
            worker = made
            return made
        }
    }
}

/// Why ``WhiskerTestTransport`` could not complete a request: the connection closed before the
/// response was complete, the response was malformed, or a live read timed out.
public struct WhiskerTestTransportError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
