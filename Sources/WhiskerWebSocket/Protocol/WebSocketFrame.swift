/// The frame layer of RFC 6455 (section 5.2): opcodes, and the encoder of the server's frames.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-------+-+-------------+-------------------------------+
/// |F|R|R|R| opcode|M| Payload len |    Extended payload length    |
/// |I|S|S|S|  (4)  |A|     (7)     |             (16/64)           |
/// |N|V|V|V|       |S|             |   (if payload len==126/127)   |
/// | |1|2|3|       |K|             |                               |
/// +-+-+-+-+-------+-+-------------+ - - - - - - - - - - - - - - - +
/// |     Extended payload length continued, if payload len == 127  |
/// + - - - - - - - - - - - - - - - +-------------------------------+
/// |                               |Masking-key, if MASK set to 1  |
/// +-------------------------------+-------------------------------+
/// ```
enum WebSocketFrame {
    enum Opcode: UInt8, Equatable {
        case continuation = 0x0
        case text = 0x1
        case binary = 0x2
        case close = 0x8
        case ping = 0x9
        case pong = 0xA

        /// Close, ping and pong: at most 125 bytes, never fragmented, allowed between the
        /// fragments of a message.
        var isControl: Bool { rawValue & 0x8 != 0 }
    }

    /// The longest payload of a control frame (RFC 6455 5.5).
    static let maxControlPayload = 125

    /// A server frame: unmasked (RFC 6455 5.1: a server MUST NOT mask), the shortest length
    /// encoding, `fin` set unless a fragment follows, RSV1 set when `compressed` (the first frame
    /// of a permessage-deflate message, RFC 7692 6).
    static func encode(_ opcode: Opcode, payload: some Collection<UInt8>, fin: Bool = true, compressed: Bool = false) -> [UInt8] {
        let count = payload.count
        var frame: [UInt8] = []
        frame.reserveCapacity(count + 10)
        frame.append((fin ? 0x80 : 0) | (compressed ? 0x40 : 0) | opcode.rawValue)
        if count < 126 {
            frame.append(UInt8(count))
        } else if count <= Int(UInt16.max) {
            frame += [126, UInt8(count >> 8), UInt8(count & 0xFF)]
        } else {
            frame.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift))) }
        }
        frame.append(contentsOf: payload)
        return frame
    }

    /// A close frame: empty without a code, else the code (network order) and as much of
    /// `reason` as fits in 123 bytes, cut at a character boundary.
    static func close(_ code: WebSocketCloseCode?, reason: String = "") -> [UInt8] {
        guard let code else { return encode(.close, payload: EmptyCollection<UInt8>()) }
        var payload: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        for scalar in reason.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if payload.count + bytes.count > maxControlPayload { break }
            payload += bytes
        }
        return encode(.close, payload: payload)
    }
}
