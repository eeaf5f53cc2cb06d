import Dispatch
import Synchronization
public import WhiskerCore

/// A client connection to a server's routes held in memory: no listener and no socket, but the
/// server's own connection code (HTTP/1.1, and HTTP/2 when the configuration turns it on) reading
/// what the client sends and writing its answers to a ``MemoryByteStream``. For tests and
/// benchmarks that want a request's whole path through the server, handler and response included,
/// without the kernel's part of it: the allocation budget (Benchmarks/Allocations) counts the
/// mallocs of a request this way.
///
///     let server = WhiskerServer()
///     try server.register(method: .get, path: "/hello") { _ in
///         Response(status: .ok, body: .init(string: "hello"))
///     }
///     let connection = try InMemoryConnection(to: server)
///     let response = await connection.exchange(Array("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n".utf8)) {
///         $0.suffix(5).elementsEqual("hello".utf8)
///     }
///     // response: "HTTP/1.1 200 OK\r\n...\r\n\r\nhello"
///
/// The server need not run (``/WhiskerCore/WhiskerServer/run(onListening:)``), and its configuration's address
/// is not used; its routes are frozen from the first connection, as when it runs. Every
/// connection is new: a client's first bytes decide its protocol, as over a socket (an HTTP/2
/// client with prior knowledge sends `HTTP2Frame.preface` first; `import WhiskerHTTP2` and set
/// `configuration.http2` for the server to take it). Nothing ends the connection but ``close()``
/// or the server closing it: a server's `shutdown()` does not reach it.
public final class InMemoryConnection: Sendable {
    /// The stream the server's connection reads and writes; everything it does runs on the
    /// stream's ``MemoryByteStream/queue``.
    public let stream: MemoryByteStream
    /// How many bytes of the server's output earlier exchanges returned.
    private let consumed = Mutex(0)

    /// Opens a connection to `server`'s routes, on a new ``MemoryByteStream`` with a worker of its
    /// own. When it returns the connection is reading, and the server's routes are frozen.
    /// - Throws: `SocketError` when the worker cannot be made (no descriptors left).
    public init(to server: WhiskerServer) throws {
        let stream = try MemoryByteStream()
        self.stream = stream
        // The connection lives on the stream's queue, as an accepted socket's on its worker's.
        stream.queue.sync { server.serve(stream) }
    }

    /// Sends `bytes` as the client, then waits until what the server wrote since the previous
    /// exchange satisfies `isComplete`, and returns it (everything it wrote, should the
    /// connection close first). The predicate sees the new bytes each time the server writes
    /// more.
    ///
    /// The slice shares the stream's own buffer: drop it before the next exchange (a benchmark
    /// that kept it would count the copy the next write then makes).
    public func exchange(_ bytes: [UInt8], until isComplete: @escaping @Sendable (ArraySlice<UInt8>) -> Bool) async -> ArraySlice<UInt8> {
        let start = consumed.withLock { $0 }
        stream.send(bytes)
        let output = await stream.received { output in output.count > start && isComplete(output[start...]) }
        consumed.withLock { $0 = output.count }
        return output[start...]
    }

    /// Closes the connection, as a client that resets it: what is in flight is aborted.
    public func close() {
        stream.queue.async { [stream] in stream.close() }
    }
}
