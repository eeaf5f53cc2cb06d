/// What SHA-1 and SHA-256 share (FIPS 180-4, 5.1.1 and 6.x): the input is taken in 64-byte blocks,
/// the last one padded with `0x80`, zeros and the input's length in bits; a hash only folds each
/// block into its state and writes its state out. Written here so that no module needs Foundation
/// or a crypto library for them: the WebSocket handshake's `Sec-WebSocket-Accept` (SHA-1) and the
/// fingerprint of a request an idempotency key names (SHA-256).
package protocol BlockDigest {
    /// The initial state.
    init()
    /// Folds one 64-byte block into the state.
    mutating func compress(_ block: [UInt8])
    /// The state as the digest's bytes, big-endian.
    var digest: [UInt8] { get }
}

extension BlockDigest {
    /// The digest of `bytes`.
    package static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var digesting = Digesting<Self>()
        digesting.update(bytes)
        return digesting.finalize()
    }
}

/// A ``BlockDigest`` fed in pieces: ``update(_:)`` as often as there are pieces, then
/// ``finalize()``.
package struct Digesting<Hash: BlockDigest> {
    private var hash = Hash()
    private var block: [UInt8] = []
    private var length: UInt64 = 0

    package init() { block.reserveCapacity(64) }

    package mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            block.append(byte)
            length &+= 1
            if block.count == 64 {
                hash.compress(block)
                block.removeAll(keepingCapacity: true)
            }
        }
    }

    /// The digest of everything given to ``update(_:)``.
    package consuming func finalize() -> [UInt8] {
        let bitLength = length &* 8
        block.append(0x80)
        if block.count > 56 {
            while block.count < 64 { block.append(0) }
            hash.compress(block)
            block.removeAll(keepingCapacity: true)
        }
        while block.count < 56 { block.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { block.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        hash.compress(block)
        return hash.digest
    }
}

extension UInt32 {
    /// The word's bits rotated right by `count` (ROTR, FIPS 180-4 3.2).
    func rotatedRight(_ count: UInt32) -> UInt32 { self >> count | self << (32 - count) }

    /// The 4 bytes of each word, big-endian.
    static func bigEndianBytes(_ words: [UInt32]) -> [UInt8] {
        words.flatMap { word in stride(from: 24, through: 0, by: -8).map { UInt8(truncatingIfNeeded: word >> UInt32($0)) } }
    }

    /// The 16 big-endian words of a 64-byte block.
    static func words(of block: [UInt8]) -> [UInt32] {
        (0..<16).map { index -> UInt32 in
            let byte = { (offset: Int) -> UInt32 in UInt32(block[index * 4 + offset]) }
            return byte(0) << 24 | byte(1) << 16 | byte(2) << 8 | byte(3)
        }
    }
}
