import WhiskerSockets
@testable import WhiskerWebSocket

/// Frames as a client writes them, from their parts, so that a test can break exactly one rule.
enum ClientFrame {
    /// How the payload length is written.
    enum LengthForm { case shortest, sixteen, sixtyFour }

    static func make(
        _ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true,
        mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D], length: LengthForm = .shortest, declaredLength: UInt64? = nil
    ) -> [UInt8] {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | (rsv << 4) | opcode]
        let count = declaredLength ?? UInt64(payload.count)
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch length {
        case .shortest where count < 126:
            frame.append(maskBit | UInt8(count))
        case .shortest where count <= 0xFFFF, .sixteen:
            frame += [maskBit | 126, UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
        default:
            frame.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8(truncatingIfNeeded: count >> UInt64(shift))) }
        }
        if masked {
            frame += mask
            frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        } else {
            frame += payload
        }
        return frame
    }

    static func text(_ text: String, fin: Bool = true) -> [UInt8] { make(0x1, Array(text.utf8), fin: fin) }
    static func binary(_ bytes: [UInt8], fin: Bool = true) -> [UInt8] { make(0x2, bytes, fin: fin) }
    static func continuation(_ bytes: [UInt8], fin: Bool = true) -> [UInt8] { make(0x0, bytes, fin: fin) }
    static func ping(_ bytes: [UInt8] = []) -> [UInt8] { make(0x9, bytes) }
    static func pong(_ bytes: [UInt8] = []) -> [UInt8] { make(0xA, bytes) }
    static func close(_ code: UInt16?, reason: [UInt8] = []) -> [UInt8] {
        guard let code else { return make(0x8, []) }
        return make(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)] + reason)
    }
}

/// Reads every event `bytes` make, fed whole or one byte at a time.
func events(_ bytes: [UInt8], limits: WebSocketLimits = WebSocketLimits(), byteByByte: Bool = false) -> [WebSocketFrameReader.Event] {
    var reader = WebSocketFrameReader(limits: limits)
    var buffer = ReadBuffer()
    var result: [WebSocketFrameReader.Event] = []
    let pieces: [[UInt8]] = byteByByte ? bytes.map { [$0] } : [bytes]
    for piece in pieces {
        buffer.append(contentsOf: piece)
        while let event = reader.next(from: &buffer) { result.append(event) }
    }
    return result
}
