import CoreMetrics
import HTTPTypes
import MetricsTestKit
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerObservability
import WhiskerTesting

/// `configuration.metrics`: the OpenTelemetry HTTP server metrics, checked value by value.
@Suite struct MetricsTests {
    private static let duration = "http.server.request.duration"
    private static let active = "http.server.active_requests"

    /// `GET /pets/{petId}` -> 200, `GET /fail` -> a thrown error (500).
    private func registerRoutes(on server: WhiskerServer) throws {
        try server.register(method: .get, path: "/pets/{petId}") { request in
            Response(status: .ok, body: .init(string: "pet \(request.pathParameters["petId"] ?? "")"))
        }
        try server.register(method: .get, path: "/fail") { _ in throw TestFailure() }
    }

    @Test func metricsAndTracing_AreOffByDefault() {
        let configuration = WhiskerServer.Configuration()
        #expect(configuration.metrics == nil)
        #expect(configuration.tracer == nil)
    }

    @Test func http11_RequestDuration_ByRouteTemplateMethodStatusVersionAndScheme() async throws {
        let metrics = NotifyingMetrics()
        let server = makeTestServer { $0.metrics = metrics }
        try registerRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            for path in ["/pets/7", "/pets/8", "/fail", "/nowhere"] {
                try await client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try await client.readResponse()
            }
            try await client.send("DELETE /pets/7 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 405)
            try await client.send("BREW /pets/7 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 405)
            try await metrics.waitForDurations(6)
        }
        let test = metrics.test
        let pets = try test.expectTimer(Self.duration, [
            ("http.request.method", "GET"), ("http.route", "/pets/{petId}"), ("http.response.status_code", "200"),
            ("network.protocol.version", "1.1"), ("url.scheme", "http"),
        ])
        #expect(pets.values.count == 2, "both /pets/7 and /pets/8 are counted under the template")
        #expect(pets.values.allSatisfy { $0 >= 0 })
        #expect(pets.displayUnit == .seconds)
        let failed = try test.expectTimer(Self.duration, [
            ("http.request.method", "GET"), ("http.route", "/fail"), ("http.response.status_code", "500"), ("error.type", "500"),
            ("network.protocol.version", "1.1"), ("url.scheme", "http"),
        ])
        #expect(failed.values.count == 1)
        let notFound = try test.expectTimer(Self.duration, [
            ("http.request.method", "GET"), ("http.response.status_code", "404"), ("network.protocol.version", "1.1"), ("url.scheme", "http"),
        ])
        #expect(notFound.values.count == 1, "an unrouted request is counted without a route")
        let notAllowed = try test.expectTimer(Self.duration, [
            ("http.request.method", "DELETE"), ("http.response.status_code", "405"), ("network.protocol.version", "1.1"), ("url.scheme", "http"),
        ])
        #expect(notAllowed.values.count == 1)
        let other = try test.expectTimer(Self.duration, [
            ("http.request.method", "_OTHER"), ("http.response.status_code", "405"), ("network.protocol.version", "1.1"), ("url.scheme", "http"),
        ])
        #expect(other.values.count == 1, "a made-up method is reported as _OTHER")
        #expect(test.timers(label: Self.duration).count == 5, "no metric is named by a raw path")
        #expect(test.timers.allSatisfy { !$0.dimensions.contains { $0.1.contains("/pets/7") } })

        let active = try test.expectMeter(Self.active, [("http.request.method", "GET"), ("url.scheme", "http")])
        #expect(active.values == [1, 0, 1, 0, 1, 0], "up and down once per handled request, not for 404 or 405")
    }

    @Test func activeRequests_IsOneWhileAHandlerRuns_AndZeroAfter() async throws {
        let metrics = NotifyingMetrics()
        let started = Signal<Void>()
        let release = Signal<Void>()
        let server = makeTestServer { $0.metrics = metrics }
        try server.register(method: .post, path: "/slow") { _ in
            started.fire()
            _ = await release.wait()
            return Response(status: .created)
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi")
            #expect(await started.wait() != nil)
            let meter = try metrics.test.expectMeter(Self.active, [("http.request.method", "POST"), ("url.scheme", "http")])
            #expect(meter.lastValue == 1, "one request in its handler")
            #expect(metrics.test.timers(label: Self.duration).isEmpty, "no duration before the response")
            release.fire()
            #expect(try await client.readResponse().status == 201)
            try await metrics.waitForDurations(1)
            #expect(meter.values == [1, 0])
        }
    }

    @Test func activeRequests_ReturnsToZero_WhenTheClientGoesAway() async throws {
        let metrics = NotifyingMetrics()
        let started = Signal<Void>()
        let server = makeTestServer { $0.metrics = metrics }
        try server.register(method: .get, path: "/hang") { _ in
            started.fire()
            _ = await Signal<Void>().wait(timeout: .seconds(30))  // ends early when the task is cancelled
            try Task.checkCancellation()
            return Response(status: .ok)
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await started.wait() != nil)
            #expect(try metrics.test.expectMeter(Self.active, [("http.request.method", "GET"), ("url.scheme", "http")]).lastValue == 1)
            try await client.close()
            try await metrics.waitForDurations(1)
        }
        let meter = try metrics.test.expectMeter(Self.active, [("http.request.method", "GET"), ("url.scheme", "http")])
        #expect(meter.values == [1, 0], "a cancelled handler leaves no active request behind")
    }

