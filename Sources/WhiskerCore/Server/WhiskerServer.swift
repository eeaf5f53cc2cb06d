// What HTTP means (responses, bodies, rejections, the parser) lives in WhiskerHTTP, under the core;
// `import WhiskerCore` brings it along.
@_exported public import WhiskerHTTP
public import HTTPTypes
import Logging
import Synchronization
@_exported public import struct WhiskerSockets.SocketAddress
@_exported public import struct WhiskerSockets.SystemdNotifier
@_exported public import class WhiskerSockets.IOWorkerGroup
@_exported public import enum WhiskerSockets.IOBackend
public import WhiskerSockets

/// An HTTP/1.1 server on BSD sockets and libdispatch.
///
/// Register routes, then run. ``run(onListening:)`` returns after a graceful shutdown, which
/// ``shutdown()`` starts: the listeners close, idle connections close, requests in flight finish
/// (HTTP/1.1 with `Connection: close`, HTTP/2 after a GOAWAY), and whatever is still open after
/// ``Timeouts/shutdownGracePeriod`` is closed and its handlers cancelled. Cancelling the task that
/// runs the server stops it at once: listeners and connections close, handlers are cancelled.
///
/// Under swift-service-lifecycle, `import WhiskerLifecycle` makes the server a `Service` whose
/// graceful shutdown (SIGTERM in a `ServiceGroup`) is the one above.
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
        case running([WhiskerSockets.Listener], ConnectionRegistry)
        case stopping
        case stopped
    }

    /// The configuration the server was created with.
    public nonisolated let configuration: Configuration
    private nonisolated let routes: RouteTable
    private var state = State.idle
    private var stopRequested: CheckedContinuation<Void, Never>?
    private var isStopRequested = false
    private var listeningWaiters: [CheckedContinuation<[SocketAddress], any Error>] = []
    private var listenFailure: (any Error)?
    /// The wrappers of the encrypted listeners' sockets (TLS, whose `reloadTLS()` replaces their
    /// certificates), set while the server runs.
    package var runningStreamWrappers: [any StreamWrapper] = []

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
    ///   - maxRequestBodySize: The largest request body this route accepts (decoded, when it
    ///     arrives compressed); the server's ``Limits/maxRequestBodySize`` by default.
    ///   - minRequestBodyRate: The slowest this route's request body may arrive; the server's
    ///     ``Limits/minRequestBodyRate`` by default.
    ///   - handler: The handler.
    /// - Throws: ``RouteError`` for a malformed template, a route that is already registered
    ///   (naming both), or a server that is already running.
    public nonisolated func register(
        method: HTTPRequest.Method, path: String, maxRequestBodySize: RequestBodyLimit = .serverDefault,
        minRequestBodyRate: RequestBodyRate = .serverDefault, handler: @escaping HTTPHandler
    ) throws(RouteError) {
        let limit = maxRequestBodySize.bytes(serverDefault: configuration.limits.maxRequestBodySize)
        let rate = minRequestBodyRate.rate(serverDefault: configuration.limits.minRequestBodyRate)
        try routes.register(Route(handler: handler, template: path, bodyLimit: limit, minBodyRate: rate), method: method, path: path)
    }

    /// Adds what answers, for any method, a path under `prefix` that no route has: routes win,
    /// and a path some route has for another method still gets 405. The longest prefix wins.
    /// WhiskerStaticFiles' `serveFiles(from:at:)` is one; a page of your own for every unknown
    /// path is another:
    ///
    ///     try server.registerFallback(under: "/") { request in
    ///         Response(status: .notFound, body: .init(string: "no cats here\n"))
    ///     }
    ///
    /// - Parameters:
    ///   - prefix: A path prefix starting with `/` (`/` takes every path; `/static` takes
    ///     `/static` and what is under `/static/`).
    ///   - maxRequestBodySize: The largest request body it accepts.
    ///   - handler: The handler; `request.pathParameters` is empty, and `request.head.path` is the
    ///     whole path with its query.
    /// - Throws: ``RouteError`` for a malformed or taken prefix, or a server that is already running.
    public nonisolated func registerFallback(under prefix: String, maxRequestBodySize: RequestBodyLimit = .serverDefault, handler: @escaping HTTPHandler) throws(RouteError) {
        let limit = maxRequestBodySize.bytes(serverDefault: configuration.limits.maxRequestBodySize)
        let route = Route(handler: handler, template: prefix.hasSuffix("/") ? prefix + "*" : prefix + "/*", bodyLimit: limit, minBodyRate: configuration.limits.minRequestBodyRate)
        try routes.register(route, method: nil, path: prefix)
    }

    /// Listens and serves until ``shutdown()`` is called, then shuts down gracefully and returns;
    /// when the calling task is cancelled, closes everything at once and returns.
    /// - Parameter onListening: Called once with the bound addresses (with the real port when
    ///   the configuration asked for port 0), one for each listener in order, as soon as the
    ///   server accepts connections.
    /// - Throws: ``WhiskerServerError`` when the server cannot listen (a taken port, a bad address)
    ///   or was already run.
    public func run(onListening: @Sendable ([SocketAddress]) -> Void = { _ in }) async throws {
        guard case .idle = state else { throw WhiskerServerError("the server was already run; make a new one") }
        let logger = configuration.logger
        let registry: ConnectionRegistry
        let readiness = Readiness()
        var listeners: [WhiskerSockets.Listener] = []
        var drainDelay = Duration.zero
        do {
            let workers = try IOWorkerGroup(count: configuration.io.workers, backend: configuration.io.backend)
            let (router, largestBodyLimit) = routes.freeze(serverDefault: configuration.limits.maxRequestBodySize)
            let context = ServerContext(router: router, configuration: configuration, readiness: readiness, largestBodyLimit: largestBodyLimit)
            registry = ConnectionRegistry(context: context, workers: workers)
            drainDelay = context.contributions.drainDelay
            let endpoints = try Self.endpoints(of: configuration, contributions: context.contributions)
            runningStreamWrappers = endpoints.compactMap(\.wrapper)
            for (index, endpoint) in endpoints.enumerated() {
                // Each listener accepts on a worker's queue, spread when there are several.
                let listener = try endpoint.listen(on: workers.workers[index % workers.workers.count])
                listeners.append(listener)
                listener.start { socket in
                    registry.accept(socket, role: endpoint.role)
                } onError: { error in
                    logger.error("accept failed", metadata: ["error": "\(error)"])
                }
                logger.info("listening", metadata: endpoint.logMetadata(listener))
            }
        } catch {
            for listener in listeners { await listener.stop() }
            state = .stopped
            runningStreamWrappers = []
            listenFailure = error
            resumeListeningWaiters(with: .failure(error))
            throw error
        }
        state = .running(listeners, registry)
        readiness.set(true)
        onListening(listeners.map(\.localAddress))
        resumeListeningWaiters(with: .success(listeners.map(\.localAddress)))
        let addresses = listeners.map { "\($0.localAddress)" }.joined(separator: ", ")
        configuration.systemdNotifier?.notify("READY=1\nSTATUS=listening on \(addresses)")

        await withTaskCancellationHandler {
            await waitForStopRequest()
        } onCancel: {
            Task { await self.shutdown() }
        }

        state = .stopping
        readiness.set(false)
        runningStreamWrappers = []
        logger.info("shutting down", metadata: ["connections": "\(registry.count)"])
        configuration.systemdNotifier?.notify("STOPPING=1\nSTATUS=draining \(registry.count) connections")
        if case let delay = drainDelay, delay > .zero, !Task.isCancelled {
            // Readiness says 503 while everything still serves, so balancers move away first.
            logger.info("readiness is 503; listeners close after the drain delay", metadata: ["delay": "\(delay)"])
            try? await Task.sleep(for: delay)
        }
        for listener in listeners { await listener.stop() }
        await registry.shutdown(gracePeriod: configuration.timeouts.shutdownGracePeriod)
        state = .stopped
        logger.info("stopped")
    }

    /// Waits until the server listens and returns its bound addresses (with the real port when
    /// the configuration asked for port 0), one for each of ``Configuration/listeners`` in their
    /// order, so `addresses[i]` is where `listeners[i]` listens: for code that runs the server through something else,
    /// such as a swift-service-lifecycle `ServiceGroup`, and still wants to announce where it is.
    ///
    ///     async let serving: Void = serviceGroup.run()
    ///     let addresses = try await server.listeningAddresses()
    ///     print("listening on \(addresses[0])")
    ///
    /// - Throws: The error that stopped the server from listening, or ``WhiskerServerError`` when
    ///   it has already stopped.
    public func listeningAddresses() async throws -> [SocketAddress] {
        switch state {
        case .running(let listeners, _):
            return listeners.map(\.localAddress)
        case .stopping, .stopped:
            throw listenFailure ?? WhiskerServerError("the server is not running")
        case .idle:
            return try await withCheckedThrowingContinuation { listeningWaiters.append($0) }
        }
    }

    private func resumeListeningWaiters(with result: Result<[SocketAddress], any Error>) {
        for waiter in listeningWaiters { waiter.resume(with: result) }
        listeningWaiters = []
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

    /// Serves one connection over `stream` as an accepted socket is served (HTTP/1.1 first, then
    /// whatever a feature's ``ProtocolHandover`` takes over), with the routes registered so far
    /// and the configuration, without listening or running: for WhiskerTesting's
    /// `InMemoryConnection`. Routes can no longer be registered afterwards, as once the server
    /// runs. No registry tracks the connection: ``shutdown()`` does not reach it; closing the
    /// stream ends it. Call on the stream's queue.
    package nonisolated func serve(_ stream: any ByteStream) {
        let (router, largestBodyLimit) = routes.freeze(serverDefault: configuration.limits.maxRequestBodySize)
        let context = ServerContext(router: router, configuration: configuration, largestBodyLimit: largestBodyLimit)
        // The stream's callbacks hold the connection until it closes.
        Connection(stream: stream, context: context).start()
    }

    static func display(_ host: String, _ port: Int) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// Why a server could not run, as one readable sentence.
public struct WhiskerServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the setting or address involved.
    public let description: String
    /// An error that says `description`.
    package init(_ description: String) { self.description = description }
}

