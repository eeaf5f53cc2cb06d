import HTTPTypes
import Dispatch

/// One request and its response on an HTTP/1.1 connection; lives on the connection's queue.
final class HTTP1Exchange {
    /// Distinguishes this exchange from later ones on the same connection, so that a late
    /// callback from a finished handler cannot touch the next request.
    let id: UInt64
    let head: RequestHead
    var body: RequestBodyChannel?
    var task: Task<Void, Never>?

    /// The whole request body (or its absence) has been read.
    var isBodyComplete = false
    var bodyBytesReceived: Int64 = 0
    /// Reading is paused because the body buffer is full.
    var isBodyPaused = false
    var isContinueSent = false

    /// The response head was written (its status can no longer change).
    var isResponseStarted = false
    /// The last byte of the response was handed to the socket.
    var isResponseComplete = false
    var framing: ResponseFraming?
    /// A streamed body's bytes against its `Content-Length`.
    var streamed = StreamedBodyCount(declared: nil)

    init(id: UInt64, head: RequestHead) {
        self.id = id
        self.head = head
    }

    var isHEAD: Bool { head.request.method == .head }

    /// Bytes of a `Content-Length` body not received yet, or `nil` for chunked bodies.
    var remainingBodyBytes: Int64? {
        switch head.framing {
        case .none: 0
        case .length(let length): length - bodyBytesReceived
        case .chunked: isBodyComplete ? 0 : nil
        }
    }
}
