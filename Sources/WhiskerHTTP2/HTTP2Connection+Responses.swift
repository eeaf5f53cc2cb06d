import Dispatch
import HTTPTypes
import Logging
import WhiskerCore

/// The response side of an HTTP/2 connection: what the handlers' response targets call, on the
/// connection's queue, and how a response's head and body become nghttp2 submissions.
extension HTTP2Connection {
    func writeResponse(_ head: HTTPResponse, body: ArraySlice<UInt8>, id streamID: Int32) {
        guard let stream = streams[streamID], !stream.state.isResponseComplete else { return }
        let sendsBody = !body.isEmpty && !stream.isHEAD
        respond(head, length: Int64(body.count), hasBody: sendsBody, stream: stream, streamID: streamID)
        if sendsBody { session.send(streamID: streamID, bytes: body, endStream: true, completion: nil) }
        responseCompleted(streamID, stream)
        flushSoon()
    }

    /// A handler's `101`: HTTP/2 has no protocol switch (RFC 9113 §8.6), so the stream gets a 500.
    func switchProtocols(_ head: HTTPResponse, to next: any ProtocolSwitch, id streamID: Int32) {
        logger.error("a handler answered 101 Switching Protocols over HTTP/2, which cannot switch; answered 500", metadata: ["peer": "\(socket.peer)"])
        writeResponse(HTTPResponse(status: .internalServerError), body: [], id: streamID)
    }

    func writeStreamHead(_ head: HTTPResponse, length: Int64?, id streamID: Int32) {
        guard let stream = streams[streamID], stream.state.mayStartResponse else { return }
        let length = length ?? head.headerFields[.contentLength].flatMap { Int64($0) }
        let sendsBody = !stream.isHEAD && head.status.code != 204 && head.status.code != 304
        if sendsBody { stream.streamed = StreamedBodyCount(declared: length) }
        respond(head, length: length, hasBody: !stream.isHEAD, stream: stream, streamID: streamID)
        flushSoon()
    }

    func writeStreamChunk(_ bytes: ArraySlice<UInt8>, id streamID: Int32, completion: @escaping ((any Error)?) -> Void) {
        guard let stream = streams[streamID], !state.isClosed, !stream.state.isResponseComplete else {
            completion(ResponseBodyError.connectionClosed)
            return
        }
        guard !stream.isHEAD else {
            completion(nil)
            return
        }
        if let error = stream.streamed.add(bytes.count) {
            lengthMismatch(error, stream: stream, id: streamID)
            completion(error)
            return
        }
        stream.pendingChunk = completion
        stream.hasPendingChunk = true
        stream.state.responseBytesQueued(now: .now())
        let queued = session.send(streamID: streamID, bytes: bytes, endStream: false) { [weak stream] in
            guard let stream, stream.hasPendingChunk else { return }
            stream.hasPendingChunk = false
            stream.pendingChunk(nil)
        }
        guard queued else {
            // The session has no body waiting for this stream (its head was refused): the write fails now.
            stream.hasPendingChunk = false
            completion(ResponseBodyError.connectionClosed)
            return
        }
        flushSoon()
    }

    func finishStream(id streamID: Int32) {
        guard let stream = streams[streamID], !stream.state.isResponseComplete else { return }
        if let error = stream.streamed.shortfall { return lengthMismatch(error, stream: stream, id: streamID) }
        if !stream.isHEAD { session.send(streamID: streamID, bytes: [], endStream: true, completion: nil) }
        responseCompleted(streamID, stream)
        flushSoon()
    }

    /// A streamed body that broke its `Content-Length`: the client must not take it for whole,
    /// so the stream is reset (INTERNAL_ERROR), as HTTP/1.1 closes the connection.
    private func lengthMismatch(_ error: ResponseBodyError, stream: HTTP2Stream, id streamID: Int32) {
        logger.error("response body length mismatch; resetting the stream", metadata: ["stream": "\(streamID)", "error": "\(error)"])
        stream.task?.cancel()
        abortStream(id: streamID)
    }

    func abortStream(id streamID: Int32) {
        guard let stream = streams[streamID], !stream.state.isResponseComplete else { return }
        resetStream(streamID, stream, errorCode: 0x2)  // INTERNAL_ERROR
    }

    /// Ends a stream from the server's side: nothing more of its response goes out (and a second
    /// reset is not sent), and the client gets RST_STREAM with `errorCode`.
    func resetStream(_ streamID: Int32, _ stream: HTTP2Stream, errorCode: UInt32) {
        stream.state.reset()
        session.reset(streamID: streamID, errorCode: errorCode)
        flushSoon()
    }

    private func respond(_ head: HTTPResponse, length: Int64?, hasBody: Bool, stream: HTTP2Stream, streamID: Int32) {
        stream.state.responseStarted(now: .now())
        do {
            try session.respond(streamID: streamID, hasBody: hasBody) { headers in
                // Read once: each read of `status` parses the status pseudo-field again.
                let status = head.status.code
                headers.append(":status", String(status))
                for field in head.headerFields where !ServerOwnedFields.contains(field.name, http2: true) {
                    headers.append(field.name.canonicalName, field.value)
                }
                if let length, status != 204, status != 304 { headers.append("content-length", String(length)) }
                headers.append("date", DateCache.shared.value())
            }
        } catch {
            logger.error("HTTP/2 response failed", metadata: ["stream": "\(streamID)", "error": "\(error)"])
            session.reset(streamID: streamID)
            // Nothing more of this response can go out: the handler's writes fail from now on.
            stream.state.reset()
        }
    }

    /// The response's last frame is queued. With the request body still open, the handler will
    /// read no more of it: its unread bytes go back to the window, and what still comes is read
    /// and dropped, as HTTP/1.1 drains a body after an early response: up to
    /// ``WhiskerServer/Limits/unreadBodyDrain`` or until it stalls for
    /// ``WhiskerServer/Timeouts/requestBody``, then the client is asked to stop. Until then the
    /// stream stays open, so the client's frames on it are still checked.
    func responseCompleted(_ id: Int32, _ stream: HTTP2Stream) {
        let unread = stream.state.responseCompleted(now: .now())
        guard stream.state.request == .draining else { return }
        stream.finishBody(RequestBodyError.responseAlreadySent)
        session.consume(streamID: id, count: unread)
    }
}