/// The routes of a server: mutable until the server runs, then frozen into an immutable
/// ``Router`` that every connection reads without locking.
final class RouteTable: Sendable {
    private struct State {
        var router = Router<Route>()
        var frozen = false
        /// Every route's body limit (`nil` inside: one has none).
        var bodyLimits: [Int64?] = []
    }
    private let state = Mutex(State())

    /// Adds `route`; a `nil` method: a fallback under the prefix `path`.
    func register(_ route: Route, method: HTTPRequest.Method?, path: String) throws(RouteError) {
        try state.withLock { (state) throws(RouteError) in
            guard !state.frozen else { throw RouteError(.serverRunning(method: method ?? .get, path: path)) }
            if let method { try state.router.register(route, method: method, path: path) } else { try state.router.registerFallback(route, under: path) }
            state.bodyLimits.append(route.bodyLimit)
        }
    }

    /// The routes, from now on unchangeable, and the largest body any of them accepts (`nil`:
    /// one accepts any), `serverDefault` when there are none: what the connections let through
    /// before a request is routed.
    func freeze(serverDefault: Int64?) -> (router: Router<Route>, largestBodyLimit: Int64?) {
        state.withLock { state in
            state.frozen = true
            guard !state.bodyLimits.isEmpty else { return (state.router, serverDefault) }
            let largest = state.bodyLimits.contains(nil) ? nil : state.bodyLimits.compactMap { $0 }.max()
            return (state.router, largest)
        }
    }
}

/// A registered handler, the path template it was registered under (`/pets/{petId}`), which
/// metrics and spans name as the request's route, and its request body's limit and minimum rate
/// (`nil`: none).
struct Route: Sendable {
    let handler: HTTPHandler
    let template: String
    var bodyLimit: Int64? = WhiskerServer.Limits().maxRequestBodySize
    var minBodyRate: MinimumDataRate? = WhiskerServer.Limits().minRequestBodyRate
}
