import HTTPTypes
import WhiskerSockets

/// The methods and field names most requests carry, recognised from their bytes so that the parser
/// reuses HTTPTypes' own values instead of making a `String` and validating it again: a name is
/// reused only when its bytes are exactly the usual spelling (`Host`, `host`), so a field keeps the
/// name it arrived with; any other spelling, or another name, takes the general path.
enum KnownRequestTokens {
    /// The method spelled by `bytes`, when it is one of the seven common ones.
    static func method(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPRequest.Method? {
        switch bytes.count {
        case 3:
            if bytes.spells("GET") { return .get }
            if bytes.spells("PUT") { return .put }
        case 4:
            if bytes.spells("HEAD") { return .head }
            if bytes.spells("POST") { return .post }
        case 5:
            if bytes.spells("PATCH") { return .patch }
        case 6:
            if bytes.spells("DELETE") { return .delete }
        case 7:
            if bytes.spells("OPTIONS") { return .options }
        default:
            break
        }
        return nil
    }

    /// The field name spelled by `bytes`, when it is a common request field in its usual
    /// capitalization (`Accept-Encoding`) or all lowercase (`accept-encoding`). Compared as static
    /// bytes and made from HTTPTypes' literals: no table to copy names out of, no string to allocate.
    static func fieldName(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPField.Name? {
        switch bytes.count {
        case 4: pick(bytes, "Host", "host", .knownHost)
        case 5: pick(bytes, "Range", "range", .range)
        case 6:
            pick(bytes, "Accept", "accept", .accept) ?? pick(bytes, "Cookie", "cookie", .cookie)
                ?? pick(bytes, "Origin", "origin", .origin) ?? pick(bytes, "Expect", "expect", .expect)
        case 7: pick(bytes, "Referer", "referer", .referer) ?? pick(bytes, "Upgrade", "upgrade", .upgrade)
        case 10: pick(bytes, "User-Agent", "user-agent", .userAgent) ?? pick(bytes, "Connection", "connection", .connection)
        case 12: pick(bytes, "Content-Type", "content-type", .contentType)
        case 13:
            pick(bytes, "Authorization", "authorization", .authorization) ?? pick(bytes, "Cache-Control", "cache-control", .cacheControl)
                ?? pick(bytes, "If-None-Match", "if-none-match", .ifNoneMatch)
        case 14: pick(bytes, "Content-Length", "content-length", .contentLength)
        case 15:
            pick(bytes, "Accept-Encoding", "accept-encoding", .acceptEncoding)
                ?? pick(bytes, "Accept-Language", "accept-language", .acceptLanguage)
        case 17:
            pick(bytes, "Transfer-Encoding", "transfer-encoding", .transferEncoding)
                ?? pick(bytes, "If-Modified-Since", "if-modified-since", .ifModifiedSince)
        default: nil
        }
    }

    /// `name` when `bytes` spell it as `usual`; the same name spelled `lowercase` when they spell
    /// that (a field keeps the spelling it arrived with); else `nil`.
    @inline(__always)
    private static func pick(
        _ bytes: UnsafeBufferPointer<UInt8>, _ usual: StaticString, _ lowercase: StaticString, _ name: @autoclosure () -> HTTPField.Name
    ) -> HTTPField.Name? {
        if bytes.spells(usual) { return name() }
        if bytes.spells(lowercase) { return HTTPField.Name(parsed: name().canonicalName) }
        return nil
    }
}

extension HTTPField.Name {
    /// HTTPTypes marks its own `.host` unavailable (HTTP/2's `:authority` carries it); HTTP/1.1 sends it.
    static let knownHost = HTTPField.Name("Host")!
}
