import CNGHTTP2
@testable import WhiskerHTTP2

/// An nghttp2 client session in memory, to drive an ``HTTP2Session`` without sockets.
final class MemoryHTTP2Client {
    private(set) var session: OpaquePointer?
    /// Response headers and body bytes per stream, and how streams ended.
    var headers: [Int32: [(String, String)]] = [:]
    var bodies: [Int32: [UInt8]] = [:]
    var closed: [Int32: UInt32] = [:]
    var goAwayReceived = false
    /// The request body each stream still has to send.
    fileprivate var uploads: [Int32: ArraySlice<UInt8>] = [:]

    init() {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            let client = Unmanaged<MemoryHTTP2Client>.fromOpaque(user!).takeUnretainedValue()
            let id = frame!.pointee.hd.stream_id
            client.headers[id, default: []].append((
                String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, id, data, length, user in
            let client = Unmanaged<MemoryHTTP2Client>.fromOpaque(user!).takeUnretainedValue()
            client.bodies[id, default: []] += UnsafeBufferPointer(start: data, count: length)
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, id, code, user in
            Unmanaged<MemoryHTTP2Client>.fromOpaque(user!).takeUnretainedValue().closed[id] = code
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            if frame!.pointee.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) {
                Unmanaged<MemoryHTTP2Client>.fromOpaque(user!).takeUnretainedValue().goAwayReceived = true
            }
            return 0
        }
        nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque())
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil, 0)
    }

    deinit { nghttp2_session_del(session) }

    /// Starts a request; a non-nil `body` is sent as DATA frames as flow control allows.
    @discardableResult
    func request(method: String = "GET", path: String, body: [UInt8]? = nil) -> Int32 {
        var fields = [(":method", method), (":scheme", "http"), (":authority", "localhost"), (":path", path)]
        var bytes: [UInt8] = []
        var spans: [(Int, Int, Int, Int)] = []
        for (name, value) in fields {
            let n = bytes.count; bytes += name.utf8
            let v = bytes.count; bytes += value.utf8
            spans.append((n, v - n, v, bytes.count - v))
        }
        fields.removeAll()
        return bytes.withUnsafeMutableBufferPointer { all in
            var list = spans.map { nghttp2_nv(name: all.baseAddress! + $0.0, value: all.baseAddress! + $0.2, namelen: $0.1, valuelen: $0.3, flags: 0) }
            guard let body else { return nghttp2_submit_request(session, nil, &list, list.count, nil, nil) }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil)) { _, id, buffer, length, flags, _, user in
                let client = Unmanaged<MemoryHTTP2Client>.fromOpaque(user!).takeUnretainedValue()
                let left = client.uploads[id] ?? []
                let count = min(length, left.count)
                left.prefix(count).withUnsafeBufferPointer { buffer!.update(from: $0.baseAddress!, count: count) }
                client.uploads[id] = left.dropFirst(count)
                if client.uploads[id]!.isEmpty { flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
                return count
            }
            let id = nghttp2_submit_request(session, nil, &list, list.count, &provider, nil)
            uploads[id] = body[...]
            return id
        }
    }

    func cancel(_ id: Int32) {
        nghttp2_submit_rst_stream(session, 0, id, UInt32(NGHTTP2_CANCEL.rawValue))
    }

    func takeOutput() -> [UInt8] {
        var output: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            guard count > 0, let data else { return output }
            output += UnsafeBufferPointer(start: data, count: count)
        }
    }

    func receive(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { _ = nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
    }

    func status(_ id: Int32) -> String? { headers[id]?.first { $0.0 == ":status" }?.1 }
}

/// Moves bytes both ways until neither side has anything to send; returns the server's events.
func exchange(_ client: MemoryHTTP2Client, _ server: HTTP2Session, rounds: Int = 50) throws -> [HTTP2Session.Event] {
    var events: [HTTP2Session.Event] = []
    for _ in 0..<rounds {
        let toServer = client.takeOutput()
        events += try toServer.withUnsafeBytes { try server.receive($0) }
        let toClient = try server.takeOutput() ?? []
        client.receive(toClient)
        if toServer.isEmpty && toClient.isEmpty { break }
    }
    return events
}
