import HTTPTypes
import Logging
public import WhiskerCore
import WhiskerSockets

extension WhiskerServer {
    /// Serves WebSocket (RFC 6455) at `path`: a `GET` route that accepts the opening handshake
    /// with `101 Switching Protocols` and runs `handler` with the connection.
    ///
    /// ```swift
    /// let server = WhiskerServer(configuration: configuration)
    /// try server.webSocket("/ws/echo", limits: WebSocketLimits(maxMessageSize: 64 * 1024)) { socket in
    ///     for try await message in socket.messages {
    ///         try await socket.send(message)
    ///     }
    /// }
    /// ```
    ///
    /// The upgrade request is an ordinary request: the early answers (CORS, health), the
    /// observers, the response steps (a request id), the access log see it. A request that is
    /// not a valid handshake gets a problem-details answer: `426` with `Upgrade: websocket`
    /// without an upgrade (or over HTTP/2, which has none), `426` with `Sec-WebSocket-Version: 13`
    /// for another version, `400` for a missing or malformed key or `Connection`, `403` for an
    /// origin that `allowsOrigin` refuses. The path may hold parameters (`/ws/rooms/{room}`), as
    /// any route's; read them from ``WebSocket/request``.
    ///
    /// permessage-deflate (RFC 7692) is accepted when the client offers it (browsers do), with
    /// `compression`'s settings; messages are then compressed both ways, and a compressed
    /// message's inflated size counts against `limits` while it is inflated (1009 past them).
    ///
    /// - Parameters:
    ///   - path: The route's path template.
    ///   - limits: Sizes, rates and times of each connection (``WebSocketLimits``).
    ///   - compression: permessage-deflate's settings (``WebSocketCompression``), or `nil` to
    ///     decline every offer. Without the package's `Compression` trait every offer is declined.
    ///   - allowsOrigin: Decides on the handshake's `Origin` (`nil` when absent); `nil` allows all.
    ///     Browsers send `Origin` and do not apply CORS to WebSocket, so a route that relies on
    ///     cookies should check it (cross-site WebSocket hijacking).
    ///   - handler: Runs once per connection, until it returns (then the connection closes with
    ///     1000) or throws (1011).
    /// - Throws: ``/WhiskerCore/RouteError`` when the route is registered twice or the server runs already.
    public nonisolated func webSocket(
        _ path: String,
        limits: WebSocketLimits = .default,
        compression: WebSocketCompression? = .default,
        allowsOrigin: (@Sendable (String?) -> Bool)? = nil,
        handler: @escaping @Sendable (WebSocket) async throws -> Void
    ) throws(RouteError) {
        try register(method: .get, path: path) { request in
            let context = RequestContext.current
            if context?.httpVersion == .http2 {
                // RFC 8441's extended CONNECT is not supported: h2 clients fall back to HTTP/1.1.
                return ProblemDetails(status: .upgradeRequired, detail: "WebSocket needs HTTP/1.1 here (no extended CONNECT over HTTP/2)")
                    .response(to: request.head, fields: [.upgrade: "websocket"])
            }
            switch WebSocketHandshake.verdict(for: request.head, allowsOrigin: allowsOrigin) {
            case .accept(var fields):
                fields[.connection] = nil  // the server adds `Connection: Upgrade` to every 101
                #if Compression
                let deflate = compression.flatMap { PerMessageDeflate.negotiate(request.head.headerFields[values: .secWebSocketExtensions], settings: $0) }
                #else
                let deflate: PerMessageDeflate? = nil  // no zlib: every offer declined
                #endif
                if let deflate { fields[.secWebSocketExtensions] = deflate.responseValue }
                let takeOver = WebSocketSwitch(limits: limits, deflate: deflate, request: request.head, context: context, handler: handler)
                return .switchingProtocols(headerFields: fields, to: takeOver)
            case .reject(let status, let fields, let reason):
                Logger.current.debug("WebSocket handshake refused with \(status.code): \(reason)")
                return ProblemDetails(status: status, detail: reason).response(to: request.head, fields: fields)
            }
        }
    }
}

/// The ``ProtocolSwitch`` a WebSocket route's `101` carries: makes the connection's handler.
struct WebSocketSwitch: ProtocolSwitch {
    let limits: WebSocketLimits
    /// permessage-deflate, when negotiated.
    let deflate: PerMessageDeflate?
    let request: HTTPRequest
    let context: RequestContext?
    let handler: @Sendable (WebSocket) async throws -> Void

    func takeOver(_ connection: Connection) throws -> any ConnectionHandler {
        WebSocketConnection(connection: connection, limits: limits, deflate: deflate, request: request, context: context, handler: handler)
    }
}
