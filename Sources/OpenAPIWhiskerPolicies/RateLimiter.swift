import HTTPTypes
import Synchronization
import WhiskerSockets

/// The buckets of one operation's ``RateLimit``, and the fields that tell a client about them.
///
/// The in-memory ``RateLimitStore``, the default: each bucket a GCRA cell (``RateLimitPolicy``
/// says the algorithm), its TAT in integer nanoseconds since the limiter was made. A bucket is a
/// TAT and whether its client was refused since it was last full; one that has refilled (`TAT ≤
/// now`) says nothing more than a new one.
///
/// The table is bounded: 16 shards (fewer when ``RateLimit/maxTrackedClients`` is smaller), each
/// behind its own `Mutex` with a dictionary of buckets and a ring of its keys in the order they
/// came. A full shard forgets one key to make room, chosen among the ``evictionSample`` oldest:
/// a refilled one at once, else the one with the most tokens left, a refused (limited) client's
/// counting a whole window fuller, so that it is forgotten last. A flood of new keys thus forgets
/// the flood's own buckets (one token used each), never a limited client's: forgetting that one
/// would hand it a full bucket (issue 38: 100,000 spoofed addresses freed a client at 429 under
/// first-in-first-out eviction). The work stays constant (at most `evictionSample` lookups) and the
/// shards' capacities add up to `maxTrackedClients` exactly. What forgetting costs is said at
/// ``RateLimit/maxTrackedClients``; as a key's shard comes from its hash, one shard may fill a
/// little before the whole table would (100,000 clients in a table of 100,000: some 99,500 kept).
final class RateLimiter: Sendable {
    /// Whose requests share a bucket, compact: no string for an address.
    enum Key: Hashable, Sendable {
        /// An IPv4 client, its 32 bits (an IPv4-mapped IPv6 address, `::ffff:192.0.2.1`, too).
        case ipv4(UInt32)
        /// An IPv6 client, its /64 prefix.
        case ipv6(UInt64)
        /// Any client over a Unix domain socket: they are all the same host.
        case unixSocket
        /// An authenticated principal's name.
        case principal(String)
    }

    typealias Decision = RateLimitDecision

    let limit: RateLimit
    /// The time one token takes to come back, in nanoseconds: window / requests, at least 1.
    private let interval: Int64
    /// A full bucket as time: interval × requests (the window, to the nanosecond).
    private let tolerance: Int64
    /// The instant TATs count from.
    private let epoch: ContinuousClock.Instant
    private let shards: [Shard]
    /// The name, the quota and the fields.
    let policy: RateLimitPolicy

    /// Makes the buckets for `limit`, all full.
    /// - Parameters:
    ///   - limit: The quota, the window, the key and the most buckets kept.
    ///   - name: The policy's name in the fields: the operation's `operationId`.
    init(_ limit: RateLimit, name: String) {
        self.limit = limit
        interval = RateLimitPolicy.interval(RateLimitPolicy.nanoseconds(limit.window), requests: limit.requests)
        tolerance = interval * Int64(limit.requests)
        epoch = .now
        let count = min(16, limit.maxTrackedClients)
        shards = (0..<count).map { index in
            // maxTrackedClients split as evenly as it goes; the capacities add up to it exactly.
            Shard(capacity: limit.maxTrackedClients / count + (index < limit.maxTrackedClients % count ? 1 : 0))
        }
        policy = RateLimitPolicy(limit, name: name)
    }

    /// The bucket a request goes to: the principal's name when the limit is by principal and the
    /// request has one, else the client's address (an IPv6 one by its /64 prefix); without an
    /// address (outside a server's request), the one bucket of Unix domain socket clients.
    static func key(client: SocketAddress?, principal: String?, by: RateLimit.Key) -> Key {
        if by == .principal, let principal { return .principal(principal) }
        guard let client else { return .unixSocket }
        if let address = client.ipv4Value { return .ipv4(address) }
        if let address = client.ipv6Value {
            // ::ffff:a.b.c.d is an IPv4 client on a dual-stack socket; its /64 is everyone's.
            if address.high == 0, address.low >> 32 == 0xFFFF { return .ipv4(UInt32(truncatingIfNeeded: address.low)) }
            return .ipv6(address.high)
        }
        return .unixSocket
    }

