public import OpenAPIWhiskerDocument

/// The operations a middleware applies to, by `operationId`: the generated code passes each
/// request's to every middleware, and one outside the scope passes the request on untouched.
///
///     RateLimitMiddleware(RateLimit(10, per: .seconds(60)), for: ["adoptCat"])
///     DeprecationMiddleware(sunset: date, for: .matching { $0.hasSuffix("V1") })
///     RequestValidationMiddleware(document, authenticators: ..., for: .except(["uploadClip"]))
///     LegacyAuthMiddleware(for: try .tagged(["admin"], in: document))
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

    /// The operations the document gives any of `tags` (an operation's `tags: [admin]`): a
    /// middleware for a part of the API without a module and a document of its own for it.
    /// - Parameters:
    ///   - tags: The tags.
    ///   - document: The document the handlers were generated from.
    /// - Throws: `DocumentError` when the document cannot be read, or a tag is on no operation
    ///   (misspelt, it would scope nothing and protect nothing).
    public static func tagged(_ tags: Set<String>, in document: OpenAPIDocument) throws(DocumentError) -> OperationScope {
        let operations = try DocumentOperations(document).operations
        for tag in tags where !operations.contains(where: { $0.tags.contains(tag) }) {
            throw DocumentError("no operation of the document has the tag \(tag)")
        }
        return .only(Set(operations.filter { !tags.isDisjoint(with: $0.tags) }.map(\.id)))
    }

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
