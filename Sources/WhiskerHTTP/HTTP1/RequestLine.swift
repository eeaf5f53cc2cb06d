import HTTPTypes
import WhiskerSockets

/// `method SP request-target SP HTTP-version`, each separated by exactly one space.
package struct RequestLine {
    var method: HTTPRequest.Method
    var path: String
    var authority: String?
    var isHTTP11: Bool

    init(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPRejection) {
        guard let firstSpace = line.firstIndex(of: .space) else { throw .badRequest("malformed request line") }
        guard let secondSpace = line[(firstSpace + 1)...].firstIndex(of: .space) else { throw .badRequest("malformed request line") }
        let methodBytes = UnsafeBufferPointer(rebasing: line[0..<firstSpace])
        let target = UnsafeBufferPointer(rebasing: line[(firstSpace + 1)..<secondSpace])
        let version = UnsafeBufferPointer(rebasing: line[(secondSpace + 1)...])

        guard let method = KnownRequestTokens.method(methodBytes) ?? (methodBytes.isEmpty || !methodBytes.allSatisfy(\.isTokenCharacter)
            ? nil : HTTPRequest.Method(String(decoding: methodBytes, as: UTF8.self)))
        else { throw .badRequest("invalid method") }
        self.method = method

        if version.spells("HTTP/1.1") {
            isHTTP11 = true
        } else if version.spells("HTTP/1.0") {
            isHTTP11 = false
        } else if version.count == 8, version.starts(with: "HTTP/".utf8), version[5].isDigit, version[6] == UInt8(ascii: "."), version[7].isDigit {
            // RFC 9110 section 6.2: a higher minor version of a major version we implement is
            // processed as the highest minor version we implement; another major version is 505.
            guard version[5] == UInt8(ascii: "1") else {
                throw HTTPRejection(.httpVersionNotSupported, "HTTP version \(String(decoding: version, as: UTF8.self)) is not supported")
            }
            isHTTP11 = true
        } else {
            throw .badRequest("malformed HTTP version")
        }

        guard !target.isEmpty else { throw .badRequest("empty request target") }
        guard target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .badRequest("invalid character in request target") }
        guard !target.contains(UInt8(ascii: "#")) else { throw RequestLine.fragmentRejection }
        let text = String(decoding: target, as: UTF8.self)
        if target[0] == UInt8(ascii: "/") {
            path = text
        } else if text == "*" {
            guard method == .options else { throw .badRequest("asterisk-form target with a method other than OPTIONS") }
            path = text
        } else if let rest = Self.afterHTTPScheme(text) {
            // absolute-form (RFC 9112 section 3.2.2): the authority in the target wins over Host.
            let pathStart = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            guard pathStart > rest.startIndex else { throw .badRequest("absolute-form target without a host") }
            // Checked as Host is: no userinfo, no list, only what RFC 3986 allows in a host and port.
            let targetAuthority = rest[..<pathStart]
            guard HeadParser.isValidHost(targetAuthority) else {
                throw .badRequest("invalid authority \"\(targetAuthority)\" in the request target")
            }
            authority = String(targetAuthority)
            let pathPart = rest[pathStart...]
            path = pathPart.first == "/" ? String(pathPart) : "/" + pathPart
        } else {
            throw .badRequest("unsupported request target form")
        }
    }
}

extension RequestLine {
    /// A fragment (`#…`) is the client's own business: RFC 9112 §3.2 has no place for one in a
    /// request-target, so a target that carries one is refused rather than routed without it.
    package static let fragmentRejection = HTTPRejection.badRequest("request target has a fragment (#…), which a client must not send")

    /// What follows `http://` or `https://` (scheme case-insensitive), or `nil`.
    static func afterHTTPScheme(_ text: String) -> Substring? {
        for scheme in ["http://", "https://"] where text.utf8.count > scheme.utf8.count {
            let prefix = text.prefix(scheme.count)
            if prefix.lowercased() == scheme { return text.dropFirst(scheme.count) }
        }
        return nil
    }
}
