import HTTPTypes
import MetricsTestKit
import Testing
@testable import WhiskerCore
@testable import WhiskerObservability

/// What the server builds for metrics and tracing, and how it reads trace context.
@Suite struct RequestInstrumentationTests {
    @Test func noInstrumentation_WhenMetricsAndTracingAreOff() {
        let context = ServerContext(router: Router(), configuration: .init())
        #expect(context.observer == nil, "the request path pays one nil check and nothing else")
        var configuration = WhiskerServer.Configuration()
        configuration.metrics = TestMetrics()
        #expect(ServerContext(router: Router(), configuration: configuration).observer is RequestInstrumentation)
        configuration.metrics = nil
        #expect(configuration.requestObserver == nil, "metrics and tracer both nil again: no observer")
    }

    @Test func extractor_ReadsFieldsCaseInsensitively_AndJoinsRepeatedOnes() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: HTTPField.Name("Traceparent")!, value: "00-abc-def-01"))
        fields.append(HTTPField(name: HTTPField.Name("tracestate")!, value: "a=1"))
        fields.append(HTTPField(name: HTTPField.Name("tracestate")!, value: "b=2"))
        let extractor = HTTPFieldsExtractor()
        #expect(extractor.extract(key: "traceparent", from: fields) == "00-abc-def-01")
        #expect(extractor.extract(key: "tracestate", from: fields) == "a=1, b=2")
        #expect(extractor.extract(key: "baggage", from: fields) == nil)
        #expect(extractor.extract(key: "not a field name", from: fields) == nil)
    }
}