    @Test func http2_RequestsAreCountedWithProtocolVersion2() async throws {
        let metrics = NotifyingMetrics()
        let server = makeTestServer {
            $0.metrics = metrics
            $0.http2 = HTTP2Settings()
        }
        try registerRoutes(on: server)
        try await server.withRunning { address in
            let socket = try await TestClient.connect(to: address)
            let h2 = HTTP2TestClient()
            let ids = [h2.request(path: "/pets/1"), h2.request(path: "/pets/2?x=1"), h2.request(path: "/nope")]
            try await h2.exchange(over: socket) { client in ids.allSatisfy { client.closed[$0] != nil } }
            #expect(ids.map { h2.status($0) } == ["200", "200", "404"])
            try await metrics.waitForDurations(3)
        }
        let pets = try metrics.test.expectTimer(Self.duration, [
            ("http.request.method", "GET"), ("http.route", "/pets/{petId}"), ("http.response.status_code", "200"),
            ("network.protocol.version", "2"), ("url.scheme", "http"),
        ])
        #expect(pets.values.count == 2)
        let notFound = try metrics.test.expectTimer(Self.duration, [
            ("http.request.method", "GET"), ("http.response.status_code", "404"), ("network.protocol.version", "2"), ("url.scheme", "http"),
        ])
        #expect(notFound.values.count == 1)
        #expect(try metrics.test.expectMeter(Self.active, [("http.request.method", "GET"), ("url.scheme", "http")]).lastValue == 0)
    }
}

private struct TestFailure: Error {}

/// An awaited event that did not come.
struct WaitTimedOut: Error, CustomStringConvertible {
    let description: String
}

/// MetricsTestKit's `TestMetrics`, plus a signal each time a timer records. A request's duration
/// is recorded just after its response is sent, so a test that has read the response waits for
/// the recording instead of racing it.
final class NotifyingMetrics: MetricsFactory {
    /// The metrics to assert on.
    let test = TestMetrics()
    private let recorded = Signal<Void>()

    /// Waits (bounded) until timers have recorded `count` more values.
    func waitForDurations(_ count: Int) async throws {
        for index in 0..<count {
            guard await recorded.wait() != nil else {
                throw WaitTimedOut(description: "only \(index) of \(count) durations were recorded")
            }
        }
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        NotifyingTimer(test.makeTimer(label: label, dimensions: dimensions), recorded: recorded)
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { test.makeCounter(label: label, dimensions: dimensions) }
    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler { test.makeMeter(label: label, dimensions: dimensions) }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        test.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
    }
    func destroyCounter(_ handler: any CounterHandler) { test.destroyCounter(handler) }
    func destroyMeter(_ handler: any MeterHandler) { test.destroyMeter(handler) }
    func destroyRecorder(_ handler: any RecorderHandler) { test.destroyRecorder(handler) }
    func destroyTimer(_ handler: any TimerHandler) { test.destroyTimer((handler as? NotifyingTimer)?.inner ?? handler) }
}

private final class NotifyingTimer: TimerHandler {
    let inner: any TimerHandler
    private let recorded: Signal<Void>

    init(_ inner: any TimerHandler, recorded: Signal<Void>) {
        self.inner = inner
        self.recorded = recorded
    }

    func recordNanoseconds(_ duration: Int64) {
        inner.recordNanoseconds(duration)
        recorded.fire()
    }

    func preferDisplayUnit(_ unit: TimeUnit) { inner.preferDisplayUnit(unit) }
}
