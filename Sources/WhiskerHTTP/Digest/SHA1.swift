/// SHA-1 (FIPS 180-4), for the one thing RFC 6455 uses it for: the `Sec-WebSocket-Accept` value.
/// SHA-1 is not used for security in the handshake (RFC 6455 10.8 and 1.3: the value only proves
/// that the server read the request as a WebSocket handshake), so its known collision attacks do
/// not apply.
package struct SHA1: BlockDigest {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)

    package init() {}

    package var digest: [UInt8] { UInt32.bigEndianBytes([state.0, state.1, state.2, state.3, state.4]) }

    package mutating func compress(_ block: [UInt8]) {
        var w = UInt32.words(of: block) + [UInt32](repeating: 0, count: 64)
        for index in 16..<80 {
            w[index] = (w[index - 3] ^ w[index - 8] ^ w[index - 14] ^ w[index - 16]).rotatedRight(31)
        }
        var (a, b, c, d, e) = state
        for index in 0..<80 {
            let f: UInt32
            let k: UInt32
            switch index {
            case 0..<20: f = (b & c) | (~b & d); k = 0x5A82_7999
            case 20..<40: f = b ^ c ^ d; k = 0x6ED9_EBA1
            case 40..<60: f = (b & c) | (b & d) | (c & d); k = 0x8F1B_BCDC
            default: f = b ^ c ^ d; k = 0xCA62_C1D6
            }
            let temp = a.rotatedRight(27) &+ f &+ e &+ k &+ w[index]
            e = d
            d = c
            c = b.rotatedRight(2)
            b = a
            a = temp
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
    }
}
