public import CoreMetrics
public import HTTPTypes
import Synchronization
public import Tracing
public import WhiskerCore

/// Metrics and tracing for the requests of a server, under the OpenTelemetry HTTP semantic
/// conventions: the ``/WhiskerCore/RequestObserver`` that setting
/// ``WhiskerCore/WhiskerServer/Configuration/metrics`` or ``WhiskerCore/WhiskerServer/Configuration/tracer``
/// installs. With neither set there is none, and the request path pays one `nil` check.
///
/// - `http.server.request.duration`: a `Timer` (in seconds) per method, route, status, protocol
///   version and scheme; `http.server.active_requests`: a `Meter` per method and scheme, up while a
///   handler runs and down when its response is finished, whatever the outcome.
/// - One `.server` span per request, named `GET /pets/{petId}` (or just the method when no route
///   matched), continuing the trace the client sent (`traceparent` and `tracestate`, or whatever
///   the tracer's propagator reads from the request's fields).
public final class RequestInstrumentation: RequestObserver {
    let metrics: (any MetricsFactory)?
    let tracer: (any Tracer)?
    /// Metric objects by dimensions, made once, so a request only looks them up.
    private let durations = Mutex<[DurationKey: CoreMetrics.Timer]>([:])
    private let activeRequests = Mutex<[ActiveKey: Meter]>([:])

    /// Observes requests with `metrics`, `tracer`, or both; `nil` when both are `nil`.
    public init?(metrics: (any MetricsFactory)?, tracer: (any Tracer)?) {
        guard metrics != nil || tracer != nil else { return nil }
        self.metrics = metrics
        self.tracer = tracer
    }

    /// The label of the request duration timer (OpenTelemetry's `http.server.request.duration`):
    /// one value per request, displayed in seconds, with the dimensions `http.request.method`,
    /// `http.route` (the route's template; absent when no route matched), `http.response.status_code`,
    /// `error.type` (for a 5xx only), `network.protocol.version` and `url.scheme`.
    public static let durationLabel = "http.server.request.duration"
    /// The label of the in-flight request gauge (OpenTelemetry's `http.server.active_requests`, a
    /// `Meter`) with the dimensions `http.request.method` and `url.scheme`: up while a handler
    /// runs, down when its response is finished (or failed, or the client went away).
    public static let activeRequestsLabel = "http.server.active_requests"

    /// Runs `respond` (the handler and the sending of its response) as one observed request of
    /// `route`, and returns what it returns: the status and the body bytes written.
    public func observe(_ request: Request, route: String, context: RequestContext, _ respond: () async -> (status: Int, bytes: Int)) async -> (status: Int, bytes: Int) {
        let attributes = RequestAttributes(method: request.head.method, route: route, httpVersion: context.httpVersion, isTLS: context.tls != nil)
        let active = metrics.map { activeMeter(attributes, factory: $0) }
        active?.increment()
        let started = ContinuousClock.now
        let result: (status: Int, bytes: Int)
        if let tracer {
            result = await traced(by: tracer, attributes, request.head, peer: context.peer, client: context.client, respond)
        } else {
            result = await respond()
        }
        let elapsed = ContinuousClock.now - started
        active?.decrement()
        if let metrics { durationTimer(attributes, status: result.0, factory: metrics).recordNanoseconds(elapsed.nanoseconds) }
        return result
    }

    /// Records a request the server answered itself, without a handler (404, 405, a refusal): its
    /// duration (with no route) and a span; `write` sends the response. A request whose head could
    /// not be read counts under the method `_OTHER`.
    public func observeLocalResponse(to head: HTTPRequest?, status: Int, context: RequestContext, write: () -> Void) {
        let attributes = RequestAttributes(method: head?.method, route: nil, httpVersion: context.httpVersion, isTLS: context.tls != nil)
        let started = ContinuousClock.now
        if let tracer {
            let span = startSpan(tracer, attributes, head, peer: context.peer, client: context.client)
            write()
            end(span, status: status)
        } else {
            write()
        }
        let elapsed = ContinuousClock.now - started
        if let metrics { durationTimer(attributes, status: status, factory: metrics).recordNanoseconds(elapsed.nanoseconds) }
    }

    // MARK: Tracing

    private func traced(
        by tracer: some Tracer, _ attributes: RequestAttributes, _ head: HTTPRequest, peer: SocketAddress, client: SocketAddress,
        _ respond: () async -> (status: Int, bytes: Int)
    ) async -> (status: Int, bytes: Int) {
        let span = startSpan(tracer, attributes, head, peer: peer, client: client)
        let result = await ServiceContext.$current.withValue(span.context) { await respond() }
        end(span, status: result.0)
        return result
    }

