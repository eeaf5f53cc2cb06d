import WhiskerCore
import WhiskerSockets
import HTTPTypes

/// The request of one HTTP/2 header block: the pseudo-header fields, the others as `HTTPFields`,
/// and the authority checked as HTTP/1.1 checks `Host` (RFC 9113 §8.3.1). nghttp2 has already
/// refused what RFC 9113 calls malformed (missing or repeated pseudo-header fields, uppercase
/// names, connection-specific fields).
enum HTTP2RequestHead {
    /// The request, `nil` when `:method` or `:path` is missing (a stream error), or the rejection
    /// for an authority that HTTP/1.1 would refuse too.
    static func parse(_ fields: [(name: String, value: String)]) throws(HTTPRejection) -> HTTPRequest? {
        var method: HTTPRequest.Method?
        var scheme: String?
        var authority: String?
        var path: String?
        var host: String?
        var headerFields = HTTPFields()
        headerFields.reserveCapacity(fields.count)
        for (name, value) in fields {
            // Only a pseudo-header field's name is compared with the pseudo-headers' (each
            // comparison of two different strings costs a call), and a regular name with `host`
            // only if it has its length.
            if name.utf8.first == UInt8(ascii: ":") {
                switch name {
                case ":method": method = HTTPRequest.Method(value)
                case ":scheme": scheme = value
                case ":authority": authority = value
                case ":path": path = value
                default: break  // nghttp2 refuses others; never a regular field
                }
            } else if name.utf8.count == 4 && name == "host" {
                guard host == nil else { throw .badRequest("more than one Host header") }
                host = value
            } else if let fieldName = HTTPField.Name(parsed: name) {
                // `parsed:`: nghttp2 passes lowercase names only (RFC 9113 §8.2.1), which are
                // their own canonical form; `init(_:)` would lowercase each into a new string.
                headerFields.append(HTTPField(name: fieldName, value: value))
            }
        }
        guard let method, let path else { return nil }
        // As HTTP/1.1's request-target: visible ASCII only (nghttp2 lets other bytes through).
        guard path.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .badRequest("invalid character in :path") }
        if path.utf8.contains(UInt8(ascii: "#")) { throw RequestLine.fragmentRejection }
        if let authority, !HeadParser.isValidHost(authority) { throw .badRequest("invalid :authority \"\(authority)\"") }
        if let host {
            guard HeadParser.isValidHost(host) else { throw .badRequest("invalid Host \"\(host)\"") }
            // A Host that names another authority than :authority is malformed (RFC 9113 §8.3.1).
            if let authority, authority.lowercased() != host.lowercased() {
                throw .badRequest("Host \"\(host)\" differs from :authority \"\(authority)\"")
            }
        }
        // A `host` field stands in for a missing `:authority`.
        return HTTPRequest(method: method, scheme: scheme, authority: authority ?? host, path: path, headerFields: headerFields)
    }
}
