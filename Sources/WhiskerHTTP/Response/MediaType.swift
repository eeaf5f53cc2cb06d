/// A `Content-Type` value reduced to what decisions about a body need: its type and subtype,
/// lowercased, without parameters (RFC 9110 §8.3.1), so that `Text/Event-Stream; charset=utf-8`
/// is `text/event-stream`.
package struct MediaType: Equatable, Sendable {
    /// `type/subtype`, lowercased, e.g. `application/json`.
    package let essence: String

    /// The media type of a `Content-Type` field value; `nil` when it has no `type/subtype`.
    package init?(_ contentType: String) {
        let essence = contentType.prefix { $0 != ";" }.trimmingOWS()
        guard let slash = essence.firstIndex(of: "/"), slash != essence.startIndex, essence.index(after: slash) != essence.endIndex
        else { return nil }
        self.essence = essence.lowercased()
    }

    /// `text/event-stream`: server-sent events.
    package var isEventStream: Bool { essence == "text/event-stream" }
}
