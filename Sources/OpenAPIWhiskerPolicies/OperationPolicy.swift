#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import HTTPTypes
public import OpenAPIRuntime
public import WhiskerCore

/// What one operation may take and how it answers beyond its handler: a deadline, a rate limit,
/// idempotency keys, its request body limit, its deprecation and middlewares of its own, named by the operation's `operationId` in
/// `WhiskerTransport`'s `policies`:
///
///     let transport = try WhiskerTransport(server, validatingAgainst: document, policies: [
///         "getEmojiStream": OperationPolicy(deadline: .seconds(300)),
///         "adoptCat": OperationPolicy(rateLimit: RateLimit(10, per: .seconds(60)), idempotency: IdempotencyKeys(.required)),
///         "countCats": OperationPolicy(deadline: .seconds(30), maxRequestBodySize: .maximum(64 << 20)),
///         "getEmojiV1": OperationPolicy(sunset: Date(timeIntervalSince1970: 1_798_761_600)),
///     ])
public struct OperationPolicy: Sendable {
    /// How long the operation may take, from its request's head to its response's last byte.
    /// A handler that has not answered by then is cancelled and the client gets
    /// ``deadlineStatus`` as problem details; a response body still streaming is ended there (one
    /// of unknown length, an event stream, ends cleanly, so an `EventSource` reconnects; one of
    /// known length is cut off). Either is logged as a warning naming the operation. `nil`: no
    /// deadline beyond the server's timeouts.
    public var deadline: Duration?
    /// The status of a request whose handler missed ``deadline``: `503 Service Unavailable` by
    /// default, or `504 Gateway Timeout` for an operation that waits on another service.
    public var deadlineStatus: HTTPResponse.Status
    /// Requests allowed per client (or principal): beyond them, `429 Too Many Requests` with
    /// `Retry-After`. Every answer of the operation carries `RateLimit-Policy` and `RateLimit`.
    public var rateLimit: RateLimit?
    /// Idempotency keys: a retry with the same `Idempotency-Key` gets the first answer again and
    /// the handler runs once. `nil`: as the document's `x-idempotency` says (`required` or
    /// `optional`), or none.
    public var idempotency: IdempotencyKeys?
    /// The request body limit, in place of the server's `maxRequestBodySize`.
    public var maxRequestBodySize: RequestBodyLimit?
    /// The slowest the request body may arrive, in place of the server's `minRequestBodyRate`:
    /// `.none` for an operation whose client sends at its own pace while it reads the answer
    /// (a bidirectional stream), though the rate never counts while a response streams anyway.
    public var minRequestBodyRate: RequestBodyRate?
    /// When the operation was (or will be) deprecated, sent as `Deprecation` (RFC 9745). An
    /// operation the document marks `deprecated: true` sends it without one too, as `@0`
    /// ("deprecated, since a date not given"); setting one also deprecates an operation the
    /// document does not mark (better: mark it, so the docs page and clients say so).
    public var deprecatedSince: Date?
    /// When the operation will stop answering, sent as `Sunset` (RFC 8594) with `Deprecation`.
    public var sunset: Date?
    /// A page about the deprecation (what to use instead), sent as `Link: <...>; rel="deprecation"`.
    public var deprecationLink: String?
    /// Middlewares of this operation alone, the first outermost: they run after the document's
    /// checks and the rate limit, before the middlewares given to the generated
    /// `registerHandlers(on:serverURL:middlewares:)` (which run for every operation) and the
    /// handler. An operation without any pays nothing for them, where a middleware given to
    /// `registerHandlers` is called for every request of every operation (an async call, a
    /// closure and task switches each) even when it only checks `operationID` and passes the
    /// request on. The `operationID` they are told is the policy's key: the operationId with a
    /// document, `METHOD /path` without one (the runtime's own middlewares always get the
    /// operationId), so a middleware made for one operation need not compare it:
    ///
    ///     "getClip": OperationPolicy(middlewares: [ClipValidatorMiddleware(etag: etag)]),
    public var middlewares: [any ServerMiddleware]

    /// A policy; every part is optional.
    public init(
        deadline: Duration? = nil, deadlineStatus: HTTPResponse.Status = .serviceUnavailable, rateLimit: RateLimit? = nil,
        idempotency: IdempotencyKeys? = nil, maxRequestBodySize: RequestBodyLimit? = nil, minRequestBodyRate: RequestBodyRate? = nil,
        deprecatedSince: Date? = nil, sunset: Date? = nil, deprecationLink: String? = nil, middlewares: [any ServerMiddleware] = []
    ) {
        precondition(deadline.map { $0 > .zero } ?? true, "a deadline must be longer than zero")
        self.deadline = deadline
        self.deadlineStatus = deadlineStatus
        self.rateLimit = rateLimit
        self.idempotency = idempotency
        self.maxRequestBodySize = maxRequestBodySize
        self.minRequestBodyRate = minRequestBodyRate
        self.deprecatedSince = deprecatedSince
        self.sunset = sunset
        self.deprecationLink = deprecationLink
        self.middlewares = middlewares
    }

    /// This policy over `base` (a tag's): each part this one sets wins, the others are `base`'s,
    /// and the middlewares are `base`'s then this one's.
    package func over(_ base: OperationPolicy) -> OperationPolicy {
        var merged = self
        if deadline == nil {
            merged.deadline = base.deadline
            merged.deadlineStatus = base.deadlineStatus
        }
        merged.rateLimit = rateLimit ?? base.rateLimit
        merged.idempotency = idempotency ?? base.idempotency
        merged.maxRequestBodySize = maxRequestBodySize ?? base.maxRequestBodySize
        merged.minRequestBodyRate = minRequestBodyRate ?? base.minRequestBodyRate
        merged.deprecatedSince = deprecatedSince ?? base.deprecatedSince
        merged.sunset = sunset ?? base.sunset
        merged.deprecationLink = deprecationLink ?? base.deprecationLink
        merged.middlewares = base.middlewares + middlewares
        return merged
    }

    /// Whether the policy deprecates its operation (or only adds to the document's mark).
    var deprecates: Bool { deprecatedSince != nil || sunset != nil || deprecationLink != nil }

    /// `Deprecation`, `Sunset` and the `deprecation` link, for an operation that is deprecated.
    func deprecationFields() -> HTTPFields {
        Self.deprecationFields(since: deprecatedSince, sunset: sunset, link: deprecationLink)
    }

    /// `Deprecation` (`@0` without a date), and `Sunset` and the `deprecation` link when given.
    static func deprecationFields(since: Date?, sunset: Date?, link: String?) -> HTTPFields {
        var fields = HTTPFields()
        fields[.deprecation] = "@\(since.map { Int($0.timeIntervalSince1970.rounded(.down)) } ?? 0)"
        if let sunset { fields[.sunset] = DateCache.format(Int(sunset.timeIntervalSince1970.rounded(.down))) }
        if let link { fields[.link] = "<\(link)>; rel=\"deprecation\"" }
        return fields
    }
}

extension HTTPField.Name {
    /// RFC 9745.
    static let deprecation = HTTPField.Name("Deprecation")!
    /// RFC 8594.
    static let sunset = HTTPField.Name("Sunset")!
    static let link = HTTPField.Name("Link")!
}
