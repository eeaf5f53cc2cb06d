public import WhiskerSockets

/// The protocol side of one connection: HTTP/1.1, or one that took the connection over (HTTP/2
/// in WhiskerHTTP2, a ``ProtocolSwitch`` such as WebSocket). The ``Connection`` that owns it calls
/// every member on the stream's queue, in this order: ``start(buffered:)`` once, then
/// ``readable()`` and ``beginShutdown()`` as they come, then ``streamClosed()`` once.
///
/// A handler reads with `connection.stream.read(into:)` until it would block, writes with
/// `stream.write(_:flush:completion:)` (the completion runs when the bytes are in the kernel:
/// wait for it before writing more, so a client that does not read cannot fill memory), pauses
/// and resumes reading for backpressure, and closes with `stream.close()` or
/// `stream.closeAfterFlush(linger:)`.
public protocol ConnectionHandler: AnyObject {
    /// Starts serving, with the bytes already read from the stream (empty for a new connection;
    /// after a handover, what the previous handler read but did not use).
    func start(buffered: inout ReadBuffer)
    /// The stream may have bytes (or the end of stream) to read.
    func readable()
    /// A graceful shutdown: finish what is in flight, take nothing new, then close the stream.
    func beginShutdown()
    /// The stream closed (by either side): cancel what still runs. Called once.
    func streamClosed()
}
