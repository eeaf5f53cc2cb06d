/// One HTTP/2 frame (RFC 9113 §4.1), for tests that send exact frames and check the exact frames
/// that come back: what a conforming client library would never send (a header block that
/// decodes to megabytes, a stream left open forever) is written by hand here.
///
///     let socket = try await TestClient.connect(to: address)
///     try await socket.send(HTTP2Frame.preface + HTTP2Frame.settings().bytes
///         + HTTP2Frame.headers(streamID: 1, block: HPACK.request(path: "/hello"), endStream: true).bytes)
///     let reader = HTTP2FrameReader()
///     try await reader.read(from: socket) { $0.status(1) != nil }
///     #expect(reader.status(1) == "200")
public struct HTTP2Frame: Sendable, Equatable, CustomStringConvertible {
    /// The frame types of RFC 9113 §6.
    public enum Kind {
        /// DATA (§6.1): a piece of a request or response body, on a stream.
        public static let data: UInt8 = 0x0
        /// HEADERS (§6.2): opens a stream with the start of a header block (an HPACK fragment).
        public static let headers: UInt8 = 0x1
        /// RST_STREAM (§6.4): ends one stream at once, with a 4-byte error code.
        public static let rstStream: UInt8 = 0x3
        /// SETTINGS (§6.5): the sender's parameters on stream 0, or, with ``Flag/ack``, the receipt of the peer's.
        public static let settings: UInt8 = 0x4
        /// PING (§6.7): 8 opaque bytes the peer echoes back with ``Flag/ack``.
        public static let ping: UInt8 = 0x6
        /// GOAWAY (§6.8): the connection is closing; carries the last stream processed and an error code.
        public static let goAway: UInt8 = 0x7
        /// WINDOW_UPDATE (§6.9): a 31-bit increment of flow-control credit, for a stream or (stream 0) the connection.
        public static let windowUpdate: UInt8 = 0x8
        /// CONTINUATION (§6.10): the rest of a header block that did not fit in its HEADERS frame.
        public static let continuation: UInt8 = 0x9
    }

    /// The flags used here: END_STREAM (DATA, HEADERS), ACK (SETTINGS, PING), END_HEADERS.
    public enum Flag {
        /// END_STREAM on DATA and HEADERS: the sender's last frame on this stream.
        public static let endStream: UInt8 = 0x1
        /// ACK on SETTINGS and PING: an acknowledgement, not a new frame of that kind (same bit as ``endStream``).
        public static let ack: UInt8 = 0x1
        /// END_HEADERS on HEADERS and CONTINUATION: the header block ends in this frame.
        public static let endHeaders: UInt8 = 0x4
        /// PADDED on DATA and HEADERS: the payload starts with a pad length byte and ends with that much padding.
        public static let padded: UInt8 = 0x8
        /// PRIORITY on HEADERS: 5 bytes of (deprecated) priority information precede the header block.
        public static let priority: UInt8 = 0x20
    }

    /// The client connection preface (RFC 9113 §3.4), sent before the first SETTINGS.
    public static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// The frame type, one of ``Kind`` (an unknown type is kept as received).
    public var type: UInt8
    /// The flag bits, a combination of ``Flag``; which bits mean something depends on ``type``.
    public var flags: UInt8
    /// The stream the frame belongs to (31 bits); 0 for frames about the whole connection.
    public var streamID: Int32
    /// The frame's payload, without the 9-byte frame header.
    public var payload: [UInt8]

    /// Creates a frame.
    /// - Parameters:
    ///   - type: One of ``Kind``.
    ///   - flags: The flag bits (``Flag``).
    ///   - streamID: The stream, 0 for the connection.
    ///   - payload: The payload, sent as it is (no padding is added).
    public init(type: UInt8, flags: UInt8 = 0, streamID: Int32 = 0, payload: [UInt8] = []) {
        self.type = type
        self.flags = flags
        self.streamID = streamID
        self.payload = payload
    }

