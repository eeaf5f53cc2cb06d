/// Idempotency keys for one operation (draft-ietf-httpapi-idempotency-key-header-06): a client that
/// retries a request with the same `Idempotency-Key` gets the first request's answer again, and the
/// handler runs once.
///
///     "adoptCat": OperationPolicy(idempotency: IdempotencyKeys(.required)),
///
/// or, in the document, on the operation: `x-idempotency: required` (or `optional`).
///
/// The first request with a key claims it, under the client's principal (or, without one, its
/// address) and the operation, with a fingerprint of the request (its method, target and body:
/// SHA-256). Its answer is kept for ``expiry`` (status, fields and body, up to
/// ``maxStoredBodySize``) and replayed, with `Idempotent-Replayed: true`, to a retry with the same
/// key and the same request. Otherwise:
///
/// - the same key while the first request still runs: `409 Conflict`, with `Retry-After: 1`;
/// - the same key with another request (another body): `422 Unprocessable Content`;
/// - no key where one is ``Requirement/required``: `400 Bad Request`; a malformed one too.
///
/// Each as problem details. A request with a key is read whole into memory (within its operation's
/// body limit) to be fingerprinted before it runs: keep keys for requests, not for uploads streamed
/// to the handler. A first request that fails (a thrown error, or a `5xx` answer) keeps
/// nothing: a retry runs again. So does one whose body is longer than ``maxStoredBodySize`` or
/// streamed (an event stream): it is answered, and a retry runs again (logged as a warning).
public struct IdempotencyKeys: Sendable {
    /// Whether a request must carry a key.
    public enum Requirement: String, Sendable, Equatable {
        /// A request without `Idempotency-Key` is refused with 400.
        case required
        /// A request without one runs as it would without the policy.
        case optional
    }

    /// Whether a request must carry a key.
    public var requirement: Requirement
    /// How long an answer is kept for retries: 24 hours by default.
    public var expiry: Duration
    /// How long a claim holds while its request runs: 60 s by default. A server that dies with a
    /// request running frees its key then (a shared store's claim outlives the server); a request
    /// still running after it can be run again by a retry, so keep it above the operation's
    /// deadline.
    public var lease: Duration
    /// The longest answer body kept: 1 MiB by default. A longer one is answered and not kept.
    public var maxStoredBodySize: Int
    /// Where the records live: `nil` (the default) in this process's memory, each operation's
    /// own (an ``InMemoryIdempotencyStore`` with its defaults), or a store instances share.
    public var store: (any IdempotencyStore)?
    /// What a request gets when ``store`` cannot answer: ``StoreFailure/allow`` (the default: it
    /// runs, unprotected) or ``StoreFailure/refuse`` (503).
    public var whenStoreFails: StoreFailure

    /// Idempotency keys, required or optional.
    /// - Parameters:
    ///   - requirement: Whether a request must carry a key.
    ///   - expiry: How long an answer is kept for retries; more than zero.
    ///   - lease: How long a claim holds while its request runs; more than zero.
    ///   - maxStoredBodySize: The longest answer body kept; at least 0.
    ///   - store: Where the records live: `nil`, in memory, or a store instances share.
    ///   - whenStoreFails: What a request gets when the store cannot answer.
    public init(
        _ requirement: Requirement, expiry: Duration = .seconds(86_400), lease: Duration = .seconds(60), maxStoredBodySize: Int = 1 << 20,
        store: (any IdempotencyStore)? = nil, whenStoreFails: StoreFailure = .allow
    ) {
        precondition(expiry > .zero && lease > .zero, "an idempotency key's expiry and lease are longer than zero")
        precondition(maxStoredBodySize >= 0, "the longest answer body kept is at least 0 bytes")
        self.requirement = requirement
        self.expiry = expiry
        self.lease = lease
        self.maxStoredBodySize = maxStoredBodySize
        self.store = store
        self.whenStoreFails = whenStoreFails
    }
}
