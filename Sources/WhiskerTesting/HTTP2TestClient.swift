internal import CNGHTTP2
import WhiskerHTTP2

/// An HTTP/2 client for tests: an nghttp2 client session with no I/O of its own. Move its bytes
/// with ``takeOutput()`` and ``receive(_:)`` (in memory against a server session, or over a
/// ``TestClient`` socket with ``exchange(over:until:)``), and read what came back per stream.
///
///     let socket = try await TestClient.connect(to: address)
///     let h2 = HTTP2TestClient()
///     let id = h2.request(path: "/hello")
///     try await h2.exchange(over: socket) { $0.closed[id] != nil }
///     #expect(h2.status(id) == "200")
public final class HTTP2TestClient: @unchecked Sendable {
    // `@unchecked Sendable`: a test uses one client from one task at a time.
    private var session: OpaquePointer?
    /// Response header fields per stream, in order (`:status` first).
    public private(set) var headers: [Int32: [(String, String)]] = [:]
    /// Response body bytes per stream.
    public private(set) var bodies: [Int32: [UInt8]] = [:]
    /// Streams that closed, with their error code (0 for a clean end, 8 for CANCEL).
    public private(set) var closed: [Int32: UInt32] = [:]
    /// Whether the server sent GOAWAY.
    public var goAwayReceived: Bool { !goAwayLastStreamIDs.isEmpty }
    /// The last-stream-id of each GOAWAY the server sent, in order: a graceful shutdown sends
    /// 2^31-1 first, then the last stream it serves.
    public private(set) var goAwayLastStreamIDs: [Int32] = []
    /// The request body each stream still has to send.
    private var uploads: [Int32: ArraySlice<UInt8>] = [:]

    /// Creates a client; its first output is the connection preface and SETTINGS.
    public init() {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            let client = Unmanaged<HTTP2TestClient>.fromOpaque(user!).takeUnretainedValue()
            let id = frame!.pointee.hd.stream_id
            client.headers[id, default: []].append((
                String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, id, data, length, user in
            let client = Unmanaged<HTTP2TestClient>.fromOpaque(user!).takeUnretainedValue()
            client.bodies[id, default: []] += UnsafeBufferPointer(start: data, count: length)
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, id, code, user in
            Unmanaged<HTTP2TestClient>.fromOpaque(user!).takeUnretainedValue().closed[id] = code
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            if frame!.pointee.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) {
                Unmanaged<HTTP2TestClient>.fromOpaque(user!).takeUnretainedValue().goAwayLastStreamIDs.append(frame!.pointee.goaway.last_stream_id)
            }
            return 0
        }
        nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque())
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil, 0)
    }

    deinit { nghttp2_session_del(session) }

    /// Starts a request; a non-nil `body` is sent as DATA frames as flow control allows.
    /// - Parameters:
    ///   - method: The `:method`.
    ///   - path: The `:path`.
    ///   - headers: More fields, after the pseudo-fields (names in lowercase).
    ///   - body: The body, or `nil` to end the stream with the headers.
    /// - Returns: The stream id.
    @discardableResult
    public func request(method: String = "GET", path: String, headers: [(String, String)] = [], body: [UInt8]? = nil) -> Int32 {
        let fields = [(":method", method), (":scheme", "http"), (":authority", "localhost"), (":path", path)] + headers
        return withHeaderList(fields) { list in
            guard let body else { return nghttp2_submit_request(session, nil, list.baseAddress, list.count, nil, nil) }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil)) { _, id, buffer, length, flags, _, user in
                let client = Unmanaged<HTTP2TestClient>.fromOpaque(user!).takeUnretainedValue()
                let left = client.uploads[id] ?? []
                let count = min(length, left.count)
                left.prefix(count).withUnsafeBufferPointer { buffer!.update(from: $0.baseAddress!, count: count) }
                client.uploads[id] = left.dropFirst(count)
                if client.uploads[id]!.isEmpty { flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
                return count
            }
            let id = nghttp2_submit_request(session, nil, list.baseAddress, list.count, &provider, nil)
            uploads[id] = body[...]
            return id
        }
    }

    /// Resets a stream with CANCEL, as a client that gives up.
    public func cancel(_ id: Int32) {
        nghttp2_submit_rst_stream(session, 0, id, UInt32(NGHTTP2_CANCEL.rawValue))
    }

    /// The frames the client wants to send now.
    public func takeOutput() -> [UInt8] {
        var output: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            guard count > 0, let data else { return output }
            output += UnsafeBufferPointer(start: data, count: count)
        }
    }

    /// Feeds bytes from the server.
    public func receive(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { _ = nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
    }

    /// The `:status` of a stream's response.
    public func status(_ id: Int32) -> String? { headers[id]?.first { $0.0 == ":status" }?.1 }

    /// Sends and receives over `socket` until `done` says so (or the server closes the connection).
    /// Each read waits at most the socket's timeout, so a test cannot hang.
    public func exchange(over socket: TestClient, until done: (HTTP2TestClient) -> Bool) async throws {
        while true {
            let output = takeOutput()
            if !output.isEmpty { try await socket.send(output) }
            if done(self) { return }
            let input = try await socket.receiveSome()
            if input.isEmpty { return }
            receive(input)
        }
    }
}
