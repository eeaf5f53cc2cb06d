import WhiskerSockets

/// Reads a client's frames from the connection's read buffer and assembles its messages, with no
/// I/O (RFC 6455 5.2-5.6): every rule on incoming frames is here, and each breach is a
/// ``Event/failure(_:reason:)`` with the close code the RFC gives it.
///
/// - A frame header is checked as soon as its bytes are in: RSV bits without an extension, an
///   unknown opcode, an unmasked frame, a 64-bit length with the high bit set, a control frame
///   longer than 125 bytes or fragmented (1002); a frame or message past its limit (1009), before
///   any of its payload is taken.
/// - The payload is moved out of the read buffer as it arrives, unmasked while it is copied
///   (the one copy a message needs), so a large frame does not grow the read buffer.
/// - Fragments: a continuation with no message started, or a new text/binary frame inside one,
///   is a 1002; control frames may come between fragments.
/// - Text is validated as UTF-8 piece by piece: the first bad fragment fails with 1007.
/// - With permessage-deflate negotiated (RFC 7692), RSV1 on a message's first frame marks it
///   compressed; RSV1 on a control or continuation frame, or without the extension, is a 1002.
///   A compressed payload is inflated as it arrives, with the `0x00 0x00 0xff 0xff` tail after its
///   last frame; the inflated bytes count against the frame and message limits as they are made
///   (1009 the moment they would cross one, so a bomb costs at most the limit), and bytes that
///   are not DEFLATE fail with 1007.
/// - A close frame: empty, or a code (1000-1003, 1007-1011, 3000-4999, else 1002) and a UTF-8
///   reason (else 1007); a 1-byte close payload is a 1002.
///
/// After a close or a failure it reads nothing more.
struct WebSocketFrameReader {
    /// What the bytes read so far amount to.
    enum Event: Equatable {
        /// A whole message.
        case message(WebSocketMessage)
        /// A ping with its payload (the pong must carry the same).
        case ping([UInt8])
        /// A pong (unsolicited or answering ours).
        case pong([UInt8])
        /// The peer's close frame: its code (`nil` for an empty payload) and reason.
        case close(WebSocketCloseCode?, reason: String)
        /// The peer broke a rule: close with `code`; `reason` says which, for the log and the frame.
        case failure(WebSocketCloseCode, reason: String)
    }

    private struct Frame {
        let opcode: WebSocketFrame.Opcode
        let fin: Bool
        let mask: (UInt8, UInt8, UInt8, UInt8)
        var remaining: Int
        var maskOffset = 0
        /// RSV1: the first frame of a compressed message.
        var rsv1 = false
        /// For a compressed message's frame: the inflated bytes it made so far.
        var inflated = 0
    }

    private enum Phase {
        case header
        case payload(Frame)
        case done
    }

    let maxFrameSize: Int
    let maxMessageSize: Int
    private var phase = Phase.header
    /// The data message being assembled: its opcode while one is started.
    private var messageOpcode: WebSocketFrame.Opcode?
    private var message: [UInt8] = []
    private var utf8 = UTF8Validator()
    private var control: [UInt8] = []
    /// permessage-deflate's inflater, when the extension was negotiated.
    private let inflater: (any WebSocketInflater)?
    /// The message being assembled is compressed (RSV1 on its first frame).
    private var messageCompressed = false
    /// A compressed message's bytes on the wire so far (its frames' payloads).
    private var messageWireBytes = 0

    /// A reader with the limits of `limits`, inflating compressed messages with `inflater` (`nil`:
    /// no extension negotiated, RSV1 is a protocol error).
    init(limits: WebSocketLimits, inflater: (any WebSocketInflater)? = nil) {
        maxFrameSize = limits.maxFrameSize
        maxMessageSize = limits.maxMessageSize
        self.inflater = inflater
    }

    /// The bytes of the message being assembled (for the memory bound's tests).
    var bufferedMessageBytes: Int { message.count }

