/// SHA-1 (FIPS 180-4), for the one thing RFC 6455 uses it for: the `Sec-WebSocket-Accept` value.
///
/// Written here so that the module needs neither Foundation nor a crypto library. SHA-1 is not
/// used for security in the handshake (RFC 6455 10.8 and 1.3: the value only proves that the
/// server read the request as a WebSocket handshake), so its known collision attacks do not apply.
struct SHA1 {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
    private var block: [UInt8] = []
    private var length: UInt64 = 0

    init() { block.reserveCapacity(64) }

    /// The 20-byte digest of `bytes`.
    static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var sha = SHA1()
        sha.update(bytes)
        return sha.finalize()
    }

    mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            block.append(byte)
            length &+= 1
            if block.count == 64 {
                compress()
                block.removeAll(keepingCapacity: true)
            }
        }
    }

    consuming func finalize() -> [UInt8] {
        let bitLength = length &* 8
        block.append(0x80)
        if block.count > 56 {
            while block.count < 64 { block.append(0) }
            compress()
            block.removeAll(keepingCapacity: true)
        }
        while block.count < 56 { block.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { block.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        compress()
        var digest: [UInt8] = []
        digest.reserveCapacity(20)
        for word in [state.0, state.1, state.2, state.3, state.4] {
            for shift in stride(from: 24, through: 0, by: -8) { digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) }
        }
        return digest
    }

    private mutating func compress() {
        var w = [UInt32](repeating: 0, count: 80)
        for index in 0..<16 {
            w[index] = UInt32(block[index * 4]) << 24 | UInt32(block[index * 4 + 1]) << 16
                | UInt32(block[index * 4 + 2]) << 8 | UInt32(block[index * 4 + 3])
        }
        for index in 16..<80 {
            w[index] = rotateLeft(w[index - 3] ^ w[index - 8] ^ w[index - 14] ^ w[index - 16], 1)
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
            let temp = rotateLeft(a, 5) &+ f &+ e &+ k &+ w[index]
            e = d
            d = c
            c = rotateLeft(b, 30)
            b = a
            a = temp
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
    }

    private func rotateLeft(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}
