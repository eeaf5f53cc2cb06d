package import HTTPTypes

/// A module's answer before routing (the health checks', a CORS preflight's): the way such a
/// module plugs into the core, with ``WhiskerServer/Configuration/earlyAnswers``. Its answer
/// leaves by the one way out (``ServerContext/answer(_:to:origin:write:)``) like every other.
package protocol EarlyAnswer: Sendable {
    /// Lower is asked first.
    var order: Int { get }
    /// It answers the health checks (a listener that serves only them needs one).
    var answersHealthChecks: Bool { get }
    /// The answer to `head` (its path without the query is `path`), or `nil` to route it.
    func answer(_ head: HTTPRequest, path: Substring, context: EarlyAnswerContext) -> LocalAnswer?
    /// Checked when the server starts: settings that cannot work throw, naming themselves.
    func validate() throws(WhiskerServerError)
}

extension EarlyAnswer {
    package func validate() throws(WhiskerServerError) {}
    package var answersHealthChecks: Bool { false }
}

/// What an ``EarlyAnswer`` may know of the server and the connection.
package struct EarlyAnswerContext {
    /// The methods the routes of a path take (none: no route has it).
    package let methods: (Substring) -> [HTTPRequest.Method]
    /// The server takes new work (false once a graceful shutdown started).
    package let isReady: Bool
    /// The connection came to a listener that serves only the health checks.
    package let servesOnlyHealth: Bool
    /// Some listener serves only the health checks (and so the others do not).
    package let healthChecksHaveOwnListener: Bool
}
