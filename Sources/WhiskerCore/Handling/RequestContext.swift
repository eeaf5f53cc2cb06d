public import HTTPTypes
public import WhiskerSockets

/// What the server knows about the request a handler is serving: the peer, the protocol, TLS and
/// a request id. Read it anywhere in the handler's task (including inside a generated
/// `APIProtocol` method, which sees only the decoded input) with ``current``:
///
///     func getEmoji(_ input: Operations.getEmoji.Input) async throws -> Operations.getEmoji.Output {
///         if let context = RequestContext.current {
///             logger.info("emoji", metadata: ["peer": "\(context.peer)", "request-id": "\(context.requestID)"])
///         }
///         ...
///     }
///
/// It is a task-local value, so it also reaches child tasks the handler starts, and is `nil`
/// outside a request.
public struct RequestContext: Sendable, Equatable {
    /// The client's address.
    public let peer: SocketAddress
    /// The protocol the request came over.
    public let httpVersion: HTTPVersion
    /// TLS details when the request came over HTTPS, else `nil`.
    public let tls: TLS?
    /// The request's id: the client's `X-Request-ID` when it sent a usable one (1 to 200 visible
    /// ASCII characters); otherwise, with ``WhiskerServer/Configuration/requestIDs`` on, a new
    /// random one (and the response carries it back in `X-Request-ID`), else `nil`.
    public let requestID: String?

    /// An HTTP version.
    public enum HTTPVersion: String, Sendable, Equatable {
        case http1_0 = "HTTP/1.0"
        case http1_1 = "HTTP/1.1"
        case http2 = "HTTP/2"
    }

    /// The TLS side of a connection: its version and ALPN's choice.
    public typealias TLS = TLSDetails

    /// Creates a context (the server does; tests may make their own).
    public init(peer: SocketAddress, httpVersion: HTTPVersion, tls: TLS?, requestID: String?) {
        self.peer = peer
        self.httpVersion = httpVersion
        self.tls = tls
        self.requestID = requestID
    }

    /// `X-Request-ID`, read from requests and set on responses.
    public static let requestIDField = HTTPField.Name("X-Request-ID")!

    /// The context of the request the current task serves, or `nil` outside one.
    @TaskLocal public static var current: RequestContext?

    /// The client's id if usable; else a new one (16 random bytes in hex) if `generate`, else `nil`.
    static func requestID(fromClient value: String?, generate: Bool) -> String? {
        if let value, !value.isEmpty, value.utf8.count <= 200,
            value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            return value
        }
        guard generate else { return nil }
        var generator = SystemRandomNumberGenerator()
        let words = [generator.next(), generator.next()] as [UInt64]
        return words.map { word in
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
