#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import OpenAPIRuntime
public import OpenAPIWhiskerDocument
public import HTTPTypes

/// Deprecation as a `ServerMiddleware`: every answer of the operations of its scope carries
/// `Deprecation` (RFC 9745), with `Sunset` (RFC 8594) and a `deprecation` link when given,
/// including the refusals of the middlewares after it and the errors the generated code throws.
///
///     try handler.registerHandlers(on: transport, serverURL: url, middlewares: [
///         try DeprecationMiddleware(markedIn: document),   // `deprecated: true`: Deprecation: @0
///         DeprecationMiddleware(since: v2Release, sunset: v1End, link: "https://example.com/v2", for: ["getEmojiV1"]),
///     ])
///
/// Place it first to mark every answer, refusals included; the first of two that cover one
/// operation adds its fields last.
public struct DeprecationMiddleware: ServerMiddleware {
    private let fields: HTTPFields
    private let scope: OperationScope

    /// Deprecates the operations of `operations`.
    /// - Parameters:
    ///   - since: When they were (or will be) deprecated, sent as `Deprecation: @<seconds>`;
    ///     `nil`: `@0`, "deprecated, since a date not given".
    ///   - sunset: When they will stop answering, sent as `Sunset`.
    ///   - link: A page about the deprecation (what to use instead), sent as
    ///     `Link: <...>; rel="deprecation"`.
    ///   - operations: The operations deprecated.
    public init(since: Date? = nil, sunset: Date? = nil, link: String? = nil, for operations: OperationScope) {
        fields = OperationPolicy.deprecationFields(since: since, sunset: sunset, link: link)
        scope = operations
    }

    /// Deprecates the operations `document` marks `deprecated: true` (`Deprecation: @0`).
    /// - Parameter document: The document the handlers were generated from.
    /// - Throws: ``/OpenAPIWhiskerDocument/DocumentError`` if the document cannot be read.
    public init(markedIn document: OpenAPIDocument) throws(DocumentError) {
        let deprecated = try DocumentOperations(document).operations.filter(\.deprecated).map(\.id)
        self.init(for: .only(Set(deprecated)))
    }

    /// Passes the request on and adds the deprecation fields to its answer, or to the error
    /// (a `ServerError`, as the generated code throws) that will be answered.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard scope.contains(operationID) else { return try await next(request, body, metadata) }
        do {
            var (head, responseBody) = try await next(request, body, metadata)
            head.headerFields.append(contentsOf: fields)
            return (head, responseBody)
        } catch var error as ServerError {
            error.httpHeaderFields.append(contentsOf: fields)
            throw error
        }
    }
}
