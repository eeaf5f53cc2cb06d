public import HTTPTypes

/// Where the buckets of a ``RateLimit`` live: by default in the server's memory (each instance
/// counts on its own), or in a store that instances behind a load balancer share, so that three
/// of them allow the limit once, not three times (`RedisStore`, with the package's `Redis` trait).
///
///     let shared = try RedisStore(url: "redis://10.0.0.5:6379")
///     "adoptCat": OperationPolicy(rateLimit: RateLimit(20, per: .seconds(60), store: shared)),
///
/// A store is a reference (a pool of connections, a table): one can serve many limits, as each
/// call names its ``RateLimitPolicy``. Its one operation takes a token from a bucket, atomically
/// across everyone who shares the store. The bucket is a GCRA cell (see ``RateLimitPolicy``): the
/// instant at which it would be full again, one number per key. A store that cannot answer
/// (unreachable, too slow) throws; the limit's ``RateLimit/whenStoreFails`` says what the request
/// gets then.
public protocol RateLimitStore: AnyObject, Sendable {
    /// Refills `key`'s bucket of `policy` for the time since it was last used, then takes one
    /// token from it if there is one.
    /// - Returns: Whether the request is allowed, and what `RateLimit` and `Retry-After` say.
    /// - Throws: When the store cannot answer; the limit then fails open or closed.
    func take(_ key: RateLimitKey, policy: RateLimitPolicy) async throws -> RateLimitDecision
}

/// Whose requests share a bucket: a client address (an IPv6 one by its /64 prefix), all Unix
/// domain socket clients, or an authenticated principal.
public struct RateLimitKey: Hashable, Sendable, CustomStringConvertible {
    let storage: RateLimiter.Key

    init(_ storage: RateLimiter.Key) { self.storage = storage }

    /// The key as text, for a store's own keys: `4:192.0.2.7`, `6:20010db800010002` (an IPv6
    /// /64 prefix in hexadecimal), `unix`, or `p:` and the principal's name.
    public var description: String {
        switch storage {
        case .ipv4(let address):
            "4:\(address >> 24).\(address >> 16 & 0xFF).\(address >> 8 & 0xFF).\(address & 0xFF)"
        case .ipv6(let prefix):
            "6:" + String(prefix, radix: 16)
        case .unixSocket:
            "unix"
        case .principal(let name):
            "p:" + name
        }
    }
}

/// One limit as a store sees it: its name, its quota and window, and the fields it answers with.
///
/// A bucket is a GCRA ("generic cell rate algorithm") cell: the one number it keeps is the
/// theoretical arrival time (TAT), the instant at which the bucket would be full again. A request
/// at `now` is allowed when one more token would not push the TAT more than a window ahead:
///
///     next    = max(TAT, now) + interval      (interval = window / requests)
///     allowed = next − now ≤ window           (then TAT = next)
///
/// `next − now`, the bucket's emptiness as time, is all ``decision(allowed:emptiness:)`` needs: a
/// store computes it (in one atomic step, for a shared one) and lets the policy say the rest.
public struct RateLimitPolicy: Sendable, Hashable {
    /// The policy's name in `RateLimit-Policy` and `RateLimit`: the operation's `operationId`.
    public let name: String
    /// The quota per window, and the largest burst.
    public let requests: Int
    /// The time in which a drained bucket fills up again.
    public let window: Duration
    /// `RateLimit-Policy`'s value, the same for every response.
    let policyField: String
    /// The name as a structured-field string, for `RateLimit`.
    let quotedName: String

    /// The policy of `limit`, named `name`.
    public init(_ limit: RateLimit, name: String) {
        self.name = name
        requests = limit.requests
        window = limit.window
        quotedName = Self.quoted(name)
        policyField = "\(quotedName);q=\(limit.requests);w=\(Self.wholeSeconds(limit.window))"
    }

    /// The time one token takes to come back: the window over the quota, at least a nanosecond.
    public var interval: Duration { .nanoseconds(Self.interval(Self.nanoseconds(window), requests: requests)) }

    /// The decision for a request after which the bucket is `emptiness` short of full (`next −
    /// now` above, whether or not the request was allowed).
    public func decision(allowed: Bool, emptiness: Duration) -> RateLimitDecision {
        let window = Self.nanoseconds(window)
        let interval = Self.interval(window, requests: requests)
        return Self.decision(allowed: allowed, ahead: Self.nanoseconds(emptiness), interval: interval, tolerance: interval * Int64(requests))
    }

