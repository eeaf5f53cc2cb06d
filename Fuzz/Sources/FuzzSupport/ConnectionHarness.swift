import Dispatch
import HTTPTypes
import Logging
import Synchronization
@testable import WhiskerCore
@testable import WhiskerHTTP
import WhiskerSockets
import WhiskerTesting

/// Drives a real connection (``Connection`` with its HTTP/1.1 handler, handed over to HTTP/2 by the
/// preface when the context serves it) over a ``MemoryByteStream``, as the fuzz targets for the
/// connections do: the client's bytes in pieces, the handlers' gates opened in an order the input
/// chooses, the client half-closing, not reading, or the stream closed at any point, a graceful
/// shutdown part way. Everything the connection does runs on the worker's queue; the harness
/// waits for the queue between steps, so an input always takes the same path.
///
/// At the end the stream is closed and every gate opened. Checked then: every handler task ends,
/// and the connection and its handler are released (nothing holds them once the stream closed).
public final class ConnectionHarness: @unchecked Sendable {
    // `@unchecked Sendable`: `connection` and `handler` are touched on the worker's queue only;
    // `gates` and `live` are synchronised.
    /// One worker for every input: a worker per input would cost an epoll set and a Dispatch
    /// source each time.
    private let worker: IOWorker
    private let context: ServerContext
    /// Handlers waiting for the harness (or for their cancellation) to let them go on.
    private let gates = Gates()
    /// Handler tasks (and streamed bodies) started and not ended.
    private let live = LiveCount()
    private weak var connection: Connection?
    private weak var handler: (any ConnectionHandler)?

    /// A harness over a context made by `configure` with the routes of ``routes(into:)``.
    public init(_ configure: (inout WhiskerServer.Configuration) -> Void) {
        worker = try! IOWorker(label: "whisker.fuzz")
        var configuration = WhiskerServer.Configuration()
        configuration.limits.maxRequestBodySize = 64 * 1024
        // Rejections are logged at info: millions of lines would be most of the run's time.
        configuration.logger.logLevel = .critical
        configure(&configuration)
        context = ServerContext(router: Self.routes(gates: gates, live: live), configuration: configuration)
    }

    /// `GET /hello` answers at once; `POST /echo` reads the body and answers its length; `GET /gate`
    /// waits at a gate, then answers; `GET /stream` streams chunks with a gate before each;
    /// `GET /events` streams until its write fails or it is cancelled, a gate between events.
    private static func routes(gates: Gates, live: LiveCount) -> Router<Route> {
        var router = Router<Route>()
        func add(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping HTTPHandler) {
            try! router.register(Route(handler: { request in try await live.counting { try await handler(request) } }, template: path), method: method, path: path)
        }
        @Sendable func streamed(length: Int64?, _ write: @escaping @Sendable (ResponseBodyWriter) async throws -> Void) -> ResponseBody {
            ResponseBody(length: length) { writer in try await live.counting { try await write(writer) } }
        }
        add(.get, "/hello") { _ in Response(status: .ok, body: .init(string: "hello")) }
        add(.post, "/echo") { request in
            var count = 0
            if let body = request.body { for try await chunk in body { count += chunk.count } }
            return Response(status: .ok, body: .init(string: "\(count)"))
        }
        add(.get, "/gate") { _ in
            await gates.wait()
            return Response(status: .ok, body: .init(string: "opened"))
        }
        add(.get, "/stream") { _ in
            Response(status: .ok, body: streamed(length: 3 * 1000) { writer in
                for _ in 0..<3 {
                    await gates.wait()
                    try await writer.write([UInt8](repeating: 0x61, count: 1000))
                }
            })
        }
        add(.get, "/events") { _ in
            Response(status: .ok, headerFields: [.contentType: "text/event-stream"], body: streamed(length: nil) { writer in
                while !Task.isCancelled {
                    try await writer.write(Array("data: tick\n\n".utf8))
                    await gates.wait()
                }
            })
        }
        return router
    }