    /// The frame on the wire: the 9-byte header, then the payload.
    public var bytes: [UInt8] {
        let length = payload.count
        var bytes: [UInt8] = [UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length), type, flags]
        bytes += Self.bigEndian(UInt32(bitPattern: streamID) & 0x7FFF_FFFF)
        return bytes + payload
    }

    public var description: String { "type \(type) flags 0x\(String(flags, radix: 16)) stream \(streamID), \(payload.count) bytes" }

    /// Whether the flag bit is set.
    public func has(_ flag: UInt8) -> Bool { flags & flag != 0 }

    /// The error code of a RST_STREAM or GOAWAY frame.
    public var errorCode: UInt32? {
        switch type {
        case Kind.rstStream where payload.count >= 4: Self.uint32(payload, at: 0)
        case Kind.goAway where payload.count >= 8: Self.uint32(payload, at: 4)
        default: nil
        }
    }

    /// The last-stream-id of a GOAWAY frame: the highest stream the sender processed.
    public var lastStreamID: Int32? {
        guard type == Kind.goAway, payload.count >= 8 else { return nil }
        return Int32(bitPattern: Self.uint32(payload, at: 0) & 0x7FFF_FFFF)
    }

    /// SETTINGS with the given (identifier, value) pairs, or its acknowledgement.
    public static func settings(_ entries: [(id: UInt16, value: UInt32)] = [], ack: Bool = false) -> HTTP2Frame {
        var payload: [UInt8] = []
        for entry in entries { payload += [UInt8(entry.id >> 8), UInt8(truncatingIfNeeded: entry.id)] + bigEndian(entry.value) }
        return HTTP2Frame(type: Kind.settings, flags: ack ? Flag.ack : 0, payload: payload)
    }

    /// One HEADERS frame carrying a whole header block.
    public static func headers(streamID: Int32, block: [UInt8], endStream: Bool, endHeaders: Bool = true) -> HTTP2Frame {
        HTTP2Frame(type: Kind.headers, flags: (endStream ? Flag.endStream : 0) | (endHeaders ? Flag.endHeaders : 0), streamID: streamID, payload: block)
    }

    /// A header block split into HEADERS and as many CONTINUATION frames as `maxFrameSize` needs.
    public static func headerBlock(streamID: Int32, block: [UInt8], endStream: Bool, maxFrameSize: Int = 16_384) -> [HTTP2Frame] {
        var frames: [HTTP2Frame] = []
        var start = 0
        repeat {
            let end = min(start + maxFrameSize, block.count)
            let isLast = end == block.count
            let piece = Array(block[start..<end])
            if frames.isEmpty {
                frames.append(headers(streamID: streamID, block: piece, endStream: endStream, endHeaders: isLast))
            } else {
                frames.append(HTTP2Frame(type: Kind.continuation, flags: isLast ? Flag.endHeaders : 0, streamID: streamID, payload: piece))
            }
            start = end
        } while start < block.count
        return frames
    }

    /// A DATA frame.
    public static func data(streamID: Int32, bytes: [UInt8], endStream: Bool) -> HTTP2Frame {
        HTTP2Frame(type: Kind.data, flags: endStream ? Flag.endStream : 0, streamID: streamID, payload: bytes)
    }

    /// Takes every complete frame off the front of `buffer`.
    public static func parse(_ buffer: inout [UInt8]) -> [HTTP2Frame] {
        var frames: [HTTP2Frame] = []
        var start = 0
        while buffer.count - start >= 9 {
            let length = Int(buffer[start]) << 16 | Int(buffer[start + 1]) << 8 | Int(buffer[start + 2])
            guard buffer.count - start >= 9 + length else { break }
            let streamID = Int32(bitPattern: uint32(buffer, at: start + 5) & 0x7FFF_FFFF)
            frames.append(HTTP2Frame(type: buffer[start + 3], flags: buffer[start + 4], streamID: streamID, payload: Array(buffer[(start + 9)..<(start + 9 + length)])))
            start += 9 + length
        }
        buffer.removeFirst(start)
        return frames
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    static func uint32(_ bytes: [UInt8], at index: Int) -> UInt32 {
        UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
    }
}

/// HPACK representations (RFC 7541 §6) for header blocks made by hand; strings are sent as they
/// are, never Huffman-coded.
public enum HPACK {
    /// A field from the static or dynamic table by index (§6.1): one byte for indexes below 127.
    public static func indexed(_ index: Int) -> [UInt8] { integer(index, prefixBits: 7, firstByte: 0x80) }

    /// A literal field with a new name that is added to the dynamic table (§6.2.1), where it
    /// becomes index 62 and pushes older entries up.
    public static func literalIndexed(_ name: String, _ value: String) -> [UInt8] {
        [0x40] + string(name) + string(value)
    }

    /// A literal field with a new name, not indexed (§6.2.2).
    public static func literal(_ name: String, _ value: String) -> [UInt8] {
        [0x00] + string(name) + string(value)
    }

    /// The pseudo-header fields of a request, then `fields`, as literals.
    public static func request(method: String = "GET", path: String, authority: String? = "localhost", scheme: String = "http", fields: [(String, String)] = []) -> [UInt8] {
        var block = literal(":method", method) + literal(":scheme", scheme) + literal(":path", path)
        if let authority { block += literal(":authority", authority) }
        for (name, value) in fields { block += literal(name, value) }
        return block
    }

    static func string(_ text: String) -> [UInt8] {
        integer(text.utf8.count, prefixBits: 7, firstByte: 0x00) + Array(text.utf8)
    }

    /// An integer with an N-bit prefix (§5.1).
    static func integer(_ value: Int, prefixBits: Int, firstByte: UInt8) -> [UInt8] {
        let limit = (1 << prefixBits) - 1
        guard value >= limit else { return [firstByte | UInt8(value)] }
        var bytes = [firstByte | UInt8(limit)]
        var rest = value - limit
        while rest >= 128 {
            bytes.append(UInt8(rest % 128 + 128))
            rest /= 128
        }
        bytes.append(UInt8(rest))
        return bytes
    }
}
