import HTTPTypes
import InMemoryTracing
import Testing
import Tracing
import WhiskerCore
import WhiskerHTTP2
import WhiskerObservability
import WhiskerTesting

/// `configuration.tracer`: one server span per request, continuing the client's trace.
@Suite struct TracingTests {
    private static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    private static let clientSpanID = "00f067aa0ba902b7"

    /// `GET /pets/{petId}` answers with the trace and span ids it sees in `ServiceContext.current`,
    /// and the `tracestate` that came with them; `GET /fail` -> 503.
    private func registerRoutes(on server: WhiskerServer) throws {
        try server.register(method: .get, path: "/pets/{petId}") { _ in
            let span = ServiceContext.current?.inMemorySpanContext
            let state = ServiceContext.current?[TraceStateKey.self] ?? "-"
            return Response(status: .ok, body: .init(string: "\(span?.traceID ?? "-") \(span?.spanID ?? "-") \(state)"))
        }
        try server.register(method: .get, path: "/fail") { _ in Response(status: .serviceUnavailable) }
    }

    @Test func http11_SpanContinuesTheClientsTraceparent_WithSemanticConventionAttributes() async throws {
        let tracer = W3CTestTracer()
        let server = makeTestServer { $0.tracer = tracer }
        try registerRoutes(on: server)
        let text = try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send(
                "GET /pets/7?size=s HTTP/1.1\r\nHost: x\r\nUser-Agent: spec/1.0\r\n"
                    + "traceparent: 00-\(Self.traceID)-\(Self.clientSpanID)-01\r\ntracestate: vendor=1\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            try await tracer.waitForSpans(1)
            return response.text
        }
        let span = try #require(tracer.inMemory.finishedSpans.first)
        #expect(tracer.inMemory.finishedSpans.count == 1)
        #expect(span.operationName == "GET /pets/{petId}")
        #expect(span.kind == .server)
        #expect(span.traceID == Self.traceID, "the client's trace goes on")
        #expect(span.parentSpanID == Self.clientSpanID, "the client's span is the parent")
        #expect(text == "\(Self.traceID) \(span.spanID) vendor=1", "the handler runs inside the server span, with tracestate")
        #expect(span.status == nil)
        let attributes = span.attributes
        #expect(attributes.get("http.request.method") == .string("GET"))
        #expect(attributes.get("http.route") == .string("/pets/{petId}"))
        #expect(attributes.get("http.response.status_code") == .int64(200))
        #expect(attributes.get("url.path") == .string("/pets/7"))
        #expect(attributes.get("url.scheme") == .string("http"))
        #expect(attributes.get("network.protocol.version") == .string("1.1"))
        #expect(attributes.get("client.address") == .string("127.0.0.1"))
        #expect(attributes.get("user_agent.original") == .string("spec/1.0"))
        #expect(attributes.get("error.type") == nil)
    }

