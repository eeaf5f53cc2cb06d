package import CNGHTTP2

/// nghttp2's header list for one header block (a response's head, a test client's request),
/// built in one byte buffer: a list costs two allocations however many fields it has, and none
/// when it is emptied and reused (``removeAll()``), as a session's response heads are.
///
///     var list = HeaderList(fields: 3)
///     list.append(":status", "200")
///     list.append("content-type", "text/plain")
///     list.withNV { nghttp2_submit_response(session, id, $0.baseAddress, $0.count, nil) }
package struct HeaderList {
    private var bytes: [UInt8] = []
    private var spans: [(name: Int, value: Int, end: Int, flags: UInt8)] = []

    /// An empty list with room for `fields` fields of a usual size.
    package init(fields: Int) {
        bytes.reserveCapacity(fields * 40)
        spans.reserveCapacity(fields)
    }

    /// Removes every field, keeping the memory for the next list.
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
    }

    /// Appends a field; `name` is lowercase, as HTTP/2 requires.
    package mutating func append(_ name: String, _ value: String) {
        let nameStart = bytes.count
        append(name)
        let valueStart = bytes.count
        append(value)
        let flags = Self.isNeverIndexed(name) ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE
        spans.append((nameStart, valueStart, bytes.count, UInt8(flags.rawValue)))
    }

    /// Appends a string's UTF-8 in one copy (a native or small string is contiguous); the
    /// generic `+= string.utf8` went byte by byte.
    private mutating func append(_ string: String) {
        if string.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil { bytes += string.utf8 }
    }

    /// Field names whose values are unique to one response: HPACK-encoded without indexing, so
    /// that they do not push the fields every response shares (content-type, server, …) out of
    /// the dynamic table, which would make every later response larger and slower to encode.
    private static func isNeverIndexed(_ name: String) -> Bool {
        // By length first: most names (content-type, date, …) are then compared with one of
        // these or none, not with all four (a call each).
        switch name.utf8.count {
        case 4: name == "etag"
        case 12: name == "x-request-id"
        case 13: name == "content-range" || name == "last-modified"
        default: false
        }
    }

    /// Calls `body` with nghttp2's list over the fields' bytes (valid for the call only; nghttp2
    /// copies what it keeps). The list itself is on the stack.
    package func withNV<Result>(_ body: (UnsafeMutableBufferPointer<nghttp2_nv>) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { all in
            let base = UnsafeMutablePointer(mutating: all.baseAddress ?? UnsafePointer(bitPattern: 1)!)
            return withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: spans.count) { list in
                for (index, span) in spans.enumerated() {
                    list.initializeElement(at: index, to: nghttp2_nv(
                        name: base + span.name, value: base + span.value,
                        namelen: span.value - span.name, valuelen: span.end - span.value, flags: span.flags))
                }
                return body(list)
            }
        }
    }
}

/// Builds nghttp2's header list over `fields`' UTF-8, valid for the duration of `body`.
package func withHeaderList<Result>(_ fields: [(String, String)], _ body: (UnsafeMutableBufferPointer<nghttp2_nv>) -> Result) -> Result {
    var list = HeaderList(fields: fields.count)
    for (name, value) in fields { list.append(name, value) }
    return list.withNV(body)
}
