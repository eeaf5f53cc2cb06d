public import HTTPTypes

/// Something that watches every request a server answers: measures it, traces it. Set one as
/// ``WhiskerServer/Configuration/requestObserver``.
///
/// Metrics and tracing under the OpenTelemetry HTTP server conventions live in their own module,
/// `WhiskerObservability`, so that a server that observes nothing builds and links none of
/// swift-metrics and swift-distributed-tracing:
///
///     import WhiskerObservability
///     configuration.metrics = MetricsSystem.factory       // sets requestObserver
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

    /// A request the server answered itself, without a handler (404, or 405 with `Allow`): `write`
    /// sends the response, synchronously.
    /// - Parameters:
    ///   - head: The request's method, path and fields.
    ///   - status: The status code sent.
    ///   - httpVersion: The protocol it came over.
    ///   - isTLS: Whether it came over TLS.
    ///   - peer: The client's address.
    ///   - write: Sends the response.
    func observeLocalResponse(to head: HTTPRequest, status: Int, httpVersion: RequestContext.HTTPVersion, isTLS: Bool, peer: SocketAddress, write: () -> Void)
}
