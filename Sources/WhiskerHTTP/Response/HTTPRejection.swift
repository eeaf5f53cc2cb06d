public import HTTPTypes

/// Why a request was refused before it reached a handler: the status to answer with, a reason
/// for the response body and the log line, and whether the connection must close afterwards.
///
/// Framing errors (anything that leaves the server unsure where the next request starts)
/// always close the connection, which is what keeps request smuggling out.
public struct HTTPRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status sent to the client.
    public var status: HTTPResponse.Status
    /// A short, human-readable reason: the `detail` of the answer (`ProblemDetails`, from WhiskerCore), and logged.
    public var reason: String
    /// Whether the connection closes after the response.
    public var closesConnection: Bool

    /// Creates a rejection.
    /// - Parameters:
    ///   - status: The status sent to the client.
    ///   - reason: A short, human-readable reason.
    ///   - closesConnection: Whether the connection closes after the response.
    public init(_ status: HTTPResponse.Status, _ reason: String, closesConnection: Bool = true) {
        self.status = status
        self.reason = reason
        self.closesConnection = closesConnection
    }

    /// The status, its reason phrase and the reason, as logged.
    public var description: String { "\(status.code) \(status.wireReasonPhrase): \(reason)" }

    package static func badRequest(_ reason: String) -> Self { .init(.badRequest, reason) }
}
