import Benchmark
import WhiskerCore
import WhiskerHTTP2
import WhiskerSockets
import WhiskerTLS
import WhiskerTesting

/// The h2-over-TLS benchmark's server and its one connection: a `WhiskerServer` running with an
/// HTTPS listener on 127.0.0.1 (port 0) and HTTP/2 on, and WhiskerTesting's `TestClient` (a
/// blocking OpenSSL client on its own queue) that chose `h2` by ALPN.
///
/// `TLSStream` wraps a `SocketConnection`, so TLS cannot be served over an in-memory stream: this
/// one request crosses a real loopback socket, and its count holds what the others leave out
/// (the socket's reads and coalesced writes, the worker's readiness events) and the client's
/// share (OpenSSL's client side, `TestClient`'s queue hops and 64 KiB read buffer). Each count is
/// still the same every request: the request is one TLS record, the answer (HEADERS and DATA,
/// written in one turn) one `sendmsg`.
///
/// The count ends when the response's last DATA frame is read; a PING and its ACK follow,
/// outside the count, so that the server's connection queue has run everything the request
/// left (as `Budget`'s `settle()` waits for an in-memory connection's queue) before the next.
final class TLSBudget: @unchecked Sendable {
    // `@unchecked Sendable`: set in setup and read by the iterations, which package-benchmark
    // runs one after another.
    private let routes: @Sendable (WhiskerServer) throws -> Void
    private var server: WhiskerServer?
    private var running: Task<Void, any Error>?
    private var client: TestClient?
    private var nextStreamID: Int32 = 1
    private var received: [UInt8] = []

    init(routes: @escaping @Sendable (WhiskerServer) throws -> Void) {
        self.routes = routes
    }

    /// Starts the server, connects, and exchanges the preface, SETTINGS, a window large enough
    /// that the server never waits for one, and a first request.
    func open() async throws {
        var configuration = WhiskerServer.Configuration()
        configuration.logger.logLevel = .critical
        configuration.http2 = HTTP2Settings()
        configuration.listeners = [.https(port: 0, tls: TestCertificates.localhostTLS)]
        let server = WhiskerServer(configuration: configuration)
        try routes(server)
        let (addresses, continuation) = AsyncStream.makeStream(of: [SocketAddress].self)
        running = Task {
            try await server.run { bound in
                continuation.yield(bound)
                continuation.finish()
            }
        }
        var iterator = addresses.makeAsyncIterator()
        guard let address = await iterator.next()?.first else { throw TLSBudgetError("the server did not start") }
        self.server = server
        var tls = TestTLSOptions(trustedCAPath: TestCertificates.ca)
        tls.applicationProtocols = ["h2"]
        let client = try await TestClient.connect(to: address, tls: tls)
        guard client.negotiatedApplicationProtocol == "h2" else { throw TLSBudgetError("ALPN chose \(client.negotiatedApplicationProtocol ?? "nothing")") }
        self.client = client
        let window: UInt32 = 1 << 30
        let windowUpdate = HTTP2Frame(type: HTTP2Frame.Kind.windowUpdate, payload: (0..<4).map { UInt8(truncatingIfNeeded: window >> (24 - 8 * $0)) })
        try await client.send(HTTP2Frame.preface + HTTP2Frame.settings().bytes + windowUpdate.bytes)
        try await request(nil, before: HTTP2Frame.settings(ack: true).bytes)
    }

    func close() async throws {
        try await client?.close()
        client = nil
        await server?.shutdown()
        try await running?.value
        server = nil
        running = nil
    }

    private static let http2Get = HPACK.request(path: "/hello", scheme: "https")
    private static let hello = Array("hello".utf8)
    private static let ping = HTTP2Frame(type: HTTP2Frame.Kind.ping, payload: Array("settled!".utf8))
    private static let pingAck = HTTP2Frame(type: HTTP2Frame.Kind.ping, flags: HTTP2Frame.Flag.ack, payload: Array("settled!".utf8)).bytes

    /// `GET /hello` on the next stream: counted from the HEADERS frame sent to the body's DATA
    /// frame (END_STREAM) read; then a PING round trip, not counted.
    func request(_ benchmark: Benchmark?, before: [UInt8] = []) async throws {
        let streamID = nextStreamID
        nextStreamID += 2
        let request = before + HTTP2Frame.headers(streamID: streamID, block: Self.http2Get, endStream: true).bytes
        let data = HTTP2Frame.data(streamID: streamID, bytes: Self.hello, endStream: true).bytes
        received.removeAll(keepingCapacity: true)
        benchmark?.startMeasurement()
        try await exchange(request, until: data)
        benchmark?.stopMeasurement()
        try await exchange(Self.ping.bytes, until: Self.pingAck)
    }

    /// Sends `bytes`, then reads until what came since ends with `suffix`.
    private func exchange(_ bytes: [UInt8], until suffix: [UInt8]) async throws {
        guard let client else { throw TLSBudgetError("not connected") }
        try await client.send(bytes)
        received.removeAll(keepingCapacity: true)
        while !hasSuffix(received[...], suffix) {
            let more = try await client.receiveSome()
            guard !more.isEmpty else { throw Unexpected(received[...]) }
            received += more
        }
    }
}

struct TLSBudgetError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
