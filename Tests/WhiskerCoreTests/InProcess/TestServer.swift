import HTTPTypes
import Logging
import WhiskerCore
import WhiskerHTTP2
import WhiskerSockets
import WhiskerTesting

/// A server on 127.0.0.1 port 0 with test-friendly defaults, and two I/O workers whatever the
/// machine, so that every in-process test also runs connections on more than one worker.
func makeServer(_ configure: (inout WhiskerServer.Configuration) -> Void = { _ in }) -> WhiskerServer {
    var configuration = WhiskerServer.Configuration(host: "127.0.0.1", port: 0)
    configuration.workers = 2
    var logger = Logger(label: "whisker.test")
    logger.logLevel = .critical
    configuration.logger = logger
    // The in-process tests were written for a server that speaks HTTP/2 too.
    configuration.http2 = HTTP2Settings()
    configure(&configuration)
    return WhiskerServer(configuration: configuration)
}

/// `GET /hello` -> "hello", `POST /echo` -> the request body, as the tests' shared routes.
func registerBasicRoutes(on server: WhiskerServer) throws {
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
