package import CNGHTTP2

/// Field names whose values are unique to one response: HPACK-encoded without indexing, so that
/// they do not push the fields every response shares (content-type, server, …) out of the dynamic
/// table, which would make every later response larger and slower to encode.
private let neverIndexed: Set<String> = ["etag", "content-range", "x-request-id", "last-modified"]

/// Builds nghttp2's header list over `fields`' UTF-8, valid for the duration of `body`.
package func withHeaderList<Result>(_ fields: [(String, String)], _ body: (UnsafeMutableBufferPointer<nghttp2_nv>) -> Result) -> Result {
    var bytes: [UInt8] = []
    var spans: [(name: Int, nameLength: Int, value: Int, valueLength: Int, flags: UInt8)] = []
    for (name, value) in fields {
        let nameStart = bytes.count
        bytes += name.utf8
        let valueStart = bytes.count
        bytes += value.utf8
        let flags = neverIndexed.contains(name) ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE
        spans.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart, UInt8(flags.rawValue)))
    }
    return bytes.withUnsafeMutableBufferPointer { all in
        let base = all.baseAddress!  // never empty: every header list has a pseudo-header
        var list = spans.map {
            nghttp2_nv(name: base + $0.name, value: base + $0.value, namelen: $0.nameLength, valuelen: $0.valueLength, flags: $0.flags)
        }
        return list.withUnsafeMutableBufferPointer { body($0) }
    }
}