    /// Refills `key`'s bucket for the time since it was last used, then takes one token from it
    /// if there is one.
    func take(_ key: Key, now: ContinuousClock.Instant = .now) -> Decision {
        let now = RateLimitPolicy.nanoseconds(now - epoch)
        let shard = shards.count == 1 ? shards[0] : shards[Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))]
        let interval = interval, tolerance = tolerance
        return shard.buckets.withLock { buckets in
            let index = buckets.arrivals.index(forKey: key)
            let previous = index.map { buckets.arrivals.values[$0] }
            let next = max(previous?.arrival ?? now, now) + interval
            let ahead = next - now
            guard ahead <= tolerance else {
                // Refused: the bucket is kept in preference to others (see `Buckets.insert`).
                if let index { buckets.arrivals.values[index].refused = true }
                return RateLimitPolicy.decision(allowed: false, ahead: ahead, interval: interval, tolerance: tolerance)
            }
            if let index, let previous {
                // A bucket that had refilled forgets that its client was refused before.
                buckets.arrivals.values[index] = Bucket(arrival: next, refused: previous.refused && previous.arrival > now)
            } else {
                buckets.insert(key, next, now: now, keepLimitedFor: tolerance)
            }
            return RateLimitPolicy.decision(allowed: true, ahead: ahead, interval: interval, tolerance: tolerance)
        }
    }

    /// The buckets kept now: at most ``RateLimit/maxTrackedClients``.
    var trackedClients: Int {
        shards.reduce(0) { total, shard in total + shard.buckets.withLock { $0.arrivals.count } }
    }

    /// `RateLimit-Policy` and `RateLimit` (and `Retry-After` when refused) for a decision.
    func fields(for decision: Decision) -> HTTPFields { policy.fields(for: decision) }
}

/// The in-memory store: the limiter of one policy, which counts in this process.
extension RateLimiter: RateLimitStore {
    func take(_ key: RateLimitKey, policy: RateLimitPolicy) async throws -> RateLimitDecision { take(key.storage) }
}

extension RateLimiter {
    /// One shard of the table, behind its own lock.
    private final class Shard: Sendable {
        let buckets: Mutex<Buckets>

        init(capacity: Int) { buckets = Mutex(Buckets(capacity: capacity)) }
    }

    /// One client's bucket: its TAT, and whether it was refused since the bucket was last full.
    struct Bucket {
        var arrival: Int64
        var refused = false
    }

    /// How many of a full shard's oldest keys are looked at to choose the one to forget.
    static let evictionSample = 8

    /// A shard's buckets, and its keys in the order they came: a ring once the shard is full.
    private struct Buckets {
        let capacity: Int
        var arrivals: [Key: Bucket] = [:]
        /// Every key of `arrivals`, the oldest at `oldest` (0 until the shard is full).
        var order: [Key] = []
        var oldest = 0

        init(capacity: Int) { self.capacity = capacity }

        /// Adds a key that is not there. A full shard first forgets, of its
        /// ``RateLimiter/evictionSample`` oldest keys, a refilled bucket (`TAT ≤ now`: nothing is
        /// lost), else the one with the earliest TAT (the most tokens left), a refused client's TAT
        /// counted `keepLimitedFor` (a window) later: a limited client outlives a flood of new ones.
        mutating func insert(_ key: Key, _ arrival: Int64, now: Int64, keepLimitedFor: Int64) {
            if arrivals.count == capacity {
                var victim = oldest
                var position = oldest
                var lowest = Int64.max
                for _ in 0..<min(RateLimiter.evictionSample, capacity) {
                    let bucket = arrivals[order[position]]!
                    if bucket.arrival <= now {
                        victim = position
                        break
                    }
                    let score = bucket.arrival + (bucket.refused ? keepLimitedFor : 0)
                    if score < lowest {
                        lowest = score
                        victim = position
                    }
                    position = position + 1 == capacity ? 0 : position + 1
                }
                // The oldest key takes the forgotten one's place, and the new key the oldest's,
                // which becomes the newest as `oldest` moves on.
                arrivals.removeValue(forKey: order[victim])
                order[victim] = order[oldest]
                order[oldest] = key
                oldest = oldest + 1 == capacity ? 0 : oldest + 1
            } else {
                // Grown by doubling, but never past the shard's capacity.
                if order.count == order.capacity { order.reserveCapacity(min(capacity, max(16, order.count * 2))) }
                order.append(key)
            }
            arrivals[key] = Bucket(arrival: arrival)
        }
    }
}
