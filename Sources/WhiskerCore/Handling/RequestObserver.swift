public import HTTPTypes

/// Something that watches every request a server answers: measures it, traces it. A feature adds
/// one (`contributions.add(observer)` in its ``ServerFeature/contribute(to:)``), or set yours as
/// ``WhiskerServer/Configuration/requestObserver``; they nest, the first added outermost.
///
/// Metrics and tracing under the OpenTelemetry HTTP server conventions live in their own module,
/// `WhiskerObservability`, so that a server that observes nothing builds and links none of
/// swift-metrics and swift-distributed-tracing:
///
///     import WhiskerObservability
///     configuration.metrics = MetricsSystem.factory       // adds the observer as a feature
///     configuration.tracer = InstrumentationSystem.tracer
public protocol RequestObserver: Sendable {
    /// Runs `respond` (the handler, and the sending of its response) as one observed request and
    /// returns what it returns: the response's status code and how many body bytes were written.
    /// It runs in the handler's task, with ``RequestContext/current`` set; whatever task-local
    /// context the observer binds around `respond` (a span's, say) is the handler's.
    /// - Parameters:
    ///   - request: The request.
    ///   - route: The path template the request matched (`/pets/{petId}`).
    ///   - context: The request's peer, protocol, TLS details and id.
    ///   - respond: Runs the handler and sends the response.
    func observe(_ request: Request, route: String, context: RequestContext, _ respond: () async -> (status: Int, bytes: Int)) async -> (status: Int, bytes: Int)

    /// A request the server answered itself, without a handler (404, 405, 413, a health check, a
    /// preflight, a request refused before it was routed): `write` sends the response,
    /// synchronously.
    /// - Parameters:
    ///   - head: The request's method, path and fields; `nil` when its head could not be read
    ///     (a malformed request line, a header block past the limit, a header that never came).
    ///   - status: The status code sent.
    ///   - context: The request's peer, protocol, TLS details and id.
    ///   - write: Sends the response.
    func observeLocalResponse(to head: HTTPRequest?, status: Int, context: RequestContext, write: () -> Void)
}

/// Several observers as one, the first outermost: what the features' observers and
/// ``WhiskerServer/Configuration/requestObserver`` become.
struct ObserverChain: RequestObserver {
    let outer: any RequestObserver
    let inner: any RequestObserver

    /// `observers` as one, or `nil` for none (the request path then pays one `nil` check).
    static func make(_ observers: [any RequestObserver]) -> (any RequestObserver)? {
        guard var chain = observers.last else { return nil }
        for observer in observers.dropLast().reversed() { chain = ObserverChain(outer: observer, inner: chain) }
        return chain
    }

    func observe(_ request: Request, route: String, context: RequestContext, _ respond: () async -> (status: Int, bytes: Int)) async -> (status: Int, bytes: Int) {
        await outer.observe(request, route: route, context: context) {
            await inner.observe(request, route: route, context: context, respond)
        }
    }

    func observeLocalResponse(to head: HTTPRequest?, status: Int, context: RequestContext, write: () -> Void) {
        outer.observeLocalResponse(to: head, status: status, context: context) {
            inner.observeLocalResponse(to: head, status: status, context: context, write: write)
        }
    }
}
