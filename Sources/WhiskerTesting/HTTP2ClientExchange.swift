internal import CNGHTTP2
import Dispatch
import HTTPTypes
import OpenAPIRuntime
import WhiskerHTTP2

/// One HTTP/2 request (h2c with prior knowledge) and its response over a ``ClientPipe`` of its
/// own, through an nghttp2 client session. The request body is sent as the server's flow control
/// allows, pulled from its `HTTPBody` as it goes; the response body's bytes are acknowledged to
/// the server (WINDOW_UPDATE) only as the returned `HTTPBody` is read, so a client that stops
/// reading stops the server's handler, as over a real connection. The pipe closes when the body
/// has been read to its end, or when nothing holds it any more.
final class HTTP2ClientExchange: @unchecked Sendable {
    // `@unchecked Sendable`: the session and the state around it are touched only on `queue`.
    private let pipe: any ClientPipe
    private let queue = DispatchQueue(label: "whisker.test-transport.h2")
    private var session: OpaquePointer?
    private let outbound: AsyncStream<[UInt8]>.Continuation
    private var streamID: Int32 = -1
    private var isFinished = false
    private var tasks: [Task<Void, Never>] = []

    // The response.
    private var status: Int?
    private var fields = HTTPFields()
    private var head: HTTPResponse?
    private var headWaiter: CheckedContinuation<HTTPResponse, any Error>?
    private var chunks: [ArraySlice<UInt8>] = []
    private var bodyEnded = false
    private var failure: (any Error)?
    private var bodyWaiter: CheckedContinuation<ArraySlice<UInt8>?, any Error>?
    /// Body bytes handed to the reader and not yet acknowledged to the server.
    private var unacknowledged = 0

    // The request body.
    private var uploadBuffer: [UInt8] = []
    private var uploadEnded = false
    private var uploadDeferred = false
    private var spaceWaiter: CheckedContinuation<Void, any Error>?
    /// The most request body bytes that wait for the server's flow control before the upload
    /// waits too.
    private static let uploadBufferLimit = 64 * 1024

    static func send(_ request: HTTPRequest, body: HTTPBody?, over pipe: any ClientPipe) async throws -> (HTTPResponse, HTTPBody?) {
        let exchange = HTTP2ClientExchange(pipe: pipe)
        let handle = HTTP2ResponseHandle(exchange: exchange)
        let response: HTTPResponse
        do {
            exchange.start(request, body: body)
            response = try await exchange.responseHead()
        } catch {
            exchange.finish()
            throw error
        }
        let code = response.status.code
        if request.method == .head || code == 204 || code == 304 {
            exchange.finish()
            return (response, nil)
        }
        let length: HTTPBody.Length = response.headerFields[.contentLength].flatMap { Int64($0) }.map { .known($0) } ?? .unknown
        return (response, HTTPBody(HTTP2ResponseBody(handle: handle), length: length, iterationBehavior: .single))
    }

    private init(pipe: any ClientPipe) {
        self.pipe = pipe
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        self.outbound = continuation
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            let exchange = Unmanaged<HTTP2ClientExchange>.fromOpaque(user!).takeUnretainedValue()
            exchange.headerReceived(
                stream: frame!.pointee.hd.stream_id,
                name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            let exchange = Unmanaged<HTTP2ClientExchange>.fromOpaque(user!).takeUnretainedValue()
            let header = frame!.pointee.hd
            exchange.frameReceived(
                stream: header.stream_id, isHeaders: header.type == UInt8(NGHTTP2_HEADERS.rawValue),
                endsStream: header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0)
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, id, data, length, user in
            let exchange = Unmanaged<HTTP2ClientExchange>.fromOpaque(user!).takeUnretainedValue()
            exchange.dataReceived(stream: id, ArraySlice(UnsafeBufferPointer(start: data, count: length)))
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, id, code, user in
            Unmanaged<HTTP2ClientExchange>.fromOpaque(user!).takeUnretainedValue().streamClosed(id, code: code)
            return 0
        }
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        // The reader acknowledges what it has read (nghttp2_session_consume), not the session
        // what arrived: flow control reaches the server.
        nghttp2_option_set_no_auto_window_update(option, 1)
        nghttp2_session_client_new2(&session, callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil, 0)
        // Frames leave in order, one send at a time, each once the pipe took the one before.
        tasks.append(Task { [pipe] in
            for await bytes in stream {
                do { try await pipe.send(bytes) } catch { break }
            }
        })
    }