    /// Consumes what it can of `buffer` and returns the next event, or `nil` when more bytes are
    /// needed (or after a close or a failure).
    mutating func next(from buffer: inout ReadBuffer) -> Event? {
        while true {
            switch phase {
            case .done:
                return nil
            case .header:
                switch readHeader(from: &buffer) {
                case .needMore: return nil
                case .failure(let code, let reason):
                    phase = .done
                    return .failure(code, reason: reason)
                case .frame(let frame):
                    phase = .payload(frame)
                    if frame.remaining == 0, let event = finish(frame) { return event }
                }
            case .payload(var frame):
                guard buffer.readableBytes > 0 else { return nil }
                let take = min(frame.remaining, buffer.readableBytes)
                let isText = !frame.opcode.isControl && messageOpcode == .text
                let inflating = !frame.opcode.isControl && messageCompressed
                let start = message.count
                let failure: Event? = buffer.withUnsafeReadableBytes { bytes in
                    let piece = UnsafeBufferPointer(rebasing: bytes[0..<take])
                    if frame.opcode.isControl {
                        unmask(piece, into: &control, frame: &frame)
                    } else if inflating {
                        // Unmasked into a temporary buffer (at most one read), inflated from there.
                        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: take) { unmasked in
                            unmask(piece, into: unmasked, frame: &frame)
                            return inflate(UnsafeBufferPointer(unmasked), frame: &frame)
                        }
                    } else {
                        unmask(piece, into: &message, frame: &frame)
                    }
                    return nil
                }
                buffer.moveReaderIndex(forwardBy: take)
                frame.remaining -= take
                if let failure { return failure }
                let valid = !isText || message.withUnsafeBufferPointer { utf8.validate(UnsafeBufferPointer(rebasing: $0[start...])) }
                guard valid else {
                    phase = .done
                    return .failure(.invalidFramePayloadData, reason: "a text message is not UTF-8")
                }
                phase = .payload(frame)
                if frame.remaining == 0, let event = finish(frame) { return event }
            }
        }
    }

    /// Inflates `input` (a compressed message's unmasked bytes) onto the message, within what
    /// the frame and message limits leave; the failure event when it cannot.
    private mutating func inflate(_ input: UnsafeBufferPointer<UInt8>, frame: inout Frame) -> Event? {
        guard let inflater else { return nil }
        let messageRoom = maxMessageSize - message.count
        let frameRoom = maxFrameSize - frame.inflated
        let (limitName, limit) = messageRoom <= frameRoom ? ("message", maxMessageSize) : ("frame", maxFrameSize)
        let allowance = min(messageRoom, frameRoom)
        let before = message.count
        let result = inflater.inflate(input, into: &message, allowance: allowance)
        frame.inflated += message.count - before
        switch result {
        case .ok:
            return nil
        case .tooBig:
            phase = .done
            message = []  // the memory goes now, not when the connection does
            return .failure(.messageTooBig, reason: "a compressed \(limitName) that inflates past the limit of \(limit) bytes")
        case .corrupt(let detail):
            phase = .done
            return .failure(.invalidFramePayloadData, reason: "a compressed message that does not inflate (\(detail))")
        }
    }

    private enum HeaderResult {
        case needMore
        case frame(Frame)
        case failure(WebSocketCloseCode, String)
    }

    private mutating func readHeader(from buffer: inout ReadBuffer) -> HeaderResult {
        let result: (HeaderResult, Int) = buffer.withUnsafeReadableBytes { bytes in
            guard bytes.count >= 2 else { return (.needMore, 0) }
            let first = bytes[0]
            let second = bytes[1]
            let fin = first & 0x80 != 0
            // The first two bytes settle most rules: fail before waiting for the rest.
            let rsv = first & 0x70
            // RSV1 is permessage-deflate's, when it was negotiated; RSV2 and RSV3 are no one's.
            guard rsv == 0 || (rsv == 0x40 && inflater != nil) else {
                return (.failure(.protocolError, "RSV bits set without a negotiated extension"), 0)
            }
            guard let opcode = WebSocketFrame.Opcode(rawValue: first & 0x0F) else {
                return (.failure(.protocolError, "unknown opcode \(first & 0x0F)"), 0)
            }
            if rsv != 0 {
                // RFC 7692 6.1: only a message's first frame says it is compressed.
                guard !opcode.isControl else { return (.failure(.protocolError, "RSV1 on a control frame"), 0) }
                guard opcode != .continuation else { return (.failure(.protocolError, "RSV1 on a continuation frame"), 0) }
            }
            guard second & 0x80 != 0 else { return (.failure(.protocolError, "an unmasked client frame"), 0) }
            let shortLength = Int(second & 0x7F)
            if opcode.isControl {
                guard fin else { return (.failure(.protocolError, "a fragmented control frame"), 0) }
                guard shortLength <= WebSocketFrame.maxControlPayload else {
                    return (.failure(.protocolError, "a control frame of more than 125 bytes"), 0)
                }
            } else if opcode == .continuation {
                guard messageOpcode != nil else { return (.failure(.protocolError, "a continuation frame with no message started"), 0) }
            } else if messageOpcode != nil {
                return (.failure(.protocolError, "a new message inside a fragmented one"), 0)
            }
            let lengthBytes = shortLength == 126 ? 2 : shortLength == 127 ? 8 : 0
            let headerSize = 2 + lengthBytes + 4
            guard bytes.count >= headerSize else { return (.needMore, 0) }
            var length: UInt64 = UInt64(shortLength)
            if lengthBytes > 0 {
                length = 0
                for index in 2..<(2 + lengthBytes) { length = length << 8 | UInt64(bytes[index]) }
                if lengthBytes == 8 && length >> 63 != 0 {
                    return (.failure(.protocolError, "a 64-bit frame length with the high bit set"), 0)
                }
            }
            guard length <= UInt64(maxFrameSize) else {
                return (.failure(.messageTooBig, "a frame of \(length) bytes, over the limit of \(maxFrameSize)"), 0)
            }
            // A compressed message counts its wire bytes here, and its inflated bytes as they come.
            let sofar = opcode == .continuation && messageCompressed ? messageWireBytes : opcode == .continuation ? message.count : 0
            if !opcode.isControl && UInt64(sofar) + length > UInt64(maxMessageSize) {
                return (.failure(.messageTooBig, "a message of more than \(maxMessageSize) bytes"), 0)
            }
            let m = 2 + lengthBytes
            let frame = Frame(opcode: opcode, fin: fin, mask: (bytes[m], bytes[m + 1], bytes[m + 2], bytes[m + 3]), remaining: Int(length), rsv1: rsv != 0)
            return (.frame(frame), headerSize)
        }
        if result.1 > 0 { buffer.moveReaderIndex(forwardBy: result.1) }
        if case .frame(let frame) = result.0 {
            if frame.opcode.isControl {
                control.removeAll(keepingCapacity: true)
            } else {
                if frame.opcode != .continuation {
                    messageOpcode = frame.opcode
                    utf8 = UTF8Validator()
                    messageCompressed = frame.rsv1
                    messageWireBytes = 0
                }
                messageWireBytes += frame.remaining
            }
        }
        return result.0
    }

    /// XORs `piece` with the frame's mask, from where the frame's previous piece stopped, into
    /// `destination` (as long as `piece`).
    private func unmask(_ piece: UnsafeBufferPointer<UInt8>, into destination: UnsafeMutableBufferPointer<UInt8>, frame: inout Frame) {
        let mask = [frame.mask.0, frame.mask.1, frame.mask.2, frame.mask.3]
        var offset = frame.maskOffset
        for index in 0..<piece.count {
            destination[index] = piece[index] ^ mask[offset]
            offset = (offset + 1) & 3
        }
        frame.maskOffset = offset
    }

    /// XORs `piece` with the frame's mask, from where the frame's previous piece stopped, onto `destination`.
    private func unmask(_ piece: UnsafeBufferPointer<UInt8>, into destination: inout [UInt8], frame: inout Frame) {
        let mask = [frame.mask.0, frame.mask.1, frame.mask.2, frame.mask.3]
        var offset = frame.maskOffset
        destination.reserveCapacity(destination.count + piece.count)
        for byte in piece {
            destination.append(byte ^ mask[offset])
            offset = (offset + 1) & 3
        }
        frame.maskOffset = offset
    }

    /// The event a complete frame makes, if any (a fragment that is not the last makes none).
    private mutating func finish(_ frame: Frame) -> Event? {
        phase = .header
        switch frame.opcode {
        case .ping:
            return .ping(control)
        case .pong:
            return .pong(control)
        case .close:
            phase = .done
            return closeEvent(control)
        case .text, .binary, .continuation:
            guard frame.fin else { return nil }
            if messageCompressed, !frame.opcode.isControl {
                // The sync flush's tail the sender stripped (RFC 7692 7.2.2), then the message is whole.
                var last = frame
                let start = message.count
                if let failure = deflateTail.withUnsafeBufferPointer({ inflate($0, frame: &last) }) { return failure }
                if messageOpcode == .text, !message.withUnsafeBufferPointer({ utf8.validate(UnsafeBufferPointer(rebasing: $0[start...])) }) {
                    phase = .done
                    return .failure(.invalidFramePayloadData, reason: "a text message is not UTF-8")
                }
                inflater?.endMessage()
                messageCompressed = false
            }
            let opcode = messageOpcode
            messageOpcode = nil
            var bytes: [UInt8] = []
            swap(&bytes, &message)
            if opcode == .text {
                guard utf8.isComplete else {
                    phase = .done
                    return .failure(.invalidFramePayloadData, reason: "a text message ends inside a UTF-8 character")
                }
                return .message(.text(String(decoding: bytes, as: UTF8.self)))
            }
            return .message(.binary(bytes))
        }
    }

    private func closeEvent(_ payload: [UInt8]) -> Event {
        if payload.isEmpty { return .close(nil, reason: "") }
        guard payload.count >= 2 else { return .failure(.protocolError, reason: "a close frame with a 1-byte payload") }
        let code = WebSocketCloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isValidOnWire else { return .failure(.protocolError, reason: "a close frame with code \(code.rawValue), which may not be sent") }
        let reason = payload[2...]
        guard UTF8Validator.isValid(reason) else { return .failure(.invalidFramePayloadData, reason: "a close reason that is not UTF-8") }
        return .close(code, reason: String(decoding: reason, as: UTF8.self))
    }
}