    /// Lets everything the queue has to do run (tasks resumed by a step enqueue more work).
    private func settle(_ rounds: Int = 4) {
        for _ in 0..<rounds { worker.queue.sync {} }
    }

    /// Runs one input: `preamble` first (the HTTP/2 preface, say), then `wire` in pieces, with the
    /// other steps chosen by `random`. Returns what the server wrote.
    @discardableResult
    public func run(preamble: [UInt8], wire: UnsafeBufferPointer<UInt8>, random: inout FuzzRandom) -> [UInt8] {
        let stream = try! MemoryByteStream(worker: worker)
        let context = self.context
        worker.queue.sync {
            let connection = Connection(stream: stream, context: context)
            self.connection = connection
            connection.start()
        }
        if !preamble.isEmpty { stream.send(preamble) }
        settle()
        var offset = 0
        var isClosed = false
        var areWritesBlocked = false
        while offset < wire.count, !isClosed {
            switch random.below(16) {
            case 0..<9:
                let count = min(wire.count - offset, 1 + random.below(random.oneIn(4) ? 4096 : 256))
                stream.send(Array(wire[offset..<(offset + count)]))
                offset += count
            case 9, 10:
                gates.open(at: random.below(4))
            case 11:
                gates.openAll()
            case 12:
                areWritesBlocked.toggle()
                if areWritesBlocked { stream.blockWrites() } else { stream.unblockWrites() }
            case 13:
                if random.oneIn(4) { worker.queue.sync { self.connection?.beginShutdown() } }
            case 14:
                if random.oneIn(8) {
                    stream.sendEnd()
                    isClosed = true
                }
            default:
                if random.oneIn(8) {
                    worker.queue.sync { stream.close() }
                    isClosed = true
                }
            }
            settle()
            worker.queue.sync { if let current = self.connection?.handler { self.handler = current } }
        }
        if areWritesBlocked { stream.unblockWrites() }
        settle()
        worker.queue.sync { stream.close() }
        // Every handler ends once the stream closed and its gates are open.
        var rounds = 0
        while live.count > 0 || connection != nil || handler != nil {
            gates.openAll()
            settle(1)
            rounds += 1
            if rounds == 10_000 {
                let still = live.count
                fuzzFailure("after the close: \(still) handler tasks still running, connection \(connection == nil ? "released" : "kept"), handler \(handler == nil ? "released" : "kept")")
            }
        }
        var output: [UInt8] = []
        worker.queue.sync { output = stream.written }
        return output
    }
}

/// Gates that handlers wait at until the harness opens them (in an order the input chooses) or
/// their task is cancelled.
final class Gates: Sendable {
    private let state = Mutex<(next: Int, waiting: [Int: CheckedContinuation<Void, Never>])>((0, [:]))

    func wait() async {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let cancelled = state.withLock { state in
                    if Task.isCancelled { return true }
                    state.waiting[id] = continuation
                    return false
                }
                if cancelled { continuation.resume() }
            }
        } onCancel: {
            open(id)
        }
    }

    private func open(_ id: Int) {
        state.withLock { $0.waiting.removeValue(forKey: id) }?.resume()
    }

    /// Opens the gate at `index` (in order of arrival) of those waiting, if any.
    func open(at index: Int) {
        if let id = state.withLock({ $0.waiting.keys.sorted().dropFirst(index).first }) { open(id) }
    }

    func openAll() {
        let all = state.withLock { state in
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for continuation in all { continuation.resume() }
    }
}

/// How many handler tasks and streamed bodies are running.
final class LiveCount: Sendable {
    private let value = Atomic<Int>(0)
    var count: Int { value.load(ordering: .relaxed) }

    func counting<T>(_ body: () async throws -> T) async rethrows -> T {
        value.add(1, ordering: .relaxed)
        defer { value.subtract(1, ordering: .relaxed) }
        return try await body()
    }
}
