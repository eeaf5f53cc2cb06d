/// The fuzzer's bytes, read from the front: a few control bytes (split points, sizes, choices)
/// and then the payload. Reading past the end yields zeros, so every input is usable.
public struct FuzzInput {
    public let bytes: UnsafeBufferPointer<UInt8>
    public private(set) var offset = 0

    public init(_ start: UnsafeRawPointer, _ count: Int) {
        bytes = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count)
    }

    public var remaining: Int { bytes.count - offset }
    public var isEmpty: Bool { offset >= bytes.count }

    /// One byte, or 0 at the end.
    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A little-endian 16-bit value.
    public mutating func uint16() -> UInt16 {
        UInt16(byte()) | UInt16(byte()) << 8
    }

    /// A little-endian 32-bit value.
    public mutating func uint32() -> UInt32 {
        UInt32(uint16()) | UInt32(uint16()) << 16
    }

    /// A little-endian 64-bit value.
    public mutating func uint64() -> UInt64 {
        UInt64(uint32()) | UInt64(uint32()) << 32
    }

    /// Up to `count` bytes (fewer at the end).
    public mutating func take(_ count: Int) -> UnsafeBufferPointer<UInt8> {
        let count = max(0, min(count, remaining))
        defer { offset += count }
        return UnsafeBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }

    /// Everything not read yet.
    public mutating func rest() -> UnsafeBufferPointer<UInt8> { take(remaining) }
}

/// Stops the process with a message that libFuzzer reports as a crash, with the input saved:
/// for invariants the code under test broke (not for errors it threw, which are expected).
public func fuzzFailure(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("fuzz invariant broken: \(message())", file: file, line: line)
}

/// A small deterministic generator (xorshift64*), seeded from the input, for the choices a target
/// makes many times (how to answer each stream, where to cut the next piece): the same input
/// always makes the same choices, so every finding reproduces.
public struct FuzzRandom {
    private var state: UInt64

    public init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    public mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    /// A value in `0..<bound` (0 when `bound` is 0).
    public mutating func below(_ bound: Int) -> Int {
        bound <= 0 ? 0 : Int(next() % UInt64(bound))
    }

    /// True with probability `1 / n`.
    public mutating func oneIn(_ n: Int) -> Bool { below(n) == 0 }
}
