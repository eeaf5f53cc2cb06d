package import HTTPTypes

/// The response fields the server decides, whatever the handler set, the same for HTTP/1.1 and
/// HTTP/2: the body's framing (`Content-Length`, `Transfer-Encoding`), the connection's
/// (`Connection`, `Keep-Alive`, `Proxy-Connection`) and `Date` (from ``DateCache``, once a
/// second). A handler's values for them are dropped; each protocol then writes its own. HTTP/2
/// also drops `Upgrade`, which means nothing there (RFC 9113 §8.2.2); HTTP/1.1 keeps it, for a
/// handler's `426 Upgrade Required`. The request id (`X-Request-ID`) is the other field the
/// server sets, when the handler did not, in the one place every response passes (`runHandler`).
package enum ServerOwnedFields {
    /// Whether the server, not the handler, decides `name` on a response of this protocol.
    @inline(__always)
    package static func contains(_ name: HTTPField.Name, http2: Bool) -> Bool {
        // Most fields of a response are none of these, and their lengths say so without comparing
        // a name (this runs for every field of every response); a name of one of their lengths is
        // compared with the fields of that length only (`ETag` with `Date`, not with all six).
        switch name.canonicalName.utf8.count {
        case 4: name == .date
        case 7: http2 && name == .upgrade
        case 10: name == .connection || name == keepAlive
        case 14: name == .contentLength
        case 16: name == proxyConnection
        case 17: name == .transferEncoding
        default: false
        }
    }

    private static let keepAlive = HTTPField.Name("Keep-Alive")!
    private static let proxyConnection = HTTPField.Name("Proxy-Connection")!
}
