public import HTTPTypes

/// An answer before routing (the health checks', a CORS preflight's), which a ``ServerFeature``
/// contributes. Its answer leaves by the one way out like every other: through the response
/// steps, the observer and the access log.
///
///     struct Teapot: EarlyAnswer {
///         func answer(_ head: HTTPRequest, path: Substring, context: EarlyAnswerContext) -> LocalAnswer? {
///             path == "/coffee" ? .rejection(HTTPRejection(.init(code: 418), "I am a teapot")) : nil
///         }
///     }
public protocol EarlyAnswer: Sendable {
    /// Lower is asked first; 0 by default (the health checks ask at 0, CORS at 10).
    var order: Int { get }
    /// The answer to `head` (its path without the query is `path`), or `nil` to route it.
    func answer(_ head: HTTPRequest, path: Substring, context: EarlyAnswerContext) -> LocalAnswer?
}

extension EarlyAnswer {
    public var order: Int { 0 }
}

/// What an ``EarlyAnswer`` may know of the server and the connection.
public struct EarlyAnswerContext {
    /// The methods the routes of a path take (none: no route has it).
    public let methods: (Substring) -> [HTTPRequest.Method]
    /// The server takes new work (false once a graceful shutdown started).
    public let isReady: Bool
    /// The options of the listener the connection came to.
    public let listenerOptions: ListenerOptions
}
