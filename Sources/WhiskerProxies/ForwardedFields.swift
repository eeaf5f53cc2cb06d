import HTTPTypes
import WhiskerCore
import WhiskerSockets

/// Who the client of a request is, and which scheme it used, as trusted reverse proxies say:
/// I/O-free, from the connection's peer (or its PROXY header's source) and the request's fields.
///
/// Each trusted proxy appends one entry to the one field it is configured to set
/// (``WhiskerCore/WhiskerServer/ForwardingField``, as nginx's `real_ip_header`), and passes
/// everything else through as the client sent it. So the hops are read from right to left, the
/// nearest proxy's first: at each trusted address, the next entry from the right of the field
/// that address sets names the hop before it; the first address that is not trusted is the client
/// (an untrusted hop can write anything to the left of itself, so nothing there is believed). A
/// field no proxy on the way sets is never read: a client's own `Forwarded` through an nginx that
/// sets `X-Forwarded-For` is just a field. A hop that names no usable address (`unknown`, an
/// obfuscated `_name`, garbage) stops the walk at the proxy that wrote it.
enum ForwardedFields {
    /// The client as far as the trusted proxies say, with its port when a hop says it (else 0),
    /// and its scheme (`http` or `https`; `scheme` unless a believed hop says otherwise).
    /// `field(address)` is the field the proxy at `address` sets, `nil` when it is not trusted.
    package static func client(
        peer: SocketAddress, scheme: String, fields: HTTPFields, field: (SocketAddress) -> WhiskerServer.ForwardingField?
    ) -> (address: SocketAddress, scheme: String) {
        var client = (address: peer, scheme: scheme)
        // Each field's entries not read yet, the leftmost first: a proxy reads from the right.
        var unread: [WhiskerServer.ForwardingField.Kind: [Hop]] = [:]
        while let kind = field(client.address)?.kind, kind != .none {
            var entries = unread[kind] ?? hops(fields, kind)
            guard let hop = entries.popLast(), let address = hop.address else { break }
            unread[kind] = entries
            client.address = address
            if let proto = hop.proto?.lowercased(), proto == "http" || proto == "https" { client.scheme = proto }
        }
        return client
    }

    /// One proxy's account of the hop before it.
    package struct Hop: Equatable {
        package var address: SocketAddress?
        package var proto: String?
    }

    static let forwarded = HTTPField.Name("Forwarded")!
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!

    /// The hops one field lists, leftmost (farthest) first.
    static func hops(_ fields: HTTPFields, _ kind: WhiskerServer.ForwardingField.Kind) -> [Hop] {
        switch kind {
        case .none: return []
        case .forwarded: return fields[values: forwarded].flatMap { split($0, on: ",") }.map(forwardedElement)
        case .xForwardedFor: break
        }
        let addresses = fields[values: forwardedFor].flatMap { split($0, on: ",") }
        let protos = fields[values: forwardedProto].flatMap { split($0, on: ",") }
        return addresses.enumerated().map { index, text in
            // One proto per address when the counts agree; else the nearest proxy's (the last)
            // describes the nearest hop only.
            let proto = protos.count == addresses.count ? protos[index] : (index == addresses.count - 1 ? protos.last : nil)
            return Hop(address: node(text), proto: proto.map(String.init))
        }
    }

    /// One `Forwarded` element: `for=...;proto=...;by=...`.
    private static func forwardedElement(_ element: Substring) -> Hop {
        var hop = Hop()
        for pair in split(element, on: ";") {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = pair[..<equals].lowercased()
            let value = unquoted(pair[pair.index(after: equals)...])
            switch name {
            case "for": hop.address = node(value)
            case "proto": hop.proto = String(value)
            default: break
            }
        }
        return hop
    }

    /// A node: `192.0.2.1`, `192.0.2.1:8080`, `[2001:db8::1]`, `[2001:db8::1]:8080`, or a bare IPv6
    /// address (as `X-Forwarded-For` often has it); `nil` for `unknown`, an obfuscated name or
    /// anything else.
    package static func node(_ text: some StringProtocol) -> SocketAddress? {
        var host = Substring(text)
        var port = 0
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = Int(rest.dropFirst()), (0...65535).contains(value) else { return nil }
                port = value
            }
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            // IPv4 with a port; an obfuscated port (`_x`) leaves the port unknown.
            let portText = host[host.index(after: colon)...]
            host = host[..<colon]
            if let value = Int(portText), (0...65535).contains(value) { port = value } else if !portText.hasPrefix("_") { return nil }
        }
        guard !host.isEmpty, host != "localhost", let address = try? SocketAddress(host: String(host), port: port) else { return nil }
        return address
    }

    /// `value` without its quotes and backslash escapes, if it is a quoted-string.
    private static func unquoted(_ value: Substring) -> Substring {
        guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return value }
        var result = ""
        var escaped = false
        for character in value.dropFirst().dropLast() {
            if !escaped && character == "\\" { escaped = true; continue }
            escaped = false
            result.append(character)
        }
        return Substring(result)
    }

    /// `text` split on `separator` outside quoted-strings, each part trimmed of spaces and tabs;
    /// empty parts dropped.
    private static func split(_ text: some StringProtocol, on separator: Character) -> [Substring] {
        let text = Substring(text)
        var parts: [Substring] = []
        var start = text.startIndex
        var inQuotes = false
        var escaped = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if escaped {
                escaped = false
            } else if inQuotes && character == "\\" {
                escaped = true
            } else if character == "\"" {
                inQuotes.toggle()
            } else if character == separator && !inQuotes {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        parts.append(text[start...])
        return parts.map { $0.trimmingOWS() }.filter { !$0.isEmpty }
    }
}
