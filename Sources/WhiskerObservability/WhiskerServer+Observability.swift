public import CoreMetrics
public import Tracing
public import WhiskerCore

extension WhiskerServer.Configuration {
    /// Where to report request metrics, under the OpenTelemetry HTTP server names; `nil` (the
    /// default) for none, at no cost. Pass `MetricsSystem.factory` to use the backend your
    /// program bootstrapped (swift-otel, a Prometheus client, ...), or a factory of your own:
    ///
    ///     MetricsSystem.bootstrap(myBackend)
    ///     configuration.metrics = MetricsSystem.factory
    ///
    /// The server then reports
    /// - `http.server.request.duration`: a `Timer` (displayed in seconds) per request, with the
    ///   dimensions `http.request.method`, `http.route` (the template, `/pets/{petId}`, never
    ///   the raw path; absent for a 404 or 405 the server answered itself),
    ///   `http.response.status_code`, `error.type` (the status, for a 5xx only),
    ///   `network.protocol.version` (`1.0`, `1.1`, `2`) and `url.scheme` (`http`, `https`);
    /// - `http.server.active_requests`: a `Meter` with `http.request.method` and `url.scheme`,
    ///   up while a handler runs and down when its response is finished (or failed, or the
    ///   client went away).
    ///
    /// A method outside the nine standard ones is reported as `_OTHER`. Requests refused before
    /// routing (a malformed request, a header block too large, ...) are not counted. Setting this
    /// (or ``tracer``) adds a ``RequestInstrumentation`` feature (an observer of every request);
    /// an observer of your own (``/WhiskerCore/WhiskerServer/Configuration/requestObserver``)
    /// runs inside it.
    public var metrics: (any MetricsFactory)? {
        get { features[RequestInstrumentation.self]?.metrics }
        set { features[RequestInstrumentation.self] = RequestInstrumentation(metrics: newValue, tracer: tracer) }
    }
    /// The tracer that gets one `.server` span per request; `nil` (the default) for none, at no
    /// cost. The span continues the client's trace: the tracer reads its propagation fields
    /// (`traceparent` and `tracestate` for W3C trace context) from the request's header fields.
    /// It is named `GET /pets/{petId}` (the route template; just the method when no route
    /// matched), carries the OpenTelemetry attributes `http.request.method`, `http.route`,
    /// `http.response.status_code`, `url.path`, `url.scheme`, `network.protocol.version`,
    /// `client.address`, `client.port` and `user_agent.original`, and has status `.error` for a
    /// 5xx. While the handler runs, the span's context is `ServiceContext.current`, so spans the
    /// handler starts (and outgoing requests it makes) are its children.
    ///
    ///     InstrumentationSystem.bootstrap(myTracer)   // swift-otel, for example
    ///     configuration.tracer = InstrumentationSystem.tracer
    public var tracer: (any Tracer)? {
        get { features[RequestInstrumentation.self]?.tracer }
        set { features[RequestInstrumentation.self] = RequestInstrumentation(metrics: metrics, tracer: newValue) }
    }
}

extension RequestInstrumentation: ServerFeature {
    /// Observes every request of the server it is a feature of.
    public func contribute(to contributions: inout ServerFeatureContributions) { contributions.add(self as any RequestObserver) }
}
