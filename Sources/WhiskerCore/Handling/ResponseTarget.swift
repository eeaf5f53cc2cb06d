package import HTTPTypes
package import WhiskerSockets

/// Where a handler's response goes: one HTTP/1.1 exchange or one HTTP/2 stream. The calls come
/// from the handler's task; implementations hop to their connection's queue.
package protocol ResponseTarget: ResponseBodySink {
    /// A whole response whose body is in memory.
    func writeResponse(_ head: HTTPResponse, body: ArraySlice<UInt8>)
    /// The head of a streamed body, of known length or not.
    func writeStreamHead(_ head: HTTPResponse, length: Int64?)
    /// The streamed body is complete.
    func finishStream()
    /// The streamed body failed after its head went out.
    func abortStream()
    /// A `101` after which the connection continues in `next` (HTTP/1.1 only).
    func switchProtocols(_ head: HTTPResponse, to next: any ProtocolSwitch)
}

/// A connection that writes the response of one of its exchanges (HTTP/1.1) or streams (HTTP/2);
/// every method runs on the connection's queue.
package protocol ResponseWriting: AnyObject, SendableMetatype {
    /// Which exchange or stream a response belongs to.
    associatedtype ExchangeID: Sendable
    func writeResponse(_ head: HTTPResponse, body: ArraySlice<UInt8>, id: ExchangeID)
    func writeStreamHead(_ head: HTTPResponse, length: Int64?, id: ExchangeID)
    /// `completion` runs once the chunk is on its way (or with the error that stopped it).
    func writeStreamChunk(_ bytes: ArraySlice<UInt8>, id: ExchangeID, completion: @escaping ((any Error)?) -> Void)
    func finishStream(id: ExchangeID)
    func abortStream(id: ExchangeID)
    func switchProtocols(_ head: HTTPResponse, to next: any ProtocolSwitch, id: ExchangeID)
    /// Queues a region of a file for the kernel to send (`completion` as for a chunk); false when
    /// the connection cannot (TLS, HTTP/2): the body then reads the file in chunks.
    func writeStreamFile(descriptor: Int32, offset: Int64, count: Int64, id: ExchangeID, completion: @escaping ((any Error)?) -> Void) -> Bool
}

extension ResponseWriting {
    package func writeStreamFile(descriptor: Int32, offset: Int64, count: Int64, id: ExchangeID, completion: @escaping ((any Error)?) -> Void) -> Bool { false }
}

/// One exchange or stream of a connection as the place a handler's response goes: each call hops
/// to the connection's queue (or runs at once when the handler is already on it, without making
/// a closure to send there).
package struct QueueResponseTarget<Connection: ResponseWriting>: ResponseTarget {
    @usableFromInline let connection: QueueBound<Connection>
    @usableFromInline let id: Connection.ExchangeID

    /// Inlinable, so that a connection in another module (HTTP/2) makes its target with the
    /// concrete type: the generic initializer looked `QueueResponseTarget<Connection>` up at run
    /// time on every request (325 instructions, counted with cachegrind).
    @inlinable package init(connection: QueueBound<Connection>, id: Connection.ExchangeID) {
        self.connection = connection
        self.id = id
    }

    package func writeResponse(_ head: HTTPResponse, body: ArraySlice<UInt8>) {
        if let connection = connection.valueIfOnQueue { return connection.writeResponse(head, body: body, id: id) }
        connection.run { [id] in $0.writeResponse(head, body: body, id: id) }
    }

    package func writeStreamHead(_ head: HTTPResponse, length: Int64?) {
        if let connection = connection.valueIfOnQueue { return connection.writeStreamHead(head, length: length, id: id) }
        connection.run { [id] in $0.writeStreamHead(head, length: length, id: id) }
    }

    package func finishStream() {
        if let connection = connection.valueIfOnQueue { return connection.finishStream(id: id) }
        connection.run { [id] in $0.finishStream(id: id) }
    }

    package func abortStream() {
        if let connection = connection.valueIfOnQueue { return connection.abortStream(id: id) }
        connection.run { [id] in $0.abortStream(id: id) }
    }

    package func switchProtocols(_ head: HTTPResponse, to next: any ProtocolSwitch) {
        if let connection = connection.valueIfOnQueue { return connection.switchProtocols(head, to: next, id: id) }
        connection.run { [id] in $0.switchProtocols(head, to: next, id: id) }
    }

    package func writeFile(descriptor: Int32, offset: Int64, count: Int64) async throws {
        let sent = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
            connection.run { [id] connection in
                let taken = connection.writeStreamFile(descriptor: descriptor, offset: offset, count: count, id: id) { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: true) }
                }
                if !taken { continuation.resume(returning: false) }
            }
        }
        if !sent { try await writeFileInChunks(descriptor: descriptor, offset: offset, count: count) }
    }

    package func writeBodyChunk(_ bytes: ArraySlice<UInt8>) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            connection.run { [id] connection in
                connection.writeStreamChunk(bytes, id: id) { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                }
            }
        }
    }
}
