import HTTPTypes

/// The handler side of one request and its response on an HTTP/1.1 connection: the task, the
/// body channel it reads, and how its response is framed. Whether the request is read, the
/// response written and the connection kept is ``HTTP1ConnectionState``'s. Lives on the
/// connection's queue.
final class HTTP1Exchange {
    /// Distinguishes this exchange from later ones on the same connection, so that a late
    /// callback from a finished handler cannot touch the next request.
    let id: UInt64
    let head: RequestHead
    /// Where the request body goes; `nil` without a body, or once nobody will read the rest.
    var body: RequestBodyChannel?
    /// The handler's task: once set, the handler's run observes and logs the request, whoever answers it.
    var task: Task<Void, Never>?
    /// The request's id, for an answer the connection gives under the handler.
    var requestID: String?
    /// The response's framing, once its head is decided.
    var framing: ResponseFraming?
    /// A streamed body's bytes against its `Content-Length`.
    var streamed = StreamedBodyCount(declared: nil)
    /// The slowest the request body may arrive: its route's, else the server's.
    var minBodyRate: MinimumDataRate?

    init(id: UInt64, head: RequestHead, minBodyRate: MinimumDataRate?) {
        self.id = id
        self.head = head
        self.minBodyRate = minBodyRate
    }

    var isHEAD: Bool { head.request.method == .head }
}
