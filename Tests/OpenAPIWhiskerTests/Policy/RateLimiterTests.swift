import HTTPTypes
@testable import OpenAPIWhiskerPolicies
import Testing
import WhiskerCore

/// The token bucket of a ``RateLimit``: bursts, refill, keys (IPv4, IPv6 /64, principal), the
/// fields it answers with, a table that never holds more than `maxTrackedClients` buckets, and
/// tasks racing for one bucket. Time is driven through `now`, never slept. The table's memory is
/// measured in RateLimiterMemoryTests.
@Suite struct RateLimiterTests {
    let start = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .seconds(seconds) }

    static func address(_ host: String) -> SocketAddress { try! SocketAddress(host: host, port: 443) }

    static func key(_ host: String, principal: String? = nil, by: RateLimit.Key = .client) -> RateLimiter.Key {
        RateLimiter.key(client: address(host), principal: principal, by: by)
    }

    @Test func aBurstOfRequestsIsAllowedThenRefused() {
        let limiter = RateLimiter(RateLimit(3, per: .seconds(60)), name: "op")
        let client = Self.key("192.0.2.1")
        // One token back every 20 s: `reset` says so after each request.
        #expect(limiter.take(client, now: at(0)) == .init(allowed: true, remaining: 2, reset: 20, retryAfter: nil))
        #expect(limiter.take(client, now: at(0)) == .init(allowed: true, remaining: 1, reset: 20, retryAfter: nil))
        #expect(limiter.take(client, now: at(0)) == .init(allowed: true, remaining: 0, reset: 20, retryAfter: nil))
        #expect(limiter.take(client, now: at(0)) == .init(allowed: false, remaining: 0, reset: 20, retryAfter: 20))
        #expect(limiter.take(client, now: at(5)) == .init(allowed: false, remaining: 0, reset: 15, retryAfter: 15))
    }

    @Test func theBucketRefillsContinuously() {
        let limiter = RateLimiter(RateLimit(3, per: .seconds(60)), name: "op")
        let client = Self.key("192.0.2.1")
        for _ in 0..<3 { #expect(limiter.take(client, now: at(0)).allowed) }
        // Half a second short of a token: refused, and told 1 s (rounded up).
        #expect(limiter.take(client, now: at(19.5)) == .init(allowed: false, remaining: 0, reset: 1, retryAfter: 1))
        #expect(limiter.take(client, now: at(20)) == .init(allowed: true, remaining: 0, reset: 20, retryAfter: nil))
        #expect(limiter.take(client, now: at(20)).allowed == false)
        // 30 s later one token is back and half of the next: remaining 0 after taking it, the
        // next one in 10 s.
        #expect(limiter.take(client, now: at(50)) == .init(allowed: true, remaining: 0, reset: 10, retryAfter: nil))
        // A long idle time fills the bucket, and no more than full.
        #expect(limiter.take(client, now: at(3600)) == .init(allowed: true, remaining: 2, reset: 20, retryAfter: nil))
        #expect(limiter.take(client, now: at(3600)).remaining == 1)
        #expect(limiter.take(client, now: at(3600)).remaining == 0)
        #expect(limiter.take(client, now: at(3600)).allowed == false)
    }

    @Test func clientsHaveTheirOwnBuckets() {
        let limiter = RateLimiter(RateLimit(2, per: .seconds(10)), name: "op")
        let first = Self.key("192.0.2.1"), second = Self.key("192.0.2.2")
        #expect(first != second)
        #expect(limiter.take(first, now: at(0)).allowed)
        #expect(limiter.take(first, now: at(0)).allowed)
        #expect(limiter.take(first, now: at(0)).allowed == false)
        #expect(limiter.take(second, now: at(0)) == .init(allowed: true, remaining: 1, reset: 5, retryAfter: nil))
        #expect(limiter.trackedClients == 2)
    }

    @Test func ipv6ClientsShareABucketPerSlash64() {
        #expect(Self.key("2001:db8:1:2::1") == .ipv6(0x2001_0DB8_0001_0002))
        #expect(Self.key("2001:db8:1:2::1") == Self.key("2001:db8:1:2:ffff:ffff:ffff:fffe"))
        #expect(Self.key("2001:db8:1:2::1") != Self.key("2001:db8:1:3::1"))
        let limiter = RateLimiter(RateLimit(1, per: .seconds(60)), name: "op")
        #expect(limiter.take(Self.key("2001:db8:1:2::1"), now: at(0)).allowed)
        #expect(limiter.take(Self.key("2001:db8:1:2:abcd::7"), now: at(0)).allowed == false)
        #expect(limiter.take(Self.key("2001:db8:1:3::1"), now: at(0)).allowed)
    }

    @Test func addressKeysAreCompact() {
        #expect(Self.key("192.0.2.1") == .ipv4(0xC000_0201))
        // An IPv4 client on a dual-stack socket is its IPv4 address, not the /64 ::/64.
        #expect(Self.key("::ffff:192.0.2.1") == .ipv4(0xC000_0201))
        #expect(Self.key("::ffff:192.0.2.1") != Self.key("::ffff:192.0.2.2"))
        let unix = RateLimiter.key(client: try! SocketAddress(unixPath: "/run/cats.sock"), principal: nil, by: .client)
        #expect(unix == .unixSocket)
    }

    @Test func principalsHaveTheirBucketsAndFallBackToTheClient() {
        #expect(Self.key("192.0.2.1", principal: "alice", by: .principal) == .principal("alice"))
        #expect(Self.key("192.0.2.1", principal: nil, by: .principal) == .ipv4(0xC000_0201))
        // Limited by client, the principal does not matter.
        #expect(Self.key("192.0.2.1", principal: "alice", by: .client) == .ipv4(0xC000_0201))
        let limiter = RateLimiter(RateLimit(1, per: .seconds(60), by: .principal), name: "op")
        let alice = Self.key("192.0.2.1", principal: "alice", by: .principal)
        let aliceElsewhere = Self.key("198.51.100.7", principal: "alice", by: .principal)
        let bob = Self.key("192.0.2.1", principal: "bob", by: .principal)
        let anonymous = Self.key("192.0.2.1", by: .principal)
        #expect(limiter.take(alice, now: at(0)).allowed)
        #expect(limiter.take(aliceElsewhere, now: at(0)).allowed == false)
        #expect(limiter.take(bob, now: at(0)).allowed)
        #expect(limiter.take(anonymous, now: at(0)).allowed)
        #expect(limiter.take(anonymous, now: at(0)).allowed == false)
    }

    @Test func fieldsOfAnAllowedAndARefusedRequest() {
        let limiter = RateLimiter(RateLimit(10, per: .seconds(60)), name: "getReport")
        let client = Self.key("192.0.2.1")
        let allowed = limiter.fields(for: limiter.take(client, now: at(0)))
        #expect(allowed[HTTPField.Name("RateLimit-Policy")!] == #""getReport";q=10;w=60"#)
        #expect(allowed[HTTPField.Name("RateLimit")!] == #""getReport";r=9;t=6"#)
        #expect(allowed[.retryAfter] == nil)
        #expect(allowed.count == 2)
        for _ in 0..<9 { _ = limiter.take(client, now: at(0)) }
        let refused = limiter.fields(for: limiter.take(client, now: at(1)))
        #expect(refused[HTTPField.Name("RateLimit-Policy")!] == #""getReport";q=10;w=60"#)
        #expect(refused[HTTPField.Name("RateLimit")!] == #""getReport";r=0;t=5"#)
        #expect(refused[.retryAfter] == "5")
        #expect(refused.count == 3)
    }

    @Test func theWindowIsWholeSecondsAndTheNameAString() {
        let limiter = RateLimiter(RateLimit(5, per: .milliseconds(1500)), name: #"a"b\c é"#)
        let fields = limiter.fields(for: limiter.take(Self.key("192.0.2.1"), now: at(0)))
        #expect(fields[HTTPField.Name("RateLimit-Policy")!] == #""a\"b\\c ?";q=5;w=2"#)
        // 300 ms a token: under a second, rounded up to 1.
        #expect(fields[HTTPField.Name("RateLimit")!] == #""a\"b\\c ?";r=4;t=1"#)
    }

    @Test func aForgottenClientComesBackWithAFullBucket() {
        let limiter = RateLimiter(RateLimit(1, per: .seconds(60), maxTrackedClients: 1), name: "op")
        let first = Self.key("192.0.2.1"), second = Self.key("192.0.2.2")
        #expect(limiter.take(first, now: at(0)).allowed)
        #expect(limiter.take(first, now: at(0)).allowed == false)
        #expect(limiter.take(second, now: at(0)).allowed)
        #expect(limiter.trackedClients == 1)
        // The trade-off of a bounded table: `first` was forgotten, drained as it was.
        #expect(limiter.take(first, now: at(0)).allowed)
    }

    @Test func theTableHoldsAtMostMaxTrackedClients() {
        let limiter = RateLimiter(RateLimit(1, per: .seconds(60), maxTrackedClients: 100), name: "op")
        for client in 0..<1000 {
            #expect(limiter.take(.ipv4(UInt32(client)), now: at(0)).allowed)
            #expect(limiter.trackedClients <= 100)
        }
        // 1000 keys over 16 shards of 6 or 7: every shard filled.
        #expect(limiter.trackedClients == 100)
        // The most recent keys are still there, drained.
        #expect(limiter.take(.ipv4(999), now: at(0)).allowed == false)
    }

    /// Issue 38: with first-in-first-out eviction, 100,000 new keys (spoofed addresses, say)
    /// pushed a limited client's bucket out, and it was admitted again. The flood's own buckets
    /// (one token used each) go first; every one of the new clients is still admitted.
    @Test(arguments: [65_536, 1_000])
    func aLimitedClient_StaysLimited_After100000OtherKeys(maxTrackedClients: Int) {
        let limiter = RateLimiter(RateLimit(20, per: .seconds(60), maxTrackedClients: maxTrackedClients), name: "adoptCat")
        let victim = Self.key("192.0.2.1"), drained = Self.key("192.0.2.2")
        for _ in 0..<20 {
            #expect(limiter.take(victim, now: at(0)).allowed)
            #expect(limiter.take(drained, now: at(0)).allowed)
        }
        #expect(limiter.take(victim, now: at(0)).allowed == false, "limited")
        var admitted = 0
        for client in 0..<100_000 {
            if limiter.take(.ipv4(0x0A00_0000 + UInt32(client)), now: at(1 + Double(client) / 100_000)).allowed { admitted += 1 }
        }
        #expect(admitted == 100_000, "every new client is admitted")
        #expect(limiter.trackedClients <= maxTrackedClients, "memory stays bounded")
        #expect(limiter.take(victim, now: at(2)).allowed == false, "the limited client is still limited")
        #expect(limiter.take(drained, now: at(2)).allowed == false, "so is one that drained its bucket without being refused")
        // Its bucket refills as time says, no sooner: one token after 3 s of the window.
        #expect(limiter.take(victim, now: at(3)).allowed)
    }

    /// Buckets that refilled are the first forgotten: nothing is lost by forgetting them.
    @Test func refilledBuckets_AreForgottenFirst() {
        let limiter = RateLimiter(RateLimit(2, per: .seconds(10), maxTrackedClients: 1), name: "op")
        let old = Self.key("192.0.2.1"), new = Self.key("192.0.2.2")
        #expect(limiter.take(old, now: at(0)).allowed)
        #expect(limiter.take(old, now: at(0)).allowed)
        #expect(limiter.take(old, now: at(0)).allowed == false)
        // 10 s later `old` is full again: `new` takes its place.
        #expect(limiter.take(new, now: at(10)).allowed)
        #expect(limiter.trackedClients == 1)
    }

    @Test func tasksRacingForOneBucketGetNoMoreThanTheQuota() async {
        let limiter = RateLimiter(RateLimit(50, per: .seconds(3600)), name: "op")
        let client = Self.key("192.0.2.1"), now = at(0)
        let allowed = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<32 {
                group.addTask { (0..<100).reduce(0) { count, _ in count + (limiter.take(client, now: now).allowed ? 1 : 0) } }
            }
            return await group.reduce(0, +)
        }
        #expect(allowed == 50)
    }
}
