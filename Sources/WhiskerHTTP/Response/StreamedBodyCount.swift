/// Counts a streamed response body against the `Content-Length` its head declared, the same for
/// HTTP/1.1 and HTTP/2: a body that runs past it or falls short is an error of the handler's,
/// which the connection reports by closing (HTTP/1.1) or resetting the stream (HTTP/2).
package struct StreamedBodyCount {
    /// The declared length, or `nil` when the body's length is not known in advance.
    let declared: Int64?
    private(set) var written: Int64 = 0

    package init(declared: Int64?) { self.declared = declared }

    /// Counts a chunk before it is sent; the error when it would take the body past the
    /// declared length (the chunk must then not be sent).
    package mutating func add(_ count: Int) -> ResponseBodyError? {
        written += Int64(count)
        guard let declared, written > declared else { return nil }
        return ResponseBodyError(reason: "the response body is longer than its Content-Length of \(declared) bytes")
    }

    /// At the body's end: the error when fewer bytes were written than declared.
    package var shortfall: ResponseBodyError? {
        guard let declared, written != declared else { return nil }
        return ResponseBodyError(reason: "the response body is shorter than its Content-Length of \(declared) bytes (\(written) written)")
    }
}
