/// A token bucket per client (or per principal) for one operation: at most ``requests`` at once,
/// and after that one request every `window / requests`, so ``requests`` per ``window`` over time.
///
///     // 100 requests a minute for each client address, in bursts of up to 100.
///     let perClient = RateLimit(100, per: .seconds(60))
///     // 10 reports an hour for each authenticated principal.
///     let perReader = RateLimit(10, per: .seconds(3600), by: .principal)
///
/// A bucket starts full and refills continuously, not all at once at the end of a window: a
/// client that spent its burst gets a request back every `window / requests`. A refused request
/// is answered 429 with `Retry-After` (the seconds until a request is allowed again); every
/// answer carries `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-11),
/// the policy named after the operation:
///
///     RateLimit-Policy: "getReport";q=10;w=3600
///     RateLimit: "getReport";r=7;t=360
///
/// By default the buckets live in memory, in the server process: each instance of a service
/// behind a load balancer counts on its own. At most ``maxTrackedClients`` buckets are kept,
/// whatever the number of distinct clients; past that one of the oldest is forgotten, a limited
/// client last (see ``maxTrackedClients``). Instances that share a ``store`` count together:
///
///     // 20 adoptions a minute per client, however many instances serve them.
///     let shared = try RedisStore(url: "redis://10.0.0.5:6379")
///     RateLimit(20, per: .seconds(60), store: shared, whenStoreFails: .allow)
public struct RateLimit: Sendable, Equatable {
    /// Whose requests share a bucket.
    public enum Key: Sendable, Equatable {
        /// The client's address (`RequestContext.client`: the connection's peer, or what trusted
        /// reverse proxies say); IPv6 clients share a bucket per /64 prefix, the block one
        /// subscriber usually gets, so that hopping between its addresses gains nothing. An
        /// IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, as a dual-stack listener sees IPv4
        /// clients) counts as the IPv4 address; all Unix domain socket clients share one bucket.
        case client
        /// The authenticated principal's name (`Principal` from the document's security
        /// schemes); requests without one fall back to the client's address.
        case principal
    }

    /// The quota: this many requests per ``window``, and the most a full bucket allows at once.
    public var requests: Int
    /// The time in which a drained bucket fills up again. `RateLimit-Policy` says it in whole
    /// seconds, rounded up.
    public var window: Duration
    /// Whose requests share a bucket.
    public var key: Key
    /// The most buckets kept: 65,536 by default, which take about 6.6 MB once all in use (measured:
    /// some 100 bytes a client). When more distinct clients come, one of the oldest kept is
    /// forgotten, in constant time: a refilled one first, else the one with the most tokens left,
    /// a limited client last, so a flood of new keys cannot free a client at 429.
    ///
    /// The trade-off: a client forgotten while its bucket is drained comes back with a full one.
    /// Counting is exact as long as fewer than this many distinct clients arrive within one
    /// ``window`` (in practice a few percent fewer: the table is split in 16 parts by the keys'
    /// hashes, and one part can fill before the whole does); a client that waited a whole window
    /// has a full bucket anyway, so forgetting it loses nothing. Raise it for a long window or many
    /// clients; memory grows with the buckets in use, never past this many.
    public var maxTrackedClients: Int
    /// Where the buckets live: `nil` (the default) in this process's memory, or a store that
    /// instances share (`RedisStore`), where ``maxTrackedClients`` does not apply (the store keeps
    /// a bucket until it is full again, then forgets it).
    public var store: (any RateLimitStore)?
    /// What a request gets when ``store`` cannot answer: ``StoreFailure/allow`` (the default,
    /// "fail open") or ``StoreFailure/refuse``. Either way the store logs when it becomes
    /// unavailable and when it is back, and the request is logged at `debug`.
    public var whenStoreFails: StoreFailure

    /// A limit of `requests` per `window` for each client address or principal.
    /// - Parameters:
    ///   - requests: The quota per window and the largest burst; at least 1.
    ///   - window: The time in which a drained bucket fills up again; more than zero.
    ///   - key: Whose requests share a bucket: the client's address or the principal.
    ///   - maxTrackedClients: The most buckets kept in memory; at least 1.
    ///   - store: Where the buckets live: `nil`, in memory, or a store instances share.
    ///   - whenStoreFails: What a request gets when the store cannot answer.
    public init(
        _ requests: Int, per window: Duration, by key: Key = .client, maxTrackedClients: Int = 65_536,
        store: (any RateLimitStore)? = nil, whenStoreFails: StoreFailure = .allow
    ) {
        precondition(requests >= 1, "a rate limit allows at least 1 request per window, not \(requests)")
        precondition(window > .zero, "a rate limit's window is longer than zero, not \(window)")
        precondition(maxTrackedClients >= 1, "a rate limit tracks at least 1 client, not \(maxTrackedClients)")
        self.requests = requests
        self.window = window
        self.key = key
        self.maxTrackedClients = maxTrackedClients
        self.store = store
        self.whenStoreFails = whenStoreFails
    }

    /// Whether two limits count alike: the same quota, window, key, table size, failure mode and store (the same object).
    public static func == (lhs: RateLimit, rhs: RateLimit) -> Bool {
        lhs.requests == rhs.requests && lhs.window == rhs.window && lhs.key == rhs.key && lhs.maxTrackedClients == rhs.maxTrackedClients
            && lhs.whenStoreFails == rhs.whenStoreFails && lhs.store.map(ObjectIdentifier.init) == rhs.store.map(ObjectIdentifier.init)
    }
}
