import HTTPTypes

extension Response {
    /// Adds, when this response is a `text/event-stream`, the fields that keep a cache or a
    /// buffering proxy from holding server-sent events back: `Cache-Control: no-cache` (every event
    /// is news) and `X-Accel-Buffering: no` (nginx passes the body on as it comes instead of
    /// buffering it), each only if the handler did not set its own. Handlers generated from an
    /// OpenAPI document can only send the fields the document declares, so the server adds these; a
    /// handler that wants otherwise sets its own value (`X-Accel-Buffering: yes`, say). In place:
    /// the usual response, not an event stream, is neither copied nor changed.
    package mutating func addEventStreamDefaults() {
        // Shorter than `text/event-stream`: not one (and no parsing on the usual response's path).
        guard let type = head.headerFields.firstValue(.contentType), type.utf8.count >= 17, MediaType(type)?.isEventStream == true
        else { return }
        if head.headerFields.firstValue(.cacheControl) == nil {
            head.headerFields.append(HTTPField(name: .cacheControl, value: "no-cache"))
        }
        if head.headerFields.firstValue(Self.accelBuffering) == nil {
            head.headerFields.append(HTTPField(name: Self.accelBuffering, value: "no"))
        }
    }

    /// nginx's `X-Accel-Buffering`.
    static let accelBuffering = HTTPField.Name("X-Accel-Buffering")!
}
