import WhiskerSockets

/// The protocol side of one connection: HTTP/1.1 (``HTTP1Connection``) or one that took the
/// connection over (HTTP/2, in WhiskerHTTP2). The ``Connection`` that owns it calls every member
/// on the stream's queue.
package protocol ConnectionHandler: AnyObject {
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