    deinit { nghttp2_session_del(session) }

    // MARK: The request

    private func start(_ request: HTTPRequest, body: HTTPBody?) {
        var list = [(":method", request.method.rawValue), (":scheme", request.scheme ?? "http"), (":authority", request.authority ?? "localhost"), (":path", request.path ?? "/")]
        for field in request.headerFields where !Self.connectionSpecific.contains(field.name) {
            list.append((field.name.canonicalName, field.value))
        }
        if let body, case .known(let length) = body.length, request.headerFields[.contentLength] == nil {
            list.append(("content-length", String(length)))
        }
        queue.sync {
            streamID = withHeaderList(list) { nv in
                guard body != nil else { return nghttp2_submit_request(session, nil, nv.baseAddress, nv.count, nil, nil) }
                var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil)) { _, _, buffer, length, flags, _, user in
                    Unmanaged<HTTP2ClientExchange>.fromOpaque(user!).takeUnretainedValue().provideUpload(into: buffer!, length: length, flags: flags!)
                }
                return nghttp2_submit_request(session, nil, nv.baseAddress, nv.count, &provider, nil)
            }
            flush()
        }
        // The exchange reads until the pipe ends: finish() closes it.
        tasks.append(Task { [self] in
            do {
                while true {
                    let bytes = try await pipe.receive()
                    if bytes.isEmpty { break }
                    queue.sync { receive(bytes) }
                }
                queue.sync { fail(WhiskerTestTransportError("the server closed the connection before the response was complete")) }
            } catch {
                queue.sync { fail(error) }
            }
        })
        if let body {
            tasks.append(Task { [self] in
                do {
                    for try await chunk in body where !chunk.isEmpty { try await enqueueUpload(chunk) }
                    queue.sync {
                        uploadEnded = true
                        resumeUpload()
                    }
                } catch {
                    // The body failed: the stream is cancelled, as a client that gives up.
                    queue.sync {
                        guard !isFinished else { return }
                        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, UInt32(NGHTTP2_CANCEL.rawValue))
                        fail(error)
                        flush()
                    }
                }
            })
        }
    }

    /// Fields HTTP/2 does not carry (RFC 9113, 8.2.2), and `Host`, which `:authority` replaces.
    private static let connectionSpecific: Set<HTTPField.Name> = [
        .connection, .transferEncoding, .upgrade, HTTPField.Name("Proxy-Connection")!, HTTPField.Name("Keep-Alive")!, HTTPField.Name("Host")!,
    ]

    private func enqueueUpload(_ chunk: ArraySlice<UInt8>) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { [self] in
                if isFinished { return continuation.resume(throwing: failure ?? PipeClosedError()) }
                uploadBuffer += chunk
                resumeUpload()
                if uploadBuffer.count >= Self.uploadBufferLimit { spaceWaiter = continuation } else { continuation.resume() }
            }
        }
    }

    /// On the queue: lets a deferred DATA frame go.
    private func resumeUpload() {
        guard !isFinished else { return }
        if uploadDeferred {
            uploadDeferred = false
            nghttp2_session_resume_data(session, streamID)
        }
        flush()
    }

    /// nghttp2's read callback for the request body (on the queue, inside `mem_send`).
    private func provideUpload(into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        let count = min(length, uploadBuffer.count)
        if count == 0 && !uploadEnded {
            uploadDeferred = true
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        }
        uploadBuffer.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: count) }
        uploadBuffer.removeFirst(count)
        if uploadBuffer.isEmpty && uploadEnded { flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
        if uploadBuffer.count < Self.uploadBufferLimit, let waiter = spaceWaiter {
            spaceWaiter = nil
            waiter.resume()
        }
        return count
    }

    // MARK: The response

    private func responseHead() async throws -> HTTPResponse {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                if let head { return continuation.resume(returning: head) }
                if let failure { return continuation.resume(throwing: failure) }
                headWaiter = continuation
            }
        }
    }

    /// The next piece of the response body, `nil` at its end.
    fileprivate func nextBodyChunk() async throws -> ArraySlice<UInt8>? {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                if !chunks.isEmpty { return continuation.resume(returning: takeChunk()) }
                if bodyEnded {
                    finishOnQueue()
                    return continuation.resume(returning: nil)
                }
                if let failure { return continuation.resume(throwing: failure) }
                bodyWaiter = continuation
            }
        }
    }

    /// On the queue: the first chunk, acknowledged to the server with the next flush.
    private func takeChunk() -> ArraySlice<UInt8> {
        let chunk = chunks.removeFirst()
        unacknowledged += chunk.count
        flush()
        return chunk
    }

    private func headerReceived(stream: Int32, name: String, value: String) {
        guard stream == streamID, head == nil else { return }
        if name == ":status" {
            status = Int(value)
        } else if !name.hasPrefix(":"), let name = HTTPField.Name(name) {
            fields.append(HTTPField(name: name, value: value))
        }
    }

    private func frameReceived(stream: Int32, isHeaders: Bool, endsStream: Bool) {
        guard stream == streamID else { return }
        if isHeaders, head == nil {
            guard let status, (200...999).contains(status) else {
                // An interim response (100 Continue, 103): the final one follows.
                self.status = nil
                fields = HTTPFields()
                return
            }
            let response = HTTPResponse(status: .init(code: status), headerFields: fields)
            head = response
            headWaiter?.resume(returning: response)
            headWaiter = nil
        }
        if endsStream {
            bodyEnded = true
            if let waiter = bodyWaiter, chunks.isEmpty {
                bodyWaiter = nil
                finishOnQueue()
                waiter.resume(returning: nil)
            }
        }
    }

    private func dataReceived(stream: Int32, _ bytes: ArraySlice<UInt8>) {
        guard stream == streamID else { return }
        chunks.append(bytes)
        if let waiter = bodyWaiter {
            bodyWaiter = nil
            waiter.resume(returning: takeChunk())
        }
    }

    private func streamClosed(_ id: Int32, code: UInt32) {
        guard id == streamID, !bodyEnded || head == nil else { return }
        fail(WhiskerTestTransportError("the server reset the stream (HTTP/2 error code \(code))"))
    }

    // MARK: The session

    /// On the queue: feeds the server's bytes to the session.
    private func receive(_ bytes: [UInt8]) {
        guard !isFinished else { return }
        let result = bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
        if result < 0 {
            fail(WhiskerTestTransportError("HTTP/2 error: \(nghttp2_strerror(Int32(result)).map { String(cString: $0) } ?? "\(result)")"))
            return
        }
        flush()
    }

    /// On the queue: acknowledges what the reader took, and sends what the session has to send.
    private func flush() {
        guard !isFinished else { return }
        if unacknowledged > 0 {
            nghttp2_session_consume(session, streamID, unacknowledged)
            unacknowledged = 0
        }
        var output: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            guard count > 0, let data else { break }
            output += UnsafeBufferPointer(start: data, count: count)
        }
        if !output.isEmpty { outbound.yield(output) }
    }

    /// On the queue: the exchange failed; whoever waits is told.
    private func fail(_ error: any Error) {
        guard failure == nil, !(bodyEnded && head != nil) else { return }
        failure = error
        headWaiter?.resume(throwing: error)
        headWaiter = nil
        if chunks.isEmpty {
            bodyWaiter?.resume(throwing: error)
            bodyWaiter = nil
        }
        spaceWaiter?.resume(throwing: error)
        spaceWaiter = nil
    }

    /// The response is complete or abandoned: the connection closes and the tasks end.
    fileprivate func finish() {
        queue.async { [self] in finishOnQueue() }
    }

    private func finishOnQueue() {
        guard !isFinished else { return }
        fail(PipeClosedError())
        isFinished = true
        outbound.finish()
        pipe.disconnect()
        for task in tasks { task.cancel() }
        tasks = []
    }
}

/// What the response body holds: when it goes (read or dropped), the exchange finishes.
final class HTTP2ResponseHandle: Sendable {
    fileprivate let exchange: HTTP2ClientExchange
    fileprivate init(exchange: HTTP2ClientExchange) { self.exchange = exchange }
    deinit { exchange.finish() }
}

/// A response body as the pieces ``HTTP2ClientExchange`` receives.
struct HTTP2ResponseBody: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let handle: HTTP2ResponseHandle

    func makeAsyncIterator() -> Iterator { Iterator(handle: handle) }

    struct Iterator: AsyncIteratorProtocol {
        let handle: HTTP2ResponseHandle
        mutating func next() async throws -> ArraySlice<UInt8>? { try await handle.exchange.nextBodyChunk() }
    }
}
