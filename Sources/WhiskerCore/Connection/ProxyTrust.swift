package import HTTPTypes
package import WhiskerSockets

/// What the core asks of the reverse proxies it trusts (WhiskerProxies' `configuration.reverseProxies`):
/// how a connection on a listener that expects the PROXY protocol starts, and who the client of a
/// request is. A feature contributes it (``ServerFeatureContributions``); without it a request's
/// client is its peer and no listener may expect the PROXY protocol.
package protocol ProxyTrust: Sendable {
    /// The first handler of a connection on a listener that expects the PROXY protocol (by its
    /// ``Connection/listenerOptions``), `nil` on the others: it reads the header, keeps it as
    /// ``Connection/preamble`` and starts HTTP/1.1 (``Connection/startHTTP1()``), or closes the
    /// connection saying why.
    func preambleReader(for connection: Connection) -> (any ConnectionHandler)?
    /// The client and the scheme of a request from `origin` (its preamble, if any, the reader's)
    /// with these header fields (`nil`: a head that could not be read).
    func client(of origin: RequestOrigin, fields: HTTPFields?) -> (client: SocketAddress, scheme: String)
}

/// What a connection started with before HTTP (a PROXY protocol header), kept for its requests'
/// contexts: any value that is `Sendable` and `Hashable`, of a type the core does not know.
package struct ConnectionPreamble: @unchecked Sendable, Hashable {
    // @unchecked: `box` holds only the Sendable value `init` was given.
    private let box: AnyHashable

    package init<Value: Sendable & Hashable>(_ value: Value) { box = AnyHashable(value) }

    /// The value, if it is a `Value`.
    package func value<Value>(as type: Value.Type) -> Value? { box.base as? Value }
}
