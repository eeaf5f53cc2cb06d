import HTTPTypes
import Prometheus
import Whisker

/// `--metrics`: the server's request metrics in a Prometheus registry of their own, served as
/// text at `GET /metrics` on the same listeners as the API.
///
/// swift-prometheus turns the OpenTelemetry names into Prometheus ones by replacing every
/// character a Prometheus name may not have with `_`: `http.server.request.duration` (a `Timer`)
/// becomes the histogram `http_server_request_duration` (`_bucket`, `_sum`, `_count`, in seconds),
/// `http.server.active_requests` (a `Meter`) the gauge `http_server_active_requests`, and the
/// labels `http_request_method`, `http_route`, `http_response_status_code`,
/// `network_protocol_version`, `url_scheme` and `error_type`. Scrapes are requests too: they are
/// counted with `http_route="/metrics"`, and a scrape sees itself among the active requests.
struct PrometheusMetrics {
    let registry = PrometheusCollectorRegistry()

    /// What `configuration.metrics` gets: a factory writing into this registry (not the global
    /// `MetricsSystem`, which stays unbootstrapped).
    var factory: PrometheusMetricsFactory { PrometheusMetricsFactory(registry: registry) }

    /// `openapi_contract_violations_total{operation=...}`: what `--contract-check` found.
    private static var contractViolations: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "openapi", metricName: "contract_violations", unitName: "total",
            helpText: "Responses the OpenAPI document does not describe (--contract-check), by operation")
    }

    /// Counts a response of `operationID` that the document does not describe.
    func countContractViolation(of operationID: String) {
        registry.makeCounter(descriptor: Self.contractViolations, labels: [("operation", operationID)]).increment()
    }

    /// The text exposition format's media type, version 0.0.4.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Adds `GET /metrics` (and so `HEAD /metrics`) to `server`.
    func register(on server: WhiskerServer) throws {
        let registry = registry
        try server.register(method: .get, path: "/metrics") { _ in
            var text: [UInt8] = []
            registry.emit(into: &text)
            return Response(status: .ok, headerFields: [.contentType: Self.contentType], body: ResponseBody(bytes: text))
        }
    }
}
