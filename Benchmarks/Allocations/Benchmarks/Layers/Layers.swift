#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Benchmark
import HTTPTypes
@_spi(Generated) import OpenAPIRuntime
import OpenAPIWhisker
@_spi(Benchmarks) import OpenAPIWhiskerDocument
import WhiskerCore
@_spi(Benchmarks) import WhiskerHTTP
import WhiskerHTTP2
import WhiskerTesting

/// Per-layer micro-benchmarks (issue 41): each layer of one request alone, in process, so that a
/// change shows its effect without the noise of a load generator and the kernel. The inputs are
/// the demo's: its request head, its routes, `?count=3`, its document (README.md, "Micro-benchmarks").
///
/// Metrics per operation: wall clock (ns), mallocs, and instructions where the kernel lets
/// package-benchmark read the counter (not on this project's VMs: perf events are not available
/// there, and the column is left out).
let benchmarks: @Sendable () -> Void = {
    let metrics: [BenchmarkMetric] = perfEventsAvailable ? [.wallClock, .mallocCountTotal, .instructions] : [.wallClock, .mallocCountTotal]
    /// A benchmark of `operations` calls of `body` a sample: the figures are per call.
    func layer(_ name: String, operations: Int = 1_000, _ body: @escaping @Sendable () async throws -> Void) {
        let scale: BenchmarkScalingFactor = operations >= 1_000 ? .kilo : .one
        Benchmark(name, configuration: .init(metrics: metrics, timeUnits: .nanoseconds, scalingFactor: scale, maxDuration: .seconds(2), maxIterations: 10_000)) { benchmark in
            for _ in benchmark.scaledIterations { try await body() }
        }
    }

    // MARK: HTTP/1.1 parser: the demo's request head, as wrk sends it.
    let head = Array("GET /api/emoji HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n".utf8)
    let queryHead = Array("GET /api/emoji?count=3 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n".utf8)
    layer("parser: GET /api/emoji") { blackHole(HTTP1Benchmarks.parseHead(head)!) }
    layer("parser: GET /api/emoji?count=3") { blackHole(HTTP1Benchmarks.parseHead(queryHead)!) }

    // MARK: Router: /api/emoji among the demo's routes.
    let router = demoRouter()
    layer("router: match /api/emoji") { blackHole(router.match(method: .get, path: "/api/emoji")) }

    // MARK: Query decoding: `count=3` by Whisker's reader and by the runtime's URI decoder.
    let target = "/api/emoji?count=3"
    layer("query: QueryString items of ?count=3") { blackHole(RequestValidatorBenchmark.queryItemCount(of: target)) }
    layer("query: QueryString runtimeTarget") { blackHole(RequestValidatorBenchmark.runtimeTarget(target)) }
    let converter = Converter(configuration: .init())
    let query: Substring = "count=3"
    layer("query: runtime URIDecoder count=3") {
        blackHole(try converter.getOptionalQueryItemAsURI(in: query, style: .form, explode: true, name: "count", as: Int.self))
    }

    // MARK: Validation against the demo's document.
    let document = OpenAPIDocument(yaml: try! DemoDocument.bytes())
    let emojiValidator = try! RequestValidatorBenchmark(document: document, method: .get, path: "/api/emoji")
    let emojiRequest = HTTPRequest(method: .get, scheme: nil, authority: "localhost", path: target)
    layer("validation: GET /api/emoji?count=3") {
        let passed = try await emojiValidator.validate(emojiRequest, body: nil)
        precondition(passed)
    }
    let adoptValidator = try! RequestValidatorBenchmark(document: document, method: .post, path: "/api/adopt")
    let adoptRequest = HTTPRequest(method: .post, scheme: nil, authority: "localhost", path: "/api/adopt", headerFields: [.contentType: "application/json"])
    let adoption = Array(#"{"name":"Tabby"}"#.utf8)
    layer("validation: POST /api/adopt JSON body") {
        let passed = try await adoptValidator.validate(adoptRequest, body: adoption)
        precondition(passed)
    }

    // MARK: Response head: the demo's 200 for /api/emoji.
    let response = HTTPResponse(status: .ok, headerFields: [.contentType: "text/plain"])
    let dateLine = HTTP1Benchmarks.dateLine()
    layer("response head: 200 text/plain") { blackHole(HTTP1Benchmarks.responseHead(response, contentLength: 12, dateLine: dateLine)) }

    // MARK: Framing: one response through the server's connection code, in memory (no socket):
    // read, parse, route, a closure handler, the response steps, the head, the body, the write.
    let http1 = InMemoryExchange(http2: false)
    Benchmark("framing: HTTP/1.1 GET /hello in memory", configuration: .init(metrics: metrics, timeUnits: .nanoseconds, maxDuration: .seconds(2), maxIterations: 20_000)) { benchmark in
        for _ in benchmark.scaledIterations { try await http1.request() }
    } setup: {
        try await http1.open()
    } teardown: {
        http1.close()
    }
    let http2 = InMemoryExchange(http2: true)
    Benchmark("framing: HTTP/2 GET /hello in memory", configuration: .init(metrics: metrics, timeUnits: .nanoseconds, maxDuration: .seconds(2), maxIterations: 20_000)) { benchmark in
        for _ in benchmark.scaledIterations { try await http2.request() }
    } setup: {
        try await http2.open()
    } teardown: {
        http2.close()
    }
}

/// Whether the kernel lets this process count its instructions (`perf_event_paranoid` 2 or
/// less and perf events present; a VM without a virtual PMU has none).
let perfEventsAvailable: Bool = {
    guard let file = fopen("/proc/sys/kernel/perf_event_paranoid", "r") else { return false }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 16)
    guard fgets(&line, Int32(line.count), file) != nil,
          let level = Int(String(decoding: line.prefix { $0 > 32 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)),
          level <= 2 else { return false }
    return access("/sys/bus/event_source/devices/cpu", F_OK) == 0
}()

/// The demo's routes, as `cat-service` registers them (its document's operations under `/api`,
/// the document and docs page, health).
func demoRouter() -> Router<Int> {
    var router = Router<Int>()
    let routes: [(HTTPRequest.Method, String)] = [
        (.get, "/api/emoji"), (.get, "/api/clip"), (.get, "/api/emoji/stream"), (.post, "/api/census"),
        (.post, "/api/adopt"), (.get, "/api/report"), (.get, "/api/openapi.yaml"), (.get, "/api/openapi.json"),
        (.get, "/api/docs"), (.get, "/health"), (.get, "/ready"), (.get, "/metrics"),
    ]
    for (index, (method, path)) in routes.enumerated() { try! router.register(index, method: method, path: path) }
    return router
}

/// The demo's document: Demo/CatService/Sources/CatServiceCore/openapi.yaml.
enum DemoDocument {
    static func bytes() throws -> [UInt8] {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(5)  // this file, Layers, Benchmarks, Allocations, Benchmarks
        let path = parts.joined(separator: "/") + "/Demo/CatService/Sources/CatServiceCore/openapi.yaml"
        guard let file = fopen(path, "rb") else { fatalError("cannot read \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while case let count = fread(&chunk, 1, chunk.count, file), count > 0 { bytes += chunk[..<count] }
        return bytes
    }
}

/// `GET /hello` (a 5-byte body from memory) on one in-memory connection, HTTP/1.1 or HTTP/2
/// with prior knowledge, as the allocation budget's `http1-keep-alive` and `h2c` send it.
final class InMemoryExchange: @unchecked Sendable {
    // `@unchecked Sendable`: set in setup, used by the iterations one after another.
    private let http2: Bool
    private var connection: InMemoryConnection?
    private var streamID: Int32 = 1

    init(http2: Bool) { self.http2 = http2 }

    func open() async throws {
        var configuration = WhiskerServer.Configuration()
        configuration.logger.logLevel = .critical
        if http2 { configuration.http2 = HTTP2Settings() }
        let server = WhiskerServer(configuration: configuration)
        try server.register(method: .get, path: "/hello") { _ in
            Response(status: .ok, headerFields: [.contentType: "text/plain"], body: .init(string: "hello"))
        }
        connection = try InMemoryConnection(to: server)
        if http2 {
            let window: UInt32 = 1 << 30
            let windowUpdate = HTTP2Frame(type: HTTP2Frame.Kind.windowUpdate, payload: (0..<4).map { UInt8(truncatingIfNeeded: window >> (24 - 8 * $0)) })
            _ = await connection!.exchange(HTTP2Frame.preface + HTTP2Frame.settings().bytes + windowUpdate.bytes) { _ in true }
            try await request(before: HTTP2Frame.settings(ack: true).bytes)
        }
    }

    func close() {
        connection?.close()
        connection = nil
    }

    private static let http1Get = Array("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
    private static let http2Get = HPACK.request(path: "/hello")
    private static let hello = Array("hello".utf8)

    func request(before: [UInt8] = []) async throws {
        if !http2 {
            let response = await connection!.exchange(Self.http1Get) { endsWith($0, Self.hello) }
            guard endsWith(response, Self.hello) else { fatalError("unexpected response") }
            return
        }
        let id = streamID
        streamID += 2
        let data = HTTP2Frame.data(streamID: id, bytes: Self.hello, endStream: true).bytes
        let response = await connection!.exchange(before + HTTP2Frame.headers(streamID: id, block: Self.http2Get, endStream: true).bytes) { endsWith($0, data) }
        guard endsWith(response, data) else { fatalError("unexpected response") }
    }
}

private func endsWith(_ bytes: ArraySlice<UInt8>, _ suffix: [UInt8]) -> Bool {
    bytes.count >= suffix.count && bytes.suffix(suffix.count).elementsEqual(suffix)
}
