package import Logging
package import WhiskerSockets

/// What an encrypted listener (HTTPS, in WhiskerTLS) plugs into the core: at start, a
/// ``StreamWrapper`` that wraps each accepted socket. The core knows nothing of TLS; it asks the
/// wrapped stream for what it learned (``ByteStream/tlsDetails``).
///
/// A ``WhiskerServer/Listener`` carries one (WhiskerTLS's `.https(...)` sets it).
package protocol SecureListener: Sendable {
    /// Loads what the listener needs (certificate files) and returns the wrapper its accepted
    /// sockets go through, offering `applicationProtocols` (ALPN) as far as it is configured to.
    /// - Throws: ``WhiskerServerError`` naming the file that does not load.
    func prepare(offering applicationProtocols: [String]) throws(WhiskerServerError) -> any StreamWrapper
}

/// Wraps the accepted sockets of one kind of listener for a running server.
package protocol StreamWrapper: AnyObject, Sendable {
    /// The stream that serves `socket` (called on the socket's queue).
    func wrap(_ socket: SocketConnection, logger: Logger) throws -> any ByteStream
}
