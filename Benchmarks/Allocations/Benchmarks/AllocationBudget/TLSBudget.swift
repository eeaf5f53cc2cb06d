#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Benchmark
import CBudgetOpenSSL
import WhiskerCore
import WhiskerHTTP2
import WhiskerSockets
import WhiskerTLS
import WhiskerTesting

/// The h2-over-TLS benchmark's server and its one connection: a `WhiskerServer` running with an
/// HTTPS listener on 127.0.0.1 (port 0) and HTTP/2 on, and a blocking OpenSSL client that chose
/// `h2` by ALPN.
///
/// `TLSStream` wraps a `SocketConnection`, so TLS cannot be served over an in-memory stream: this
/// one request crosses a real loopback socket, and its count holds what the others leave out
/// (the socket's reads and coalesced writes, the worker's readiness events) and the client's
/// share (OpenSSL's client side: one record written, the answer's records read).
///
/// The client is blocking and runs on the benchmark's own thread, with no queue hop: WhiskerTesting's
/// `TestClient` (its calls hop onto a queue of its own and back) made the count 130 in one run and
/// 132 in the next on a loaded machine, as the libdispatch thread that resumed the benchmark's
/// task had a cached continuation or had to allocate one. The server's handler does not suspend,
/// so it runs on the connection's queue (`Task.immediate`) and needs no thread of the pool.
///
/// The count ends when the ACK of a PING sent after the response's last DATA frame is read: the
/// server's connection queue has then run everything the request left (as `Budget`'s `settle()`
/// waits for an in-memory connection's queue), and that counts too.
final class TLSBudget: @unchecked Sendable {
    // `@unchecked Sendable`: set in setup and used by the iterations, which package-benchmark
    // runs one after another.
    private let routes: @Sendable (WhiskerServer) throws -> Void
    private var server: WhiskerServer?
    private var running: Task<Void, any Error>?
    private var client: BlockingTLSClient?
    private var nextStreamID: Int32 = 1

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
        let client = try BlockingTLSClient(port: address.port, trusting: TestCertificates.ca)
        self.client = client
        let window: UInt32 = 1 << 30
        let windowUpdate = HTTP2Frame(type: HTTP2Frame.Kind.windowUpdate, payload: (0..<4).map { UInt8(truncatingIfNeeded: window >> (24 - 8 * $0)) })
        try client.send(HTTP2Frame.preface + HTTP2Frame.settings().bytes + windowUpdate.bytes)
        try request(nil, before: HTTP2Frame.settings(ack: true).bytes)
    }

    func close() async throws {
        client = nil
        await server?.shutdown()
        try await running?.value
        server = nil
        running = nil
    }

    private static let http2Get = HPACK.request(path: "/hello", scheme: "https")
    private static let hello = Array("hello".utf8)
    private static let ping = HTTP2Frame(type: HTTP2Frame.Kind.ping, payload: Array("settled!".utf8)).bytes
    private static let pingAck = HTTP2Frame(type: HTTP2Frame.Kind.ping, flags: HTTP2Frame.Flag.ack, payload: Array("settled!".utf8)).bytes

    /// `GET /hello` on the next stream: counted from the HEADERS frame sent, through the body's
    /// DATA frame (END_STREAM), to the ACK of the PING sent after it.
    func request(_ benchmark: Benchmark?, before: [UInt8] = []) throws {
        guard let client else { throw TLSBudgetError("not connected") }
        let streamID = nextStreamID
        nextStreamID += 2
        let request = before + HTTP2Frame.headers(streamID: streamID, block: Self.http2Get, endStream: true).bytes
        let data = HTTP2Frame.data(streamID: streamID, bytes: Self.hello, endStream: true).bytes
        benchmark?.startMeasurement()
        try client.send(request)
        try client.receive(until: data)
        try client.send(Self.ping)
        try client.receive(until: Self.pingAck)
        benchmark?.stopMeasurement()
    }
}

/// A TLS client over a blocking loopback socket, for one benchmark: it trusts the development
/// CA, offers only `h2`, and reads into buffers it keeps, so that what it allocates per request
/// is OpenSSL's alone.
final class BlockingTLSClient {
    private let fd: Int32
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private var space = [UInt8](repeating: 0, count: 64 * 1024)
    private var received: [UInt8] = []

    /// Connects to 127.0.0.1:`port`, completes the handshake and checks that ALPN chose `h2`.
    init(port: Int, trusting caPath: String) throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        self.fd = fd
        guard fd >= 0 else { throw TLSBudgetError("socket: errno \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var noDelay: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0, let context = SSL_CTX_new(TLS_client_method()) else {
            closeSocket(fd)
            throw TLSBudgetError("connect: errno \(errno)")
        }
        self.context = context
        guard SSL_CTX_load_verify_locations(context, caPath, nil) == 1, let ssl = SSL_new(context) else {
            SSL_CTX_free(context)
            closeSocket(fd)
            throw TLSBudgetError("cannot load the CA \(caPath)")
        }
        self.ssl = ssl
        SSL_set_verify(ssl, SSL_VERIFY_PEER, nil)
        _ = SSL_set1_host(ssl, "localhost")
        let alpn: [UInt8] = [2] + Array("h2".utf8)
        _ = SSL_set_alpn_protos(ssl, alpn, UInt32(alpn.count))
        SSL_set_fd(ssl, fd)
        guard SSL_connect(ssl) == 1 else { throw TLSBudgetError("TLS handshake failed (\(ERR_get_error()))") }
        var chosen: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &chosen, &length)
        guard let chosen, String(decoding: UnsafeBufferPointer(start: chosen, count: Int(length)), as: UTF8.self) == "h2" else {
            throw TLSBudgetError("ALPN did not choose h2")
        }
        received.reserveCapacity(64 * 1024)
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
        closeSocket(fd)
    }

    /// Writes `bytes` (one TLS record for a short request).
    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            var written = 0
            let ok = bytes[sent...].withUnsafeBytes { SSL_write_ex(ssl, $0.baseAddress, $0.count, &written) }
            guard ok == 1 else { throw TLSBudgetError("SSL_write failed") }
            sent += written
        }
    }

    /// Reads records until what came since the last call ends with `suffix`.
    func receive(until suffix: [UInt8]) throws {
        received.removeAll(keepingCapacity: true)
        while !hasSuffix(received[...], suffix) {
            var count = 0
            let ok = space.withUnsafeMutableBytes { SSL_read_ex(ssl, $0.baseAddress, $0.count, &count) }
            guard ok == 1, count > 0 else { throw Unexpected(received[...]) }
            space.withUnsafeBufferPointer { received.append(contentsOf: $0[..<count]) }
        }
    }
}

/// `close(2)`, named apart from the methods called `close`.
private func closeSocket(_ fd: Int32) { _ = close(fd) }

struct TLSBudgetError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
