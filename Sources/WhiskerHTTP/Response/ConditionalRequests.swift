package import HTTPTypes

/// Which of the headers that make a GET conditional or partial a request has, found in one pass
/// over its fields, so that a plain request (most of them) skips the precondition and range logic.
package struct ConditionalHeaders {
    package var hasPreconditions = false
    package var hasRange = false

    package init(_ fields: HTTPFields) {
        for field in fields {
            switch field.name {
            case .ifMatch, .ifNoneMatch, .ifModifiedSince: hasPreconditions = true
            case .range: hasRange = true
            default: continue
            }
        }
    }
}

extension Response {
    /// This response with a strong `ETag` made from its bytes (``EntityTag/strong(for:)``), when it
    /// is a 200 to GET or HEAD whose body is in memory and it has none. An `ETag` the handler set
    /// is kept.
    func withGeneratedETag(for request: HTTPRequest) -> Response {
        var response = self
        response.addGeneratedETag(for: request)
        return response
    }

    /// Adds the `ETag` of ``withGeneratedETag(for:)`` in place, without copying the fields first.
    package mutating func addGeneratedETag(for request: HTTPRequest) {
        guard request.method == .get || request.method == .head else { return }
        addGeneratedETag(status: head.status)
    }

    /// ``addGeneratedETag(for:)`` for a request known to be a GET or a HEAD, whose response's
    /// status the caller read already (`HTTPResponse.status` parses its field on every read).
    package mutating func addGeneratedETag(status: HTTPResponse.Status) {
        guard status == .ok, head.headerFields.firstValue(.eTag) == nil, case .bytes(let bytes) = body.storage else { return }
        // Known to be absent: appended, not set (which would first look for others).
        head.headerFields.append(HTTPField(name: .eTag, value: EntityTag.strong(for: bytes)))
    }

    /// This response as it answers `request`'s preconditions (RFC 9110 §13.2.2), for a 2xx response
    /// to GET or HEAD: a failed `If-Match` is 412; a matching `If-None-Match` (or, without one, an
    /// `If-Modified-Since` equal to `Last-Modified`) is 304 with the validators and caching fields
    /// and no body. Any other response is unchanged.
    package func answeringPreconditions(of request: HTTPRequest) -> Response {
        guard request.method == .get || request.method == .head, (200..<300).contains(head.status.code) else { return self }
        let fields = request.headerFields
        let etag = head.headerFields[.eTag]
        if let ifMatch = fields[.ifMatch], !EntityTag.list(ifMatch, matches: etag, weak: false) {
            return Response(status: .preconditionFailed, headerFields: [.contentType: "text/plain; charset=utf-8"],
                            body: .init(string: "precondition failed: If-Match names no current representation\n"))
        }
        let notModified: Bool
        if let ifNoneMatch = fields[.ifNoneMatch] {
            notModified = EntityTag.list(ifNoneMatch, matches: etag, weak: true)
        } else if let since = fields[.ifModifiedSince], let lastModified = head.headerFields[.lastModified] {
            notModified = since.trimmingOWS() == lastModified.trimmingOWS()
        } else {
            notModified = false
        }
        guard notModified else { return self }
        // RFC 9110 §15.4.5: what a cache needs to update its stored response, and nothing of the content.
        var kept = HTTPFields()
        for field in head.headerFields where Self.notModifiedFields.contains(field.name) { kept.append(field) }
        return Response(head: HTTPResponse(status: .notModified, headerFields: kept))
    }

    private static let notModifiedFields: Set<HTTPField.Name> = [
        .eTag, .lastModified, .cacheControl, .contentLocation, .expires, .vary, HTTPField.Name.requestID,
    ]
}

/// Entity tags: made from bytes, and compared (RFC 9110 §8.8.3.2).
enum EntityTag {
    private static let base64URL = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// A strong entity tag for `bytes`: a 64-bit FNV-1a hash of them (with the length mixed in), in
    /// 11 base64url characters between quotes. Thirteen bytes make a small string, so making one
    /// allocates nothing.
    static func strong(for bytes: ArraySlice<UInt8>) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(bytes.count)
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 13) { tag in
            tag[0] = UInt8(ascii: "\"")
            for index in 0..<11 {
                tag[1 + index] = base64URL[Int((hash &>> UInt64(60 - 6 * index)) & 0x3F)]  // 4 bits, then 6 at a time
            }
            tag[12] = UInt8(ascii: "\"")
            return String(decoding: tag, as: UTF8.self)
        }
    }

    /// Whether the comma-separated `list` (or `*`) names `etag`: strong comparison (both strong and
    /// equal) for `If-Match`, weak comparison (equal but for `W/`) for `If-None-Match`. `*` matches
    /// any current representation, which a 2xx response to GET is.
    static func list(_ list: String, matches etag: String?, weak: Bool) -> Bool {
        let list = list.trimmingOWS()
        if list == "*" { return true }
        guard let etag = etag?.trimmingOWS() else { return false }
        let current = weak ? opaque(etag) : etag
        guard weak || !etag.hasPrefix("W/") else { return false }
        for candidate in list.split(separator: ",") {
            let candidate = candidate.trimmingOWS()
            if weak ? opaque(candidate) == current : (candidate == current) { return true }
        }
        return false
    }

    private static func opaque(_ tag: some StringProtocol) -> Substring {
        tag.hasPrefix("W/") ? Substring(tag.dropFirst(2)) : Substring(tag)
    }
}
