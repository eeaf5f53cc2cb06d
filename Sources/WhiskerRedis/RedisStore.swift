public import CoreMetrics
public import Logging
public import OpenAPIWhiskerPolicies
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Rate limits and idempotency records that instances behind a load balancer share, in Redis
/// (through libhiredis): three instances with `RateLimit(20, per: .seconds(60), store: shared)`
/// admit 20 a minute per client in all, not 60, and with `IdempotencyKeys(.required, store:
/// shared)` a retry that reaches another instance gets the first answer.
///
///     let shared = try RedisStore(url: "redis://10.0.0.5:6379", logger: logger)
///     let transport = try WhiskerTransport(server, validatingAgainst: .embedded, policies: [
///         "adoptCat": OperationPolicy(rateLimit: RateLimit(20, per: .seconds(60), store: shared)),
///     ])
///
/// Each request is one round trip: `EVALSHA` of a short Lua script that reads the bucket's TAT,
/// takes a token by the GCRA (``/OpenAPIWhiskerPolicies/RateLimitPolicy``) and writes the TAT back, atomically, with
/// Redis' own clock (`TIME`), so that the instances' clocks need not agree. The key
/// (`whisker:rl:adoptCat:4:192.0.2.7`) expires when its bucket is full again: Redis holds one
/// short string per client that was limited within the last window, and nothing else.
///
/// Commands go through a pool of ``Configuration/connections`` connections, each bounded by
/// ``Configuration/connectTimeout`` and ``Configuration/commandTimeout``. When Redis cannot answer
/// (down, unreachable, too slow) the store throws, and the limit's
/// ``/OpenAPIWhiskerPolicies/RateLimit/whenStoreFails`` decides: the request goes on unlimited (`.allow`, the default) or
/// is refused with 503 (`.refuse`). The store logs a warning when Redis becomes unavailable and a
/// notice when it is back, counts each failure in `whisker.store.failures` (dimensions `store`,
/// `reason`: `connect`, `io`, `timeout`, `unavailable`, `reply`) and says whether Redis answers
/// in the gauge `whisker.store.up` (1 or 0). After a failed connection a pool connection fails at
/// once for ``Configuration/retryInterval``, then tries again: recovery is automatic.
///
/// Making one ignores `SIGPIPE` in the process: hiredis writes with `write(2)`, which raises it
/// when Redis has closed the connection, and its default action would end the server.
public final class RedisStore: RateLimitStore, IdempotencyStore {
    /// The configuration the store was made with.
    public let configuration: Configuration
    private let pool: [RedisConnection]
    private let next = Atomic<Int>(0)
    private let up = Atomic<Bool>(true)
    private let logger: Logger
    private let metrics: (any MetricsFactory)?
    private let upGauge: Gauge

    /// A store for the Redis server of `configuration`. It connects on first use, not here.
    /// - Parameters:
    ///   - configuration: Where Redis is, the pool's size, the timeouts and the keys' prefix.
    ///   - logger: Where Redis becoming unavailable and back is logged.
    ///   - metrics: Where failures are counted: `nil`, swift-metrics' global `MetricsSystem`.
    public init(_ configuration: Configuration, logger: Logger = Logger(label: "whisker.redis"), metrics: (any MetricsFactory)? = nil) {
        signal(SIGPIPE, SIG_IGN)
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        pool = (0..<configuration.connections).map { RedisConnection(configuration, index: $0) }
        upGauge = metrics.map { Gauge(label: "whisker.store.up", dimensions: [("store", "redis")], factory: $0) }
            ?? Gauge(label: "whisker.store.up", dimensions: [("store", "redis")])
        upGauge.record(1)
    }

    /// A store for the Redis server at `url`: `redis://[[user]:password@]host[:port][/database]`
    /// (port 6379 and database 0 by default) or `unix:///path/to/redis.sock`.
    /// - Parameters:
    ///   - url: The server's URL; the other settings are ``Configuration``'s defaults.
    ///   - logger: Where Redis becoming unavailable and back is logged.
    ///   - metrics: Where failures are counted: `nil`, swift-metrics' global `MetricsSystem`.
    /// - Throws: ``Configuration/URLError`` naming what is wrong with `url`.
    public convenience init(url: String, logger: Logger = Logger(label: "whisker.redis"), metrics: (any MetricsFactory)? = nil) throws {
        self.init(try Configuration(url: url), logger: logger, metrics: metrics)
    }

    /// Takes a token from `key`'s bucket of `policy` in one atomic script run.
    public func take(_ key: RateLimitKey, policy: RateLimitPolicy) async throws -> RateLimitDecision {
        let (seconds, attoseconds) = policy.window.components
        let window = max(1, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        let interval = max(1, window / Int64(policy.requests))
        let redisKey = configuration.keyPrefix + "rl:" + policy.name + ":" + key.description
        let reply = try await run(Self.tokenBucket, keys: [redisKey], arguments: [String(interval), String(interval * Int64(policy.requests))].map { Array($0.utf8) })
        guard case .array(let values) = reply, values.count == 2, case .integer(let allowed) = values[0], case .integer(let emptiness) = values[1] else {
            throw counted(RedisError.unexpectedReply("\(reply)"))
        }
        return policy.decision(allowed: allowed == 1, emptiness: .microseconds(emptiness))
    }

    /// Runs `script` on the next connection of the pool, saying when Redis becomes unavailable
    /// and when it is back.
    func run(_ script: String, keys: [String], arguments: [[UInt8]]) async throws -> RedisReply {
        let connection = pool[Int(UInt(bitPattern: next.wrappingAdd(1, ordering: .relaxed).oldValue) % UInt(pool.count))]
        do {
            let reply = try await connection.evaluate(script, keys: keys, arguments: arguments)
            if !up.exchange(true, ordering: .relaxed) {
                upGauge.record(1)
                logger.notice("Redis store reachable again", metadata: ["redis": "\(configuration.address)"])
            }
            return reply
        } catch let error as RedisError {
            throw counted(error)
        }
    }

    func counted(_ error: RedisError) -> RedisError {
        let dimensions = [("store", "redis"), ("reason", error.reason)]
        (metrics.map { Counter(label: "whisker.store.failures", dimensions: dimensions, factory: $0) }
            ?? Counter(label: "whisker.store.failures", dimensions: dimensions)).increment()
        if up.exchange(false, ordering: .relaxed) {
            upGauge.record(0)
            logger.warning("Redis store unavailable", metadata: ["redis": "\(configuration.address)", "error": "\(error)"])
        }
        return error
    }

    /// The token bucket (GCRA) in one step, in microseconds of Redis' clock. ARGV: the interval
    /// (a token's time) and the tolerance (a full bucket's); it returns whether the request is
    /// allowed and the bucket's emptiness after it (`next − now`), and stores the new TAT with an
    /// expiry at the instant the bucket is full again.
    static let tokenBucket = """
        local time = redis.call('TIME')
        local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
        local interval = tonumber(ARGV[1])
        local tolerance = tonumber(ARGV[2])
        local tat = tonumber(redis.call('GET', KEYS[1])) or now
        if tat < now then tat = now end
        local ahead = tat + interval - now
        if ahead > tolerance then return {0, ahead} end
        redis.call('SET', KEYS[1], string.format('%d', now + ahead), 'PX', math.ceil(ahead / 1000))
        return {1, ahead}
        """
}
