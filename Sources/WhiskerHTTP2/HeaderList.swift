package import CNGHTTP2

/// Builds nghttp2's header list over `fields`' UTF-8, valid for the duration of `body`.
package func withHeaderList<Result>(_ fields: [(String, String)], _ body: (UnsafeMutableBufferPointer<nghttp2_nv>) -> Result) -> Result {
    var bytes: [UInt8] = []
    var spans: [(name: Int, nameLength: Int, value: Int, valueLength: Int)] = []
    for (name, value) in fields {
        let nameStart = bytes.count
        bytes += name.utf8
        let valueStart = bytes.count
        bytes += value.utf8
        spans.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
    }
    return bytes.withUnsafeMutableBufferPointer { all in
        let base = all.baseAddress!  // never empty: every header list has a pseudo-header
        var list = spans.map {
            nghttp2_nv(name: base + $0.name, value: base + $0.value, namelen: $0.nameLength, valuelen: $0.valueLength, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        }
        return list.withUnsafeMutableBufferPointer { body($0) }
    }
}
