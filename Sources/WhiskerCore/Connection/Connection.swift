import WhiskerSockets

/// One accepted connection: its byte stream (a socket, or a wrapper such as TLS around it) and
/// the handler that speaks its protocol. Every connection starts with HTTP/1.1; a handler may
/// hand the connection over to another protocol (HTTP/2 by ALPN, by its preface or after
/// `Upgrade: h2c`, see ``ProtocolHandover``) with ``handOver(to:buffered:)``, after which the
/// stream's events go straight to the new handler: nothing is forwarded through the old one.
/// The registry entry (``onClose``) belongs to the connection, so it outlives any handover.
///
/// Everything runs on the stream's queue.
package final class Connection {
    package let stream: any ByteStream
    package let context: ServerContext
    /// HTTP/1.1 from ``start()`` until a handover.
    package private(set) var handler: (any ConnectionHandler)?
    /// Called once, on the queue, after the stream closed.
    var onClose: (() -> Void)?

    init(stream: any ByteStream, context: ServerContext) {
        self.stream = stream
        self.context = context
    }

    /// Starts reading with HTTP/1.1.
    func start() {
        let http1 = HTTP1Connection(connection: self)
        handler = http1
        stream.onClose = { [self] in
            handler?.streamClosed()
            let onClose = self.onClose
            self.onClose = nil
            onClose?()
        }
        stream.startReading { [unowned self] in handler?.readable() }
        var nothing = ReadBuffer()
        http1.start(buffered: &nothing)
    }

    /// Makes `handler` the connection's protocol from now on, and starts it with `buffered`: the
    /// bytes the previous handler read and did not consume. The previous handler must have
    /// stopped its timers; it gets no more events.
    package func handOver(to handler: any ConnectionHandler, buffered: inout ReadBuffer) {
        self.handler = handler
        handler.start(buffered: &buffered)
    }

    /// A graceful shutdown of whatever protocol the connection speaks now.
    func beginShutdown() { handler?.beginShutdown() }

    /// Closes now (aborting anything in flight).
    func close() { stream.close() }
}
