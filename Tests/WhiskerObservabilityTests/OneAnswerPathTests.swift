import HTTPTypes
import Logging
import MetricsTestKit
import Testing
import WhiskerCORS
import WhiskerCompression
import WhiskerHealth
import WhiskerCore
import WhiskerHTTP2
import WhiskerObservability
import WhiskerTesting

/// Every response leaves by one way, a handler's or the server's own, over both protocols: each
/// carries the request id and the CORS fields, and is one access-log line and one request metric.
@Suite struct OneAnswerPathTests {
    enum Wire: String, CaseIterable, Sendable { case http1 = "1.1", http2 = "2" }

    /// One kind of answer: the request that gets it and the status it gets.
    struct Kind: Sendable, CustomTestStringConvertible {
        let name: String
        let method: String
        let path: String
        var fields: [(String, String)] = []
        var body: [UInt8]?
        /// The body's length goes in `Content-Length` (else HTTP/1.1 sends it chunked, HTTP/2 without a length).
        var declaresLength = true
        let status: Int
        var testDescription: String { name }
    }

    static let origin = "https://app.cats.example"
    static let oversized = [UInt8](repeating: 0x61, count: 2000)

    static let kinds: [Kind] = [
        Kind(name: "a handler's 200", method: "GET", path: "/hello", status: 200),
        Kind(name: "a handler that throws: 500", method: "GET", path: "/fail", status: 500),
        Kind(name: "no route: 404", method: "GET", path: "/nothere", status: 404),
        Kind(name: "another method: 405", method: "DELETE", path: "/hello", status: 405),
        Kind(name: "a declared body past the route's limit: 413", method: "POST", path: "/small", body: oversized, status: 413),
        Kind(name: "a body that grows past it under the handler: 413", method: "POST", path: "/small", body: oversized, declaresLength: false, status: 413),
        Kind(name: "a coding the server does not decode: 415", method: "POST", path: "/small", fields: [("content-encoding", "compress")], body: Array("x".utf8), status: 415),
        Kind(name: "a health check", method: "GET", path: "/healthz", status: 200),
        Kind(name: "a preflight", method: "OPTIONS", path: "/hello", fields: [("access-control-request-method", "GET")], status: 204),
    ]

    private func makeServer(accessLog: Logger, metrics: NotifyingMetrics) throws -> WhiskerServer {
        let server = makeTestServer {
            $0.http2 = HTTP2Settings()
            $0.accessLog = accessLog
            $0.requestIDs = true
            $0.cors = [WhiskerServer.CORS(allowedOrigins: [Self.origin])]
            $0.healthChecks = WhiskerServer.HealthChecks()
            $0.requestDecompression = RequestDecompressionSettings()
            $0.metrics = metrics
        }
        try registerBasicRoutes(on: server)
        try server.register(method: .get, path: "/fail") { _ in throw HandlerFailure() }
        try server.register(method: .post, path: "/small", maxRequestBodySize: .maximum(1024)) { request in
            var count = 0
            for try await chunk in request.body! { count += chunk.count }
            return Response(status: .ok, body: .init(string: "\(count)"))
        }
        return server
    }

    /// Sends `kind`'s request with `id` over a new connection; returns the status and fields.
    private func exchange(_ kind: Kind, id: String, over proto: Wire, address: SocketAddress) async throws -> (Int, [(String, String)]) {
        let socket = try await TestClient.connect(to: address)
        var fields = [("x-request-id", id), ("origin", Self.origin)] + kind.fields
        switch proto {
        case .http1:
            var head = "\(kind.method) \(kind.path) HTTP/1.1\r\nHost: x\r\n"
            if let body = kind.body { fields.append(kind.declaresLength ? ("content-length", "\(body.count)") : ("transfer-encoding", "chunked")) }
            for (name, value) in fields { head += "\(name): \(value)\r\n" }
            var bytes = Array((head + "\r\n").utf8)
            // A body declared too large is refused from its head: the client sends no more.
            if let body = kind.body, kind.status != 413 || !kind.declaresLength {
                bytes += kind.declaresLength ? body : Array("\(String(body.count, radix: 16))\r\n".utf8) + body + Array("\r\n0\r\n\r\n".utf8)
            }
            try await socket.send(bytes)
            let response = try await socket.readResponse()
            return (response.status, response.headers.map { ($0.name.lowercased(), $0.value) })
        case .http2:
            if let body = kind.body, kind.declaresLength { fields.append(("content-length", "\(body.count)")) }
            let h2 = HTTP2TestClient()
            let stream = h2.request(method: kind.method, path: kind.path, headers: fields, body: kind.body)
            try await h2.exchange(over: socket) { $0.status(stream) != nil && $0.closed[stream] != nil }
            return (Int(h2.status(stream) ?? "") ?? 0, h2.headers[stream] ?? [])
        }
    }