    /// `client` is the original client (behind trusted proxies), `peer` the socket's peer.
    private func startSpan<T: Tracer>(_ tracer: T, _ attributes: RequestAttributes, _ head: HTTPRequest?, peer: SocketAddress, client: SocketAddress) -> T.Span {
        var parent = ServiceContext.topLevel
        if let head { tracer.extract(head.headerFields, into: &parent, using: HTTPFieldsExtractor()) }
        let name = attributes.route.map { "\(attributes.spanMethod) \($0)" } ?? attributes.spanMethod
        let span = tracer.startSpan(name, context: parent, ofKind: .server)
        span.updateAttributes { spanAttributes in
            spanAttributes["http.request.method"] = attributes.method
            if let head, attributes.method != head.method.rawValue { spanAttributes["http.request.method_original"] = head.method.rawValue }
            if let route = attributes.route { spanAttributes["http.route"] = route }
            if let path = head?.path { spanAttributes["url.path"] = String(path[..<(path.firstIndex(of: "?") ?? path.endIndex)]) }
            spanAttributes["url.scheme"] = attributes.scheme
            spanAttributes["network.protocol.version"] = attributes.protocolVersion
            spanAttributes["client.address"] = client.host
            if client.port != 0 { spanAttributes["client.port"] = client.port }
            spanAttributes["network.peer.address"] = peer.host
            spanAttributes["network.peer.port"] = peer.port
            if let userAgent = head?.headerFields[.userAgent] { spanAttributes["user_agent.original"] = userAgent }
        }
        return span
    }

    private func end(_ span: some Span, status: Int) {
        span.updateAttributes { attributes in
            attributes["http.response.status_code"] = status
            if status >= 500 { attributes["error.type"] = String(status) }
        }
        if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
        span.end()
    }

    // MARK: Metrics

    private func durationTimer(_ attributes: RequestAttributes, status: Int, factory: any MetricsFactory) -> CoreMetrics.Timer {
        let key = DurationKey(attributes: attributes, status: status)
        if let timer = durations.withLock({ $0[key] }) { return timer }
        var dimensions = [("http.request.method", attributes.method)]
        if let route = attributes.route { dimensions.append(("http.route", route)) }
        dimensions.append(("http.response.status_code", String(status)))
        if status >= 500 { dimensions.append(("error.type", String(status))) }
        dimensions += [("network.protocol.version", attributes.protocolVersion), ("url.scheme", attributes.scheme)]
        let timer = CoreMetrics.Timer(label: Self.durationLabel, dimensions: dimensions, preferredDisplayUnit: .seconds, factory: factory)
        return durations.withLock { timers in
            if let existing = timers[key] { return existing }
            timers[key] = timer
            return timer
        }
    }

    private func activeMeter(_ attributes: RequestAttributes, factory: any MetricsFactory) -> Meter {
        let key = ActiveKey(method: attributes.method, scheme: attributes.scheme)
        if let meter = activeRequests.withLock({ $0[key] }) { return meter }
        let meter = Meter(label: Self.activeRequestsLabel, dimensions: [("http.request.method", attributes.method), ("url.scheme", attributes.scheme)], factory: factory)
        return activeRequests.withLock { meters in
            if let existing = meters[key] { return existing }
            meters[key] = meter
            return meter
        }
    }
}

/// The semantic-convention values of one request that its metrics and span share.
private struct RequestAttributes {
    /// The method if it is one of the nine of RFC 9110 and RFC 5789, else `_OTHER` (which keeps a
    /// client from making a new metric per made-up method).
    let method: String
    /// The route template (`/pets/{petId}`), never the raw path; `nil` when no route matched.
    let route: String?
    let protocolVersion: String
    let scheme: String

    /// `method` is `nil` for a request whose head could not be read (`_OTHER`).
    init(method: HTTPRequest.Method?, route: String?, httpVersion: RequestContext.HTTPVersion, isTLS: Bool) {
        self.method = switch method {
        case .get?, .head?, .post?, .put?, .delete?, .connect?, .options?, .trace?, .patch?: method?.rawValue ?? "_OTHER"
        default: "_OTHER"
        }
        self.route = route
        protocolVersion = switch httpVersion {
        case .http1_0: "1.0"
        case .http1_1: "1.1"
        case .http2: "2"
        }
        scheme = isTLS ? "https" : "http"
    }

    /// The method as a span name starts: `HTTP` stands for `_OTHER`.
    var spanMethod: String { method == "_OTHER" ? "HTTP" : method }
}

private struct DurationKey: Hashable {
    let method: String
    let route: String?
    let status: Int
    let protocolVersion: String
    let scheme: String

    init(attributes: RequestAttributes, status: Int) {
        method = attributes.method
        route = attributes.route
        self.status = status
        protocolVersion = attributes.protocolVersion
        scheme = attributes.scheme
    }
}

private struct ActiveKey: Hashable {
    let method: String
    let scheme: String
}

/// Reads trace context (`traceparent`, `tracestate`, or whatever keys the tracer asks for) from
/// a request's header fields; repeated fields come back joined with commas.
struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from fields: HTTPFields) -> String? {
        guard let name = HTTPField.Name(key) else { return nil }
        return fields[name]
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating at `Int64.max`.
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : scaled.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
