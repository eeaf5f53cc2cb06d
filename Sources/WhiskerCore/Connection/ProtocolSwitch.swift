public import HTTPTypes

/// A protocol an HTTP/1.1 connection continues in after a handler answered `101 Switching
/// Protocols` (RFC 9110 §15.2.2): WebSocket (WhiskerWebSocket), or one of your own. The upgrade
/// request is routed like any other, so the early answers, the observer, the access log and the
/// request id see it; its handler decides, and returns `Response.switchingProtocols(headerFields:to:)`:
///
///     server.register(method: .get, path: "/chat") { request in
///         guard request.head.headerFields[.upgrade]?.lowercased() == "chat" else {
///             return Response(status: .upgradeRequired, headerFields: [.upgrade: "chat"])
///         }
///         return .switchingProtocols(headerFields: [.upgrade: "chat"], to: ChatProtocol())
///     }
///
/// Once the `101` is in the kernel, ``takeOver(_:)`` is called on the connection's queue and the
/// handler it returns gets the connection's bytes from then on (those the client sent after the
/// request's head first, in ``ConnectionHandler/start(buffered:)``). The server refuses the switch
/// with `400` for a request with a body or an HTTP/1.0 one, and answers `500` when a `101` comes
/// over HTTP/2, which cannot switch (RFC 9113 §8.6).
public protocol ProtocolSwitch: Sendable {
    /// The handler that serves `connection` from now on, not started yet; throwing closes it.
    func takeOver(_ connection: Connection) throws -> any ConnectionHandler
}

extension Response {
    /// `101 Switching Protocols` with `headerFields` (`Upgrade`, and what the protocol's handshake
    /// answers; the server adds `Connection: Upgrade`), after which the connection speaks `next`.
    public static func switchingProtocols(headerFields: HTTPFields, to next: any ProtocolSwitch) -> Response {
        Response(head: HTTPResponse(status: .switchingProtocols, headerFields: headerFields), body: ResponseBody(storage: .switchingProtocols(SwitchBox(next))))
    }
}

/// A ``ProtocolSwitch`` in a response's body, which WhiskerHTTP keeps as an object it does not know.
final class SwitchBox: Sendable {
    let next: any ProtocolSwitch

    init(_ next: any ProtocolSwitch) { self.next = next }
}