    @Test(arguments: Wire.allCases)
    func everyKindOfAnswer_CarriesTheIDAndCORS_AndIsOneLogLineAndOneMetric(over proto: Wire) async throws {
        let lines = LoggedLines()
        let metrics = NotifyingMetrics()
        let server = try makeServer(accessLog: .capturing(lines, label: "access"), metrics: metrics)
        try await server.withRunning { address in
            for (index, kind) in Self.kinds.enumerated() {
                let id = "kind-\(index)"
                let (status, fields) = try await exchange(kind, id: id, over: proto, address: address)
                func field(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }
                #expect(status == kind.status, "\(kind.name)")
                #expect(field("x-request-id") == id, "\(kind.name): the request id comes back")
                #expect(field("access-control-allow-origin") == Self.origin, "\(kind.name): a page of the allowed origin may read it")
                if kind.status >= 400 {
                    #expect(field("content-type") == "application/problem+json", "\(kind.name): problem details")
                }
            }
            #expect(await lines.wait(forCount: Self.kinds.count), "one access-log line per request")
            try await metrics.waitForDurations(Self.kinds.count)
        }
        let logged = lines.all
        #expect(logged.count == Self.kinds.count, "\(logged.map(\.0))")
        for (index, kind) in Self.kinds.enumerated() {
            let mine = logged.filter { $0.1["request_id"] == "kind-\(index)" }
            #expect(mine.count == 1, "\(kind.name): one line, not \(mine.map(\.0))")
            #expect(mine.first?.0 == "\(kind.method) \(kind.path) \(kind.status)", "\(kind.name)")
            #expect(mine.first?.1["protocol"] == (proto == .http1 ? "HTTP/1.1" : "HTTP/2"))
        }
        let durations = metrics.test.timers.filter { $0.label == "http.server.request.duration" }
        #expect(durations.reduce(0) { $0 + $1.values.count } == Self.kinds.count, "one request metric per request")
        for kind in Self.kinds {
            let counted = durations.contains { timer in
                timer.dimensions.contains { $0 == ("http.response.status_code", "\(kind.status)") }
                    && timer.dimensions.contains { $0 == ("network.protocol.version", proto.rawValue) }
            }
            #expect(counted, "\(kind.name) is counted")
        }
    }

    /// A request whose head cannot be read is answered, logged (`- - 400`) and counted too, with
    /// an id the server made up.
    @Test func aHeadThatCannotBeRead_IsStillOneLogLine_WithAGeneratedID() async throws {
        let lines = LoggedLines()
        let metrics = NotifyingMetrics()
        let server = try makeServer(accessLog: .capturing(lines, label: "access"), metrics: metrics)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 400)
            #expect(response.header("content-type") == "application/problem+json")
            let id = try #require(response.header("x-request-id"))
            #expect(response.text.contains("\"requestId\":\"\(id)\""))
            #expect(await lines.wait(forCount: 1))
            try await metrics.waitForDurations(1)
            #expect(lines.all.first?.0 == "- - 400")
            #expect(lines.all.first?.1["request_id"] == "\(id)")
        }
        #expect(metrics.test.timers.contains { $0.dimensions.contains { $0 == ("http.request.method", "_OTHER") } })
    }

    /// A client that leaves in the middle of its upload is logged as what happened (499, as nginx
    /// does), not as the server's 500 with an error line.
    @Test(arguments: Wire.allCases)
    func aClientLeavingMidUpload_Is499_WithoutAnErrorLine(over proto: Wire) async throws {
        let accessLines = LoggedLines()
        let serverLines = LoggedLines()
        let started = Signal<Void>()
        let server = makeTestServer {
            $0.http2 = HTTP2Settings()
            $0.accessLog = .capturing(accessLines, label: "access")
            $0.logger = .capturing(serverLines, label: "server")
        }
        try server.register(method: .post, path: "/upload") { request in
            started.fire()
            var count = 0
            for try await chunk in request.body! { count += chunk.count }
            return Response(status: .ok, body: .init(string: "\(count)"))
        }
        try await server.withRunning { address in
            let socket = try await TestClient.connect(to: address)
            switch proto {
            case .http1:
                try await socket.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + String(repeating: "a", count: 10))
                #expect(await started.wait() != nil)
                try await socket.close()
            case .http2:
                // The first window's worth of a larger body, then nothing more.
                let h2 = HTTP2TestClient()
                h2.request(method: "POST", path: "/upload", headers: [("content-length", "100000")], body: [UInt8](repeating: 0x61, count: 100_000))
                try await socket.send(h2.takeOutput())
                #expect(await started.wait() != nil)
                try await socket.close()
            }
            #expect(await accessLines.wait(forCount: 1))
        }
        #expect(accessLines.all.map(\.0) == ["POST /upload 499"])
        #expect(!serverLines.all.contains { $0.0.contains("failed") }, "\(serverLines.all.map(\.0))")
    }
}

private struct HandlerFailure: Error {}
