/// Base64 (RFC 4648 section 4, with padding), for the handshake's key and accept values: no
/// Foundation in this module.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The padded encoding of `bytes`.
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= input.count {
            let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output += [alphabet[Int(value >> 18 & 63)], alphabet[Int(value >> 12 & 63)], alphabet[Int(value >> 6 & 63)], alphabet[Int(value & 63)]]
            index += 3
        }
        switch input.count - index {
        case 1:
            let value = UInt32(input[index]) << 16
            output += [alphabet[Int(value >> 18 & 63)], alphabet[Int(value >> 12 & 63)], UInt8(ascii: "="), UInt8(ascii: "=")]
        case 2:
            let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output += [alphabet[Int(value >> 18 & 63)], alphabet[Int(value >> 12 & 63)], alphabet[Int(value >> 6 & 63)], UInt8(ascii: "=")]
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `text` encodes, or `nil` when it is not canonical padded base64: a length that
    /// is not a multiple of 4, a character outside the alphabet, padding anywhere but at the end,
    /// or pad bits that are not zero (so that each byte string has exactly one accepted spelling).
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            var values: [UInt32] = []
            var padding = 0
            for offset in 0..<4 {
                let character = input[index + offset]
                if character == UInt8(ascii: "=") {
                    // Only the last one or two characters of the last group may be padding.
                    guard isLast, offset >= 2 else { return nil }
                    padding += 1
                    values.append(0)
                } else {
                    guard padding == 0, let value = sextet(character) else { return nil }
                    values.append(value)
                }
            }
            let group = values[0] << 18 | values[1] << 12 | values[2] << 6 | values[3]
            switch padding {
            case 0: output += [UInt8(group >> 16 & 0xFF), UInt8(group >> 8 & 0xFF), UInt8(group & 0xFF)]
            case 1:
                guard group & 0xFF == 0 else { return nil }
                output += [UInt8(group >> 16 & 0xFF), UInt8(group >> 8 & 0xFF)]
            default:
                guard group & 0xFFFF == 0 else { return nil }
                output.append(UInt8(group >> 16 & 0xFF))
            }
            index += 4
        }
        return output
    }

    private static func sextet(_ character: UInt8) -> UInt32? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(character - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(character - UInt8(ascii: "a") + 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(character - UInt8(ascii: "0") + 52)
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
