/// The operations a middleware applies to, by `operationId`: the generated code passes each
/// request's to every middleware, and one outside the scope passes the request on untouched.
///
///     RateLimitMiddleware(RateLimit(10, per: .seconds(60)), for: ["adoptCat"])
///     DeprecationMiddleware(sunset: date, for: .matching { $0.hasSuffix("V1") })
///     RequestValidationMiddleware(document, authenticators: ..., for: .except(["uploadClip"]))
public struct OperationScope: Sendable, ExpressibleByArrayLiteral {
    private enum Kind: Sendable {
        case all
        case only(Set<String>)
        case except(Set<String>)
        case matching(@Sendable (String) -> Bool)
    }

    private let kind: Kind

    /// Every operation.
    public static let all = OperationScope(kind: .all)

    /// Only the operations named.
    /// - Parameter operationIDs: Their `operationId`s.
    public static func only(_ operationIDs: Set<String>) -> OperationScope { OperationScope(kind: .only(operationIDs)) }

    /// Every operation but those named.
    /// - Parameter operationIDs: Their `operationId`s.
    public static func except(_ operationIDs: Set<String>) -> OperationScope { OperationScope(kind: .except(operationIDs)) }

    /// The operations whose `operationId` `predicate` accepts (called for each request: keep it cheap).
    /// - Parameter predicate: Whether an `operationId` is in the scope.
    public static func matching(_ predicate: @escaping @Sendable (String) -> Bool) -> OperationScope { OperationScope(kind: .matching(predicate)) }

    /// Only the operations listed: `["adoptCat", "countCats"]` is `.only(["adoptCat", "countCats"])`.
    /// - Parameter operationIDs: Their `operationId`s.
    public init(arrayLiteral operationIDs: String...) { kind = .only(Set(operationIDs)) }

    private init(kind: Kind) { self.kind = kind }

    /// Whether the operation called `operationID` is in the scope.
    /// - Parameter operationID: An `operationId`, as the generated code passes it.
    public func contains(_ operationID: String) -> Bool {
        switch kind {
        case .all: true
        case .only(let names): names.contains(operationID)
        case .except(let names): !names.contains(operationID)
        case .matching(let predicate): predicate(operationID)
        }
    }

    /// The one operation of a scope that names exactly one, else `nil`: the default name of a
    /// rate limit's policy.
    var single: String? {
        guard case .only(let names) = kind, names.count == 1 else { return nil }
        return names.first
    }
}
