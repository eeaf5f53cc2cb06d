import CWhiskerSystem
@testable import OpenAPIWhiskerPolicies
import Testing
import WhiskerCore

/// The memory of a rate limiter's table, read from the process's heap figures (glibc's
/// mallinfo2), which any test running beside it moves: `make test-lib` runs this suite alone
/// (MEMORY_SUITES), after the others.
@Suite(.serialized) struct RateLimiterMemoryTests {
    #if canImport(Glibc)
    /// Bytes the process has from malloc (glibc's mallinfo2): small chunks (`uordblks`) and large
    /// ones, which glibc maps on their own past its mmap threshold (`hblkhd`; a full shard's
    /// dictionary is one).
    static func heapInUse() -> Int { Int(whisker_heap_in_use()) }

    /// Fills a limiter with `count` distinct IPv4 clients (and as many IPv6 /64s when asked),
    /// through addresses as a request has them, and says the heap it holds.
    static func measure(_ limit: RateLimit, clients count: Int, ipv6: Bool = false) -> (bytes: Int, tracked: Int, ipv4Bytes: Int) {
        let before = heapInUse()
        let limiter = RateLimiter(limit, name: "op")
        let now = ContinuousClock.now
        for client in 0..<count {
            let host = "10.\(client >> 16 & 0xFF).\(client >> 8 & 0xFF).\(client & 0xFF)"
            _ = limiter.take(RateLimiter.key(client: RateLimiterTests.address(host), principal: nil, by: .client), now: now)
        }
        let ipv4Bytes = heapInUse() - before
        if ipv6 {
            for client in 0..<count {
                let host = "2001:db8:\(String(client >> 16, radix: 16)):\(String(client & 0xFFFF, radix: 16))::1"
                _ = limiter.take(RateLimiter.key(client: RateLimiterTests.address(host), principal: nil, by: .client), now: now)
            }
        }
        let bytes = heapInUse() - before
        return withExtendedLifetime(limiter) { (bytes, limiter.trackedClients, ipv4Bytes) }
    }

    @Test func memoryIsBoundedWhateverTheNumberOfClients() {
        let bounded = Self.measure(RateLimit(10, per: .seconds(60)), clients: 100_000, ipv6: true)
        print("rate limiter: \(bounded.ipv4Bytes) bytes for 100,000 clients (maxTrackedClients 65,536)")
        print("rate limiter: \(bounded.bytes) bytes for 100,000 IPv4 clients then 100,000 IPv6 /64s (maxTrackedClients 65,536)")
        #expect(bounded.tracked <= 65_536)
        #expect(bounded.tracked == 65_536)
        // Measured 6,629,808 bytes (101 a bucket: a dictionary entry, its TAT and refused flag, and
        // a place in the ring); twice that is the bound.
        #expect(bounded.ipv4Bytes < 2 * 6_629_808)
        // 100,000 more clients past the bound cost nothing more.
        #expect(bounded.bytes < bounded.ipv4Bytes + bounded.ipv4Bytes / 10)

        let all = Self.measure(RateLimit(10, per: .seconds(60), maxTrackedClients: 100_000), clients: 100_000)
        print("rate limiter: \(all.bytes) bytes for 100,000 clients (maxTrackedClients 100,000)")
        // Not quite all 100,000 kept: the keys' hashes spread them over 16 shards of 6,250 a
        // little unevenly, and a shard that fills forgets its oldest before the table is full.
        #expect(all.tracked <= 100_000)
        #expect(all.tracked > 98_000)
        // Measured 10,578,992 bytes (a shard's dictionary of 6,250 is just past a doubling).
        #expect(all.bytes < 2 * 10_578_992)
    }
    #endif
}
