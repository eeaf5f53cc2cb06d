import Benchmark
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import HTTPTypes
import OpenAPIRuntime
import OpenAPIWhisker
import WhiskerCore
import WhiskerHTTP2
import WhiskerTesting

/// The allocation budget: mallocs per request, counted by package-benchmark's malloc interposer
/// over the whole process (the server's connection code, its handler task, and the in-memory
/// client's few allocations, see README.md). One request per iteration, on one connection that
/// stays open for the whole benchmark: a connection's own setup is outside the budget.
///
/// Each count is exact and the same every iteration, so the budget (Thresholds/<config>/*.p90.json,
/// written by `make test-budget-update`) has no tolerance: one malloc more or fewer fails.
let benchmarks: @Sendable () -> Void = {
    // The p90 of 1,000 requests: what happens once in a while (the Date string made anew each
    // second, the client's buffer doubling as it grows) stays out of it.
    func configuration(tolerance: Int = 0) -> Benchmark.Configuration {
        .init(
            metrics: [.mallocCountTotal],
            warmupIterations: 100,
            maxDuration: .seconds(10),
            maxIterations: 1_000,
            thresholds: [.mallocCountTotal: .init(absolute: [.p90: tolerance])]
        )
    }

    /// One benchmark: `budget`'s server and connection opened in setup (and HTTP/2's preface
    /// exchanged, for `http2`), then one `GET /hello` an iteration.
    func benchmark(_ name: String, _ budget: Budget, http2: Bool = false) {
        Benchmark(name, configuration: configuration()) { benchmark in
            if http2 { try await budget.http2Request(benchmark) } else { try await budget.http1Request(benchmark) }
        } setup: {
            try await budget.open()
            if http2 { try await budget.http2Start() }
        } teardown: {
            budget.close()
        }
    }

    /// `GET /hello`, answered from memory.
    let hello: @Sendable (WhiskerServer) throws -> Void = { server in
        try server.register(method: .get, path: "/hello") { _ in
            Response(status: .ok, headerFields: [.contentType: "text/plain"], body: .init(string: "hello"))
        }
    }
    benchmark("http1-keep-alive", Budget(routes: hello))
    benchmark("h2c", Budget(configure: { $0.http2 = HTTP2Settings() }, routes: hello), http2: true)
    // The handler as swift-openapi-generator's registerHandlers(on:serverURL:) registers an
    // operation: HTTPTypes in, HTTPTypes and an HTTPBody out, through WhiskerTransport.
    benchmark("openapi-transport", Budget { server in
        try WhiskerTransport(server).register({ _, _, _ in
            (HTTPResponse(status: .ok, headerFields: [.contentType: "text/plain"]), HTTPBody("hello"))
        }, method: .get, path: "/hello")
    })

    // The demo's operations (DemoOperations.swift), checked against the demo's own document
    // (Demo/CatService/Sources/CatServiceCore/openapi.yaml) as `cat-service` checks them, their
    // handlers decoding and encoding as the generated code does.
    Benchmark("openapi-query", configuration: configuration()) { benchmark in
        try await DemoOperations.budget.request(benchmark, DemoOperations.emojiRequest, until: DemoOperations.isEmojiResponse)
    } setup: {
        try await DemoOperations.budget.open()
    } teardown: {
        DemoOperations.budget.close()
    }
    Benchmark("openapi-json-body", configuration: configuration()) { benchmark in
        try await DemoOperations.budget.request(benchmark, DemoOperations.adoptRequest, until: DemoOperations.isAdoptResponse)
    } setup: {
        try await DemoOperations.budget.open()
    } teardown: {
        DemoOperations.budget.close()
    }

    // HTTP/2 over TLS over a loopback socket (TLSBudget.swift).
    let tls = TLSBudget(routes: hello)
    Benchmark("h2-tls", configuration: configuration()) { benchmark in
        try await tls.request(benchmark)
    } setup: {
        try await tls.open()
    } teardown: {
        try await tls.close()
    }
}

/// One benchmark's server and its persistent in-memory connection.
final class Budget: @unchecked Sendable {
    // `@unchecked Sendable`: `connection` and `nextStreamID` are set in setup and read by the
    // iterations, which package-benchmark runs one after another.
    private let configure: @Sendable (inout WhiskerServer.Configuration) -> Void
    private let routes: @Sendable (WhiskerServer) throws -> Void
    private var connection: InMemoryConnection?
    private var nextStreamID: Int32 = 1

    init(configure: @escaping @Sendable (inout WhiskerServer.Configuration) -> Void = { _ in }, routes: @escaping @Sendable (WhiskerServer) throws -> Void) {
        self.configure = configure
        self.routes = routes
    }