    /// The decision for `ahead` nanoseconds of emptiness, with a token every `interval` and a full
    /// bucket of `tolerance`.
    static func decision(allowed: Bool, ahead: Int64, interval: Int64, tolerance: Int64) -> RateLimitDecision {
        guard allowed else {
            let wait = wholeSeconds(nanoseconds: ahead - tolerance)
            return RateLimitDecision(allowed: false, remaining: 0, reset: wait, retryAfter: wait)
        }
        let slack = max(0, tolerance - ahead)
        return RateLimitDecision(allowed: true, remaining: Int(slack / interval), reset: wholeSeconds(nanoseconds: interval - slack % interval), retryAfter: nil)
    }

    /// The response fields for a decision: `RateLimit-Policy` and `RateLimit` (and `Retry-After`
    /// when refused).
    ///
    /// They follow draft-ietf-httpapi-ratelimit-headers-11 (May 2026): `RateLimit-Policy` is a
    /// list of quota policies, each a string (the name) with `q`, the quota in requests, and `w`,
    /// the window in whole seconds; `RateLimit` says the service limit now under that policy:
    /// `r`, the quota available, and `t`, the "effective window", the seconds within which the
    /// client can use no more than `r`. With a bucket that refills continuously that is the time
    /// until the next token comes back, rounded up like `Retry-After` (which the draft says
    /// should not come before the end of `t`; for a refused request the two are equal):
    ///
    ///     RateLimit-Policy: "getReport";q=10;w=60
    ///     RateLimit: "getReport";r=0;t=6
    ///     Retry-After: 6
    public func fields(for decision: RateLimitDecision) -> HTTPFields {
        var fields = HTTPFields()
        fields[.rateLimitPolicy] = policyField
        fields[.rateLimit] = "\(quotedName);r=\(decision.remaining);t=\(decision.reset)"
        if let retryAfter = decision.retryAfter { fields[.retryAfter] = String(retryAfter) }
        return fields
    }

    static func interval(_ window: Int64, requests: Int) -> Int64 { max(1, max(1, window) / Int64(requests)) }

    /// A duration in nanoseconds, kept within a quarter of Int64's range (73 years) so that TAT
    /// arithmetic cannot overflow.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let bound = Int64.max / 4
        let (seconds, attoseconds) = duration.components
        guard seconds < bound / 1_000_000_000 else { return bound }
        guard seconds > -bound / 1_000_000_000 else { return -bound }
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Whole seconds, rounded up, at least 1.
    static func wholeSeconds(nanoseconds: Int64) -> Int {
        max(1, Int((nanoseconds + 999_999_999) / 1_000_000_000))
    }

    /// A window in whole seconds, rounded up, at least 1 (the draft's `w` has no fractions).
    static func wholeSeconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }

    /// A structured-field string (RFC 9651, section 3.3.3): in quotes, `"` and `\` escaped; a
    /// character it cannot hold (outside printable ASCII) becomes `?`.
    static func quoted(_ name: String) -> String {
        var quoted = "\""
        for scalar in name.unicodeScalars {
            switch scalar.value {
            case 0x22, 0x5C: quoted += "\\" + String(scalar)
            case 0x20...0x7E: quoted.unicodeScalars.append(scalar)
            default: quoted += "?"
            }
        }
        return quoted + "\""
    }
}

/// The answer of a ``RateLimitStore`` for one request.
public struct RateLimitDecision: Sendable, Equatable {
    /// Whether the request may go on (a token was taken) or is refused (429).
    public var allowed: Bool
    /// The tokens left after this request: further requests allowed right now.
    public var remaining: Int
    /// Seconds (rounded up, at least 1) until one more token is back: `RateLimit`'s `t`.
    public var reset: Int
    /// When refused, seconds (rounded up, at least 1) until a request is allowed again:
    /// `Retry-After`. `nil` when allowed.
    public var retryAfter: Int?

    /// A decision; ``RateLimitPolicy/decision(allowed:emptiness:)`` makes one from a GCRA cell.
    public init(allowed: Bool, remaining: Int, reset: Int, retryAfter: Int?) {
        self.allowed = allowed
        self.remaining = remaining
        self.reset = reset
        self.retryAfter = retryAfter
    }
}

extension HTTPField.Name {
    /// `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers): the quota policies.
    static let rateLimitPolicy = HTTPField.Name("RateLimit-Policy")!
    /// `RateLimit` (draft-ietf-httpapi-ratelimit-headers): the service limit now.
    static let rateLimit = HTTPField.Name("RateLimit")!
}
