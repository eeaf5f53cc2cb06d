import CZstd
import Testing
@testable import WhiskerCompression

/// The contexts `ZstdCompressor.encodeWhole` reuses: each body as a new context codes it, small
/// contexts kept, grown ones and those past the capacity freed.
@Suite struct ZstdContextPoolTests {
    private static let body = Array(String(repeating: "🐱 cat ", count: 40).utf8)

    @Test func aKeptContext_CodesTheNextBody_AsANewOneWould() throws {
        let pool = ZstdContextPool(capacity: 2, maxContextBytes: 256 * 1024)
        let fresh = ZstdContextPool(capacity: 0, maxContextBytes: 0)
        // First at level 19, then at 3 with the same context: the level and the frame are the
        // second call's own.
        let strong = try #require(ZstdCompressor.encodeWhole(Self.body[...], level: 19, pool: pool))
        #expect(pool.count == 1)
        let reused = try #require(ZstdCompressor.encodeWhole(Self.body[...], level: 3, pool: pool))
        #expect(pool.count == 1)
        #expect(fresh.count == 0)
        #expect(reused == ZstdCompressor.encodeWhole(Self.body[...], level: 3, pool: fresh))
        #expect(strong == ZstdCompressor.encodeWhole(Self.body[...], level: 19, pool: fresh))
        #expect(try ContentCoding.zstd.decode(reused) == Self.body)
        #expect(fresh.count == 0)
    }

    @Test func theSameContext_IsTakenAgain() throws {
        let pool = ZstdContextPool(capacity: 2, maxContextBytes: 256 * 1024)
        let first = try #require(pool.take())
        pool.giveBack(first)
        let second = try #require(pool.take())
        #expect(first == second)
        pool.giveBack(second)
    }

    @Test func aSmallBodysContext_IsSmall_AndAGrownOne_IsFreed() throws {
        let pool = ZstdContextPool(capacity: 2, maxContextBytes: 256 * 1024)
        _ = try #require(ZstdCompressor.encodeWhole(Self.body[...], level: 3, pool: pool))
        let kept = try #require(pool.take())
        #expect(ZSTD_sizeof_CCtx(kept) <= 48 * 1024, "a \(Self.body.count)-byte body's context holds \(ZSTD_sizeof_CCtx(kept)) bytes")
        pool.giveBack(kept)
        // 512 KiB that do not repeat within a small window: level 3 sizes its tables and window to it.
        var state: UInt64 = 42
        let large = (0..<(512 << 10)).map { _ -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 59) + 65
        }
        let grown = try #require(pool.take())
        pool.giveBack(grown)
        #expect(pool.count == 1)
        let coded = try #require(ZstdCompressor.encodeWhole(large[...], level: 3, pool: pool))
        #expect(Self.decodedWhole(coded, length: large.count) == large)
        #expect(pool.count == 0, "the context that coded 512 KiB is freed, not kept")
    }

    @Test func contextsPastTheCapacity_AreFreed() throws {
        let pool = ZstdContextPool(capacity: 2, maxContextBytes: 256 * 1024)
        let contexts = try (0..<3).map { _ in try #require(pool.take()) }
        for context in contexts { pool.giveBack(context) }
        #expect(pool.count == 2)
    }

    /// `coded` decoded in one call (`ZSTD_decompress`), `nil` on an error.
    private static func decodedWhole(_ coded: [UInt8], length: Int) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: length)
        let size = output.withUnsafeMutableBufferPointer { out in
            coded.withUnsafeBufferPointer { input in ZSTD_decompress(out.baseAddress, out.count, input.baseAddress, input.count) }
        }
        return ZSTD_isError(size) == 0 ? Array(output[..<size]) : nil
    }
}