    @Test func serverErrors_MarkTheSpanAsAnError_AndARequestWithoutTraceparentStartsATrace() async throws {
        let tracer = W3CTestTracer()
        let server = makeTestServer { $0.tracer = tracer }
        try registerRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /fail HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 503)
            try await tracer.waitForSpans(1)
        }
        let span = try #require(tracer.inMemory.finishedSpans.first)
        #expect(span.operationName == "GET /fail")
        #expect(span.status?.code == .error)
        #expect(span.attributes.get("http.response.status_code") == .int64(503))
        #expect(span.attributes.get("error.type") == .string("503"))
        #expect(span.parentSpanID == nil, "no traceparent: a new trace")
        #expect(span.traceID != Self.traceID)
        #expect(span.attributes.get("user_agent.original") == nil)
    }

    @Test func http2_SpansForRoutedAndUnroutedRequests() async throws {
        let tracer = W3CTestTracer()
        let server = makeTestServer {
            $0.tracer = tracer
            $0.http2 = HTTP2Settings()
        }
        try registerRoutes(on: server)
        try await server.withRunning { address in
            let socket = try await TestClient.connect(to: address)
            let h2 = HTTP2TestClient()
            let routed = h2.request(path: "/pets/9", headers: [("traceparent", "00-\(Self.traceID)-\(Self.clientSpanID)-01")])
            let unrouted = h2.request(method: "PUT", path: "/nowhere/9")
            try await h2.exchange(over: socket) { $0.closed[routed] != nil && $0.closed[unrouted] != nil }
            #expect(h2.status(routed) == "200")
            #expect(h2.status(unrouted) == "404")
            try await tracer.waitForSpans(2)
        }
        let spans = tracer.inMemory.finishedSpans
        #expect(spans.count == 2)
        let pets = try #require(spans.first { $0.operationName == "GET /pets/{petId}" })
        #expect(pets.traceID == Self.traceID)
        #expect(pets.parentSpanID == Self.clientSpanID)
        #expect(pets.attributes.get("network.protocol.version") == .string("2"))
        #expect(pets.attributes.get("url.path") == .string("/pets/9"))
        let miss = try #require(spans.first { $0.operationName == "PUT" }, "an unrouted span is named by its method alone")
        #expect(miss.kind == .server)
        #expect(miss.attributes.get("http.route") == nil)
        #expect(miss.attributes.get("http.response.status_code") == .int64(404))
        #expect(miss.attributes.get("url.path") == .string("/nowhere/9"))
        #expect(miss.status == nil, "a 4xx is not a server error")
    }
}

/// `tracestate`, kept in the context by ``W3CTestTracer``.
private enum TraceStateKey: ServiceContextKey {
    typealias Value = String
}

/// An `InMemoryTracer` that reads W3C trace context as a real propagator does: `traceparent`
/// (`00-<trace id>-<parent span id>-<flags>`) becomes the parent span, `tracestate` is kept. It
/// also signals each span's end, so a test waits for a span instead of racing it (a span ends
/// just after its response is sent).
private struct W3CTestTracer: Tracer {
    let inMemory = InMemoryTracer()
    private let ended = Signal<Void>()

    /// Waits (bounded) until `count` more spans have ended.
    func waitForSpans(_ count: Int) async throws {
        for index in 0..<count {
            guard await ended.wait() != nil else { throw WaitTimedOut(description: "only \(index) of \(count) spans ended") }
        }
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> SignallingSpan {
        let span = inMemory.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
        return SignallingSpan(inner: span, ended: ended)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {
        guard let parent = extractor.extract(key: "traceparent", from: carrier) else { return }
        let parts = parent.split(separator: "-")
        guard parts.count == 4, parts[1].count == 32, parts[2].count == 16 else { return }
        context.inMemorySpanContext = InMemorySpanContext(traceID: String(parts[1]), spanID: String(parts[2]), parentSpanID: nil)
        context[TraceStateKey.self] = extractor.extract(key: "tracestate", from: carrier)
    }

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        inMemory.inject(context, into: &carrier, using: injector)
    }

    func forceFlush() {}
}

/// An `InMemorySpan` that fires a signal once it has ended.
private struct SignallingSpan: Span {
    let inner: InMemorySpan
    let ended: Signal<Void>

    var context: ServiceContext { inner.context }
    var operationName: String {
        get { inner.operationName }
        nonmutating set { inner.operationName = newValue }
    }
    var attributes: SpanAttributes {
        get { inner.attributes }
        nonmutating set { inner.attributes = newValue }
    }
    var isRecording: Bool { inner.isRecording }

    func setStatus(_ status: SpanStatus) { inner.setStatus(status) }
    func addEvent(_ event: SpanEvent) { inner.addEvent(event) }
    func addLink(_ link: SpanLink) { inner.addLink(link) }
    func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        inner.recordError(error, attributes: attributes, at: instant())
    }

    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        inner.end(at: instant())
        ended.fire()
    }
}
