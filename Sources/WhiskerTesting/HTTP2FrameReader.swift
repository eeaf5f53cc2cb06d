internal import CNGHTTP2
import WhiskerSockets

/// Reads a server's HTTP/2 frames off a ``TestClient`` socket exactly as they arrive, and decodes
/// response header blocks with nghttp2's HPACK decoder. It answers nothing (no SETTINGS ack, no
/// WINDOW_UPDATE): a test that needs those sends them as ``HTTP2Frame``s.
public final class HTTP2FrameReader: @unchecked Sendable {
    // `@unchecked Sendable`: a test uses one reader from one task at a time.
    private var inflater: OpaquePointer?
    private var buffer: [UInt8] = []
    /// A header block whose CONTINUATION frames are still to come.
    private var pendingBlock: (streamID: Int32, bytes: [UInt8])?
    /// Every frame received, in order.
    public private(set) var frames: [HTTP2Frame] = []
    /// The decoded header fields of each stream's header blocks, in order.
    public private(set) var headers: [Int32: [(name: String, value: String)]] = [:]
    /// Whether the server closed the connection (or reset it).
    public private(set) var isClosed = false

    /// Creates a reader with a fresh HPACK decoding context.
    public init() {
        nghttp2_hd_inflate_new(&inflater)
    }

    deinit { nghttp2_hd_inflate_del(inflater) }

    /// The `:status` of a stream's response.
    public func status(_ streamID: Int32) -> String? { headers[streamID]?.first { $0.name == ":status" }?.value }

    /// The frames of one type, in order.
    public func frames(ofType type: UInt8) -> [HTTP2Frame] { frames.filter { $0.type == type } }

    /// The error code of the RST_STREAM the server sent for a stream, if it sent one.
    public func resetCode(_ streamID: Int32) -> UInt32? {
        frames.first { $0.type == HTTP2Frame.Kind.rstStream && $0.streamID == streamID }?.errorCode
    }

    /// The DATA bytes the server sent on a stream.
    public func body(_ streamID: Int32) -> [UInt8] {
        frames.filter { $0.type == HTTP2Frame.Kind.data && $0.streamID == streamID }.flatMap(\.payload)
    }

    /// Reads until `done` says so or the server closes the connection. Each read waits at most
    /// the socket's timeout, so a server that stays silent fails the test instead of hanging it.
    public func read(from socket: TestClient, until done: (HTTP2FrameReader) -> Bool) async throws {
        while !done(self) && !isClosed {
            let bytes: [UInt8]
            do {
                bytes = try await socket.receiveSome()
            } catch let error as SocketError where error.isDisconnect {
                bytes = []
            }
            if bytes.isEmpty {
                isClosed = true
                return
            }
            receive(bytes)
        }
    }

    /// Feeds bytes from the server.
    public func receive(_ bytes: [UInt8]) {
        buffer += bytes
        for frame in HTTP2Frame.parse(&buffer) {
            frames.append(frame)
            switch frame.type {
            case HTTP2Frame.Kind.headers:
                pendingBlock = (frame.streamID, Self.headerBlockFragment(of: frame))
            case HTTP2Frame.Kind.continuation:
                pendingBlock?.bytes += frame.payload
            default:
                continue
            }
            if frame.has(HTTP2Frame.Flag.endHeaders), let block = pendingBlock {
                pendingBlock = nil
                headers[block.streamID, default: []] += decode(block.bytes)
            }
        }
    }

    /// A HEADERS payload without its padding and priority fields.
    private static func headerBlockFragment(of frame: HTTP2Frame) -> [UInt8] {
        var payload = frame.payload[...]
        var padding = 0
        if frame.has(HTTP2Frame.Flag.padded), let length = payload.first {
            padding = Int(length)
            payload = payload.dropFirst()
        }
        if frame.has(HTTP2Frame.Flag.priority) { payload = payload.dropFirst(5) }
        return Array(payload.dropLast(padding))
    }

    private func decode(_ block: [UInt8]) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        block.withUnsafeBufferPointer { input in
            var offset = 0
            while true {
                var nv = nghttp2_nv()
                var flags: Int32 = 0
                let used = nghttp2_hd_inflate_hd2(inflater, &nv, &flags, input.baseAddress.map { $0 + offset }, input.count - offset, 1)
                guard used >= 0 else { return }
                offset += used
                if flags & Int32(NGHTTP2_HD_INFLATE_EMIT.rawValue) != 0 {
                    fields.append((String(decoding: UnsafeBufferPointer(start: nv.name, count: nv.namelen), as: UTF8.self),
                                   String(decoding: UnsafeBufferPointer(start: nv.value, count: nv.valuelen), as: UTF8.self)))
                }
                if flags & Int32(NGHTTP2_HD_INFLATE_FINAL.rawValue) != 0 {
                    nghttp2_hd_inflate_end_headers(inflater)
                    return
                }
                if used == 0 && flags & Int32(NGHTTP2_HD_INFLATE_EMIT.rawValue) == 0 { return }
            }
        }
        return fields
    }
}
