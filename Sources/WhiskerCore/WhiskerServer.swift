import Dispatch
public import HTTPTypes
import Logging
import Synchronization
@_exported public import struct WhiskerSockets.SocketAddress
@_exported public import struct WhiskerTLS.TLSConfiguration
@_exported public import struct WhiskerHTTP2.HTTP2Settings
@_exported public import struct WhiskerSockets.SystemdNotifier
public import WhiskerSockets

/// An HTTP/1.1 server on BSD sockets and libdispatch.
///
/// Register routes, then run. ``run(onListening:)`` returns after a graceful shutdown, which
/// ``shutdown()`` or cancelling the running task starts: the listener closes, idle connections
/// close, and requests in flight finish (with `Connection: close`) within
/// ``Timeouts/shutdownGracePeriod``.
///
///     let server = WhiskerServer(configuration: .init(host: "127.0.0.1", port: 8080))
///     try server.register(method: .get, path: "/hello/{name}") { request in
///         Response(status: .ok, body: .init(string: "hello \(request.pathParameters["name"]!)\n"))
///     }
///     try await server.run()
///
/// To serve a swift-openapi-generator `APIProtocol`, wrap the server in `WhiskerTransport`
/// (module `OpenAPIWhisker`) and call the generated `registerHandlers(on:serverURL:)`.
public actor WhiskerServer {
    private enum State {
        case idle
        case running([Listener], ConnectionRegistry)
        case stopping
        case stopped
    }

    /// The configuration the server was created with.
    public nonisolated let configuration: Configuration
    private nonisolated let routes: RouteTable
    private var state = State.idle
    private var stopRequested: CheckedContinuation<Void, Never>?
    private var isStopRequested = false

    /// Creates a server; nothing listens until ``run(onListening:)``.
    /// - Parameter configuration: Address, limits, timeouts and logger.
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
        self.routes = RouteTable()
    }

    /// Adds a route. Call before ``run(onListening:)``.
    /// - Parameters:
    ///   - method: The method; a `GET` route also answers `HEAD`.
    ///   - path: An OpenAPI path template: `/pets`, `/pets/{petId}`, `/file/{name}.zip`.
    ///   - handler: The handler.
    /// - Throws: ``RouteError`` for a malformed template, a route that is already registered
    ///   (naming both), or a server that is already running.
    public nonisolated func register(method: HTTPRequest.Method, path: String, handler: @escaping HTTPHandler) throws(RouteError) {
        try routes.register(handler, method: method, path: path)
    }

    /// Listens and serves until ``shutdown()`` is called or the calling task is cancelled, then
    /// shuts down gracefully and returns.
    /// - Parameter onListening: Called once with the bound addresses (with the real port when
    ///   the configuration asked for port 0) as soon as the server accepts connections.
    /// - Throws: ``WhiskerServerError`` when the server cannot listen (a taken port, a bad address)
    ///   or was already run.
    public func run(onListening: @Sendable ([SocketAddress]) -> Void = { _ in }) async throws {
        guard case .idle = state else { throw WhiskerServerError("the server was already run; make a new one") }
        let logger = configuration.logger
        let endpoints = try Self.endpoints(of: configuration)
        let registry = ConnectionRegistry(context: ServerContext(router: routes.freeze(), configuration: configuration))
        var listeners: [Listener] = []
        do {
            for endpoint in endpoints {
                let listener = try endpoint.listen()
                listeners.append(listener)
                listener.start { socket in
                    registry.accept(socket, tls: endpoint.tls)
                } onError: { error in
                    logger.error("accept failed", metadata: ["error": "\(error)"])
                }
                logger.info("listening", metadata: endpoint.logMetadata(listener))
            }
        } catch {
            for listener in listeners { listener.stop() }
            throw error
        }
        state = .running(listeners, registry)
        onListening(listeners.map(\.localAddress))
        let addresses = listeners.map { "\($0.localAddress)" }.joined(separator: ", ")
        configuration.systemdNotifier?.notify("READY=1\nSTATUS=listening on \(addresses)")

        await withTaskCancellationHandler {
            await waitForStopRequest()
        } onCancel: {
            Task { await self.shutdown() }
        }

        state = .stopping
        logger.info("shutting down", metadata: ["connections": "\(registry.count)"])
        configuration.systemdNotifier?.notify("STOPPING=1\nSTATUS=draining \(registry.count) connections")
        for listener in listeners { listener.stop() }
        await registry.shutdown(gracePeriod: configuration.timeouts.shutdownGracePeriod)
        state = .stopped
        logger.info("stopped")
    }

    private func waitForStopRequest() async {
        guard !isStopRequested else { return }
        await withCheckedContinuation { stopRequested = $0 }
    }

    /// Starts a graceful shutdown; ``run(onListening:)`` returns when it is complete.
    /// Calling it before `run` makes `run` stop as soon as it has started.
    public func shutdown() {
        isStopRequested = true
        stopRequested?.resume()
        stopRequested = nil
    }

    static func display(_ host: String, _ port: Int) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// Why a server could not run, as one readable sentence.
public struct WhiskerServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the setting or address involved.
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The routes of a server: mutable until the server runs, then frozen into an immutable
/// ``Router`` that every connection reads without locking.
final class RouteTable: Sendable {
    private let state = Mutex<(router: Router<HTTPHandler>, frozen: Bool)>((Router(), false))

    func register(_ handler: @escaping HTTPHandler, method: HTTPRequest.Method, path: String) throws(RouteError) {
        try state.withLock { (state) throws(RouteError) in
            guard !state.frozen else { throw RouteError(.serverRunning(method: method, path: path)) }
            try state.router.register(handler, method: method, path: path)
        }
    }

    func freeze() -> Router<HTTPHandler> {
        state.withLock { state in
            state.frozen = true
            return state.router
        }
    }
}
