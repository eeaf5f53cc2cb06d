/// The slowest one route's request body may arrive (see ``WhiskerServer/Limits/minRequestBodyRate``):
/// slower gets `408 Request Timeout`. The rate counts only while the request is the only thing
/// moving: not while the handler has not read what came, and not while it streams a response
/// to a request it reads at its own pace (a bidirectional stream), when only the stall timeout
/// (``WhiskerServer/Timeouts/requestBody``) applies.
///
///     // A chat whose client types at its own pace: no minimum rate, only the stall timeout.
///     try server.register(method: .post, path: "/chat", minRequestBodyRate: .none) { ... }
///     // Uploads from phones on poor networks: a lower minimum than the server's.
///     try server.register(method: .put, path: "/photos/{id}", minRequestBodyRate: .minimum(MinimumDataRate(bytesPerSecond: 64))) { ... }
public enum RequestBodyRate: Sendable, Hashable {
    /// The server's ``WhiskerServer/Limits/minRequestBodyRate``.
    case serverDefault
    /// At least this rate.
    case minimum(MinimumDataRate)
    /// No minimum rate: only the stall timeout.
    case none

    /// The rate (`nil`: none), given the server's.
    func rate(serverDefault: MinimumDataRate?) -> MinimumDataRate? {
        switch self {
        case .serverDefault: serverDefault
        case .minimum(let rate): rate
        case .none: nil
        }
    }
}
