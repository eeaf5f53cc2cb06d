/// Who a request is, once authenticated: a name (for your handlers and your own logs; Whisker
/// logs none of it) and the scopes it holds.
///
/// OpenAPIWhisker's authenticators make one from a request's credential for the document's
/// security schemes, check the operation's required scopes against ``scopes``, and hand it to the
/// handler in `RequestContext.current?.principal` (also spelled `Principal.current`):
///
///     func getReport(_ input: Operations.getReport.Input) async throws -> Operations.getReport.Output {
///         guard let reader = RequestContext.current?.principal else { ... }
///         logger.info("report read", metadata: ["by": "\(reader.name)"])
public struct Principal: Sendable, Equatable {
    /// Who it is: a user name, a client's id.
    public var name: String
    /// The scopes it holds.
    public var scopes: Set<String>

    /// A principal called `name` holding `scopes`.
    public init(name: String, scopes: Set<String> = []) {
        self.name = name
        self.scopes = scopes
    }
}
