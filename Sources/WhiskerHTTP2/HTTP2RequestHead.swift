import WhiskerCore
import WhiskerSockets
package import HTTPTypes

/// A request's header block as nghttp2 decodes it, field by field: the pseudo-header fields
/// apart, from nghttp2's bytes, and no string for a name that is compared only (`:path`,
/// `host`). ``HTTP2RequestHead/parse(_:validAuthority:)`` checks it once it is whole.
package struct HTTP2RequestFields: Sendable {
    package private(set) var method: String?
    package private(set) var scheme: String?
    package private(set) var authority: String?
    package private(set) var path: String?
    /// The first `host` field, checked against `:authority` by ``HTTP2RequestHead/parse(_:)``.
    package private(set) var host: String?
    /// A second `host` field arrived: the request is refused (400), as HTTP/1.1 refuses it.
    package private(set) var hasSecondHost = false
    /// The regular fields, `host` left out, as they arrived. They become `HTTPFields` only once
    /// the block is whole and within the limits (``headerFields``): `HTTPField` checks every byte
    /// of a value, and a block refused at the header list limit must not pay for that (an HPACK
    /// reference to a 4 KB entry, repeated up to the limit: 2.3 ms of CPU a block against 0.3 in
    /// a debug build, h2-abuse.sh).
    private var regular: [(name: HTTPField.Name, value: String)] = []

    /// An empty block with room for `capacity` regular fields.
    package init(capacity: Int = 0) {
        if capacity > 0 { regular.reserveCapacity(capacity) }
    }

    /// The regular fields, `host` left out, as `HTTPFields` (values checked here).
    package var headerFields: HTTPFields {
        var fields = HTTPFields()
        fields.reserveCapacity(regular.count)
        for (name, value) in regular { fields.append(HTTPField(name: name, value: value)) }
        return fields
    }

    /// Adds one decoded field. nghttp2 passes lowercase names only (RFC 9113 §8.2.1) and has
    /// refused unknown pseudo-header fields; a regular name that is not a valid token is dropped.
    package mutating func append(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        // Indexed, not `name.first ==`: comparing an optional goes through generic code that
        // allocates in a debug build (the allocation budget counts it).
        if !name.isEmpty && name[0] == UInt8(ascii: ":") {
            // Told apart by length, then by bytes: no string is made for the name.
            switch name.count {
            case 5 where name.spells(":path"): path = String(decoding: value, as: UTF8.self)
            case 7 where name.spells(":method"): method = String(decoding: value, as: UTF8.self)
            case 7 where name.spells(":scheme"): scheme = String(decoding: value, as: UTF8.self)
            case 10 where name.spells(":authority"): authority = String(decoding: value, as: UTF8.self)
            default: break
            }
        } else if name.count == 4 && name.spells("host") {
            if host == nil { host = String(decoding: value, as: UTF8.self) } else { hasSecondHost = true }
        } else if let fieldName = HTTPField.Name(parsed: String(decoding: name, as: UTF8.self)) {
            // `parsed:`: a lowercase name is its own canonical form; `init(_:)` would lowercase
            // it into a new string.
            regular.append((fieldName, String(decoding: value, as: UTF8.self)))
        }
    }

    /// Adds one field given as strings (the request of an `Upgrade: h2c`, tests).
    package mutating func append(_ name: String, _ value: String) {
        var name = name, value = value
        name.withUTF8 { name in value.withUTF8 { value in append(name: name, value: value) } }
    }
}

/// The request of one HTTP/2 header block: the pseudo-header fields, the others as `HTTPFields`,
/// and the authority checked as HTTP/1.1 checks `Host` (RFC 9113 §8.3.1). nghttp2 has already
/// refused what RFC 9113 calls malformed (missing or repeated pseudo-header fields, uppercase
/// names, connection-specific fields).
enum HTTP2RequestHead {
    /// The request, `nil` when `:method` or `:path` is missing (a stream error), or the rejection
    /// for an authority that HTTP/1.1 would refuse too.
    /// - Parameter validAuthority: The `:authority` found valid last on this connection, and
    ///   where a new one found valid is kept: a client names the same authority on every stream,
    ///   which is then compared rather than checked again.
    static func parse(_ fields: HTTP2RequestFields, validAuthority: inout String?) throws(HTTPRejection) -> HTTPRequest? {
        if fields.hasSecondHost { throw .badRequest("more than one Host header") }
        guard let method = fields.method.flatMap({ HTTPRequest.Method($0) }), let path = fields.path else { return nil }
        let authority = fields.authority
        // As HTTP/1.1's request-target: visible ASCII only (nghttp2 lets other bytes through),
        // and no fragment; both in one pass.
        var hasFragment = false
        for byte in path.utf8 {
            guard byte > 0x20 && byte < 0x7F else { throw .badRequest("invalid character in :path") }
            hasFragment = hasFragment || byte == UInt8(ascii: "#")
        }
        if hasFragment { throw RequestLine.fragmentRejection }
        if let authority, authority != validAuthority {
            guard HeadParser.isValidHost(authority) else { throw .badRequest("invalid :authority \"\(authority)\"") }
            validAuthority = authority
        }
        if let host = fields.host {
            guard HeadParser.isValidHost(host) else { throw .badRequest("invalid Host \"\(host)\"") }
            // A Host that names another authority than :authority is malformed (RFC 9113 §8.3.1).
            if let authority, authority.lowercased() != host.lowercased() {
                throw .badRequest("Host \"\(host)\" differs from :authority \"\(authority)\"")
            }
        }
        // A `host` field stands in for a missing `:authority`.
        return HTTPRequest(method: method, scheme: fields.scheme, authority: authority ?? fields.host, path: path, headerFields: fields.headerFields)
    }
}