    /// A server with the routes (nothing logged) and a connection to it.
    func open() async throws {
        var configuration = WhiskerServer.Configuration()
        configuration.logger.logLevel = .critical
        configure(&configuration)
        let server = WhiskerServer(configuration: configuration)
        try routes(server)
        connection = try InMemoryConnection(to: server)
    }

    func close() {
        connection?.close()
        connection = nil
    }

    /// Sends `request` over HTTP/1.1 and counts its mallocs as ``measure(_:_:until:)`` does.
    func request(_ benchmark: Benchmark?, _ request: [UInt8], until isComplete: @escaping @Sendable (ArraySlice<UInt8>) -> Bool) async throws {
        try await measure(benchmark, request, until: isComplete)
    }

    /// Sends `request` and counts the mallocs until the response satisfies `isComplete` and the
    /// server's queue is idle after it: what the server does after the response's last byte (the
    /// handler task ending, the connection readying the next request) counts too. The request's
    /// bytes are made before, outside the count.
    private func measure(_ benchmark: Benchmark?, _ request: [UInt8], until isComplete: @escaping @Sendable (ArraySlice<UInt8>) -> Bool) async throws {
        benchmark?.startMeasurement()
        let response = await connection!.exchange(request, until: isComplete)
        settle()
        benchmark?.stopMeasurement()
        guard isComplete(response) else { throw Unexpected(response) }
    }

    /// Waits until the connection's queue has run everything its work enqueued (a job may
    /// enqueue another: four rounds).
    private func settle() {
        guard let queue = connection?.stream.queue else { return }
        for _ in 0..<4 { queue.sync {} }
    }

    // MARK: HTTP/1.1

    private static let http1Get = Array("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
    private static let http1Status = Array("HTTP/1.1 200 OK\r\n".utf8)
    private static let hello = Array("hello".utf8)

    /// `GET /hello`: a 200 whose body ends the response.
    func http1Request(_ benchmark: Benchmark? = nil) async throws {
        try await measure(benchmark, Self.http1Get) { hasSuffix($0, Self.hello) && hasPrefix($0, Self.http1Status) }
    }

    // MARK: HTTP/2

    private static let http2Get = HPACK.request(path: "/hello")

    /// The preface, SETTINGS and a first stream; then the SETTINGS ack and a connection window
    /// large enough that the server never waits for the client to let it send more.
    func http2Start() async throws {
        try await http2Request(before: HTTP2Frame.preface + HTTP2Frame.settings().bytes)
        let window: UInt32 = 1 << 30
        let windowUpdate = HTTP2Frame(type: HTTP2Frame.Kind.windowUpdate, payload: (0..<4).map { UInt8(truncatingIfNeeded: window >> (24 - 8 * $0)) })
        try await http2Request(before: HTTP2Frame.settings(ack: true).bytes + windowUpdate.bytes)
    }

    /// `GET /hello` on the next stream (HEADERS with END_STREAM): the response ends with the
    /// body's DATA frame, END_STREAM set, on that stream.
    func http2Request(_ benchmark: Benchmark? = nil, before: [UInt8] = []) async throws {
        let streamID = nextStreamID
        nextStreamID += 2
        let request = before + HTTP2Frame.headers(streamID: streamID, block: Self.http2Get, endStream: true).bytes
        let data = HTTP2Frame.data(streamID: streamID, bytes: Self.hello, endStream: true).bytes
        try await measure(benchmark, request) { hasSuffix($0, data) }
    }
}

/// Whether `bytes` begins with `prefix`. The predicates run each time the server writes, inside
/// the count, so they compare memory: in a debug build, reading an array's elements one by one
/// (a `for` loop, `elementsEqual`) allocates for each element.
func hasPrefix(_ bytes: ArraySlice<UInt8>, _ prefix: [UInt8]) -> Bool {
    bytes.count >= prefix.count && equal(bytes.prefix(prefix.count), prefix)
}

/// Whether `bytes` ends with `suffix`; see ``hasPrefix(_:_:)``.
func hasSuffix(_ bytes: ArraySlice<UInt8>, _ suffix: [UInt8]) -> Bool {
    bytes.count >= suffix.count && equal(bytes.suffix(suffix.count), suffix)
}

private func equal(_ bytes: ArraySlice<UInt8>, _ other: [UInt8]) -> Bool {
    other.isEmpty || bytes.withUnsafeBytes { bytes in other.withUnsafeBytes { other in memcmp(bytes.baseAddress!, other.baseAddress!, other.count) == 0 } }
}

/// A response that is not the expected one (the connection closed, or answered something else).
struct Unexpected: Error, CustomStringConvertible {
    let description: String
    init(_ response: ArraySlice<UInt8>) {
        description = "unexpected response: \(String(decoding: response.prefix(300), as: UTF8.self).debugDescription)"
    }
}
