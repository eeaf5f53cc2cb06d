import HTTPTypes
import Logging
public import WhiskerCore
import WhiskerProxies

/// A server for in-process tests: 127.0.0.1 port 0 (``WhiskerCore/WhiskerServer/withRunning(_:)`` reports the
/// port it got), two I/O workers whatever the machine, so that a test's connections also run on
/// more than one worker, and a logger that only reports critical errors. `configure` changes
/// anything else before the server is made.
///
///     let server = makeTestServer { $0.timeouts.idle = .milliseconds(200) }
///     try registerBasicRoutes(on: server)
///     try await server.withRunning { address in
///         let client = try await TestClient.connect(to: address)
///         ...
///     }
///
/// Like any `WhiskerServer`, it serves cleartext HTTP/1.1 only: a test of HTTPS or HTTP/2 turns
/// them on in `configure` (`$0.listeners.append(.https(port: 0, tls: ...))`, `$0.http2 = HTTP2Settings()`).
public func makeTestServer(_ configure: (inout WhiskerServer.Configuration) -> Void = { _ in }) -> WhiskerServer {
    var configuration = WhiskerServer.Configuration(host: "127.0.0.1", port: 0)
    configuration.io.workers = 2
    var logger = Logger(label: "whisker.test")
    logger.logLevel = .critical
    configuration.logger = logger
    configure(&configuration)
    return WhiskerServer(configuration: configuration)
}

/// Registers the routes that many in-process tests share: `GET /hello` answers "hello" as
/// `text/plain` (and `HEAD /hello` its head), `POST /echo` answers 200 with the request's body.
public func registerBasicRoutes(on server: WhiskerServer) throws(RouteError) {
    try server.register(method: .get, path: "/hello") { _ in
        Response(status: .ok, headerFields: [.contentType: "text/plain"], body: .init(string: "hello"))
    }
    try server.register(method: .post, path: "/echo") { request in
        var bytes: [UInt8] = []
        if let body = request.body {
            for try await chunk in body { bytes += chunk }
        }
        return Response(status: .ok, body: .init(bytes: bytes))
    }
}

/// Registers the two routes the byte-range tests ask, whatever the protocol: `GET /memory`
/// answers `body` from memory (`application/octet-stream`), `GET /stream` streams it with its
/// length known, in 300-byte writes.
public func registerByteRangeRoutes(on server: WhiskerServer, body: [UInt8]) throws(RouteError) {
    try server.register(method: .get, path: "/memory") { _ in
        Response(status: .ok, headerFields: [.contentType: "application/octet-stream"], body: .init(bytes: body))
    }
    try server.register(method: .get, path: "/stream") { _ in
        Response(status: .ok, body: ResponseBody(length: Int64(body.count)) { writer in
            for start in stride(from: 0, to: body.count, by: 300) {
                try await writer.write(body[start..<min(start + 300, body.count)])
            }
        })
    }
}

/// Registers `GET /context`, which answers with what its handler's ``/WhiskerCore/RequestContext`` says:
/// `HTTP-version | TLS version and ALPN, or cleartext | request id | peer host`.
public func registerContextRoute(on server: WhiskerServer) throws(RouteError) {
    try server.register(method: .get, path: "/context") { _ in
        guard let context = RequestContext.current else { return Response(status: .ok, body: .init(string: "no context")) }
        let tls = context.tls.map { "\($0.version) \($0.applicationProtocol ?? "-")" } ?? "cleartext"
        return Response(status: .ok, body: .init(string: "\(context.httpVersion.rawValue) | \(tls) | \(context.requestID ?? "no id") | \(context.peer.host)"))
    }
}

/// Registers `GET /client`, which answers who its handler's ``/WhiskerCore/RequestContext`` says the client is:
/// `client | scheme | peer host | PROXY header (version, ALPN, authority, TLS version) or none`.
public func registerClientRoute(on server: WhiskerServer) throws(RouteError) {
    try server.register(method: .get, path: "/client") { _ in
        guard let context = RequestContext.current else { return Response(status: .ok, body: .init(string: "no context")) }
        let header = context.proxyHeader.map { "v\($0.version) \($0.alpn ?? "-") \($0.authority ?? "-") \($0.tlsVersion ?? "-")" } ?? "none"
        return Response(status: .ok, body: .init(string: "\(context.client) | \(context.scheme) | \(context.peer.host) | \(header)"))
    }
}

/// Registers `POST /chat`, a bidirectional stream: its response (of unknown length) starts at
/// once and echoes each chunk of the request body as it arrives, until the body ends. The shape
/// of swift-openapi-generator's bidirectional-event-streams example, for the tests that a guard on
/// slow request bodies must let it through.
package func registerChat(on server: WhiskerServer) throws(RouteError) {
    try server.register(method: .post, path: "/chat") { request in
        Response(status: .ok, headerFields: [.contentType: "application/jsonl"], body: .init(length: nil) { writer in
            guard let body = request.body else { return }
            for try await chunk in body { try await writer.write(chunk) }
        })
    }
}
