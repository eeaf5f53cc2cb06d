public import WhiskerSockets
import WhiskerCore

/// The header a load balancer sends first on a connection in the PROXY protocol (HAProxy's
/// specification, versions 1 and 2): the address and port of the client it accepted, and of itself,
/// as it saw them; version 2 can add what it learned (ALPN, the requested authority, TLS details) as
/// TLVs. Read from the first bytes of an accepted connection, before TLS and HTTP.
///
/// `parse(_:maxLength:)` is I/O-free: give it the bytes received so far, and it answers whether a
/// whole header is there, how long it is, or why the bytes are not one (which closes the connection:
/// a listener that expects the header must never guess).
public struct ProxyProtocolHeader: Sendable, Hashable {
    /// 1 (the text form) or 2 (the binary form).
    public var version: Int
    /// The client the proxy accepted; `nil` when the proxy speaks for itself (a v2 `LOCAL`
    /// connection, such as a health check, `UNKNOWN` in v1, or an address family other than IPv4
    /// and IPv6): then the socket's own peer is the client.
    public var source: SocketAddress?
    /// The address the client connected to, at the proxy; `nil` as for ``source``.
    public var destination: SocketAddress?
    /// v2 `PP2_TYPE_ALPN`: the application protocol the client negotiated with the proxy.
    public var alpn: String?
    /// v2 `PP2_TYPE_AUTHORITY`: the host name the client asked the proxy for (TLS SNI).
    public var authority: String?
    /// v2 `PP2_SUBTYPE_SSL_VERSION`: the TLS version between client and proxy, e.g. `TLSv1.3`.
    public var tlsVersion: String?
    /// v2 `PP2_SUBTYPE_SSL_CIPHER`: the cipher between client and proxy.
    public var tlsCipher: String?

    /// Creates a header (for tests and for proxies written in Swift).
    public init(version: Int, source: SocketAddress? = nil, destination: SocketAddress? = nil, alpn: String? = nil,
                authority: String? = nil, tlsVersion: String? = nil, tlsCipher: String? = nil) {
        self.version = version
        self.source = source
        self.destination = destination
        self.alpn = alpn
        self.authority = authority
        self.tlsVersion = tlsVersion
        self.tlsCipher = tlsCipher
    }

    /// What the first bytes of a connection say.
    package enum Parsed: Sendable, Equatable {
        /// A prefix of a header: read more (bounded by the `maxLength` given).
        case needMore
        /// A whole header, `length` bytes long; what follows it is the connection's own data.
        case header(ProxyProtocolHeader, length: Int)
        /// Not a header, or a malformed or oversized one: close the connection, logging `reason`.
        case invalid(reason: String)
    }

    /// The longest v1 header, `\r\n` included (the specification's 107 bytes).
    package static let maxVersion1Length = 107
    /// The v2 signature: `\r\n\r\n\0\r\nQUIT\n`.
    package static let version2Signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]

    /// Parses the header at the start of `bytes`.
    /// - Parameters:
    ///   - bytes: What the connection has received so far.
    ///   - maxLength: The longest v2 header accepted (signature, addresses and TLVs); a longer one
    ///     is refused without waiting for it. 4096 by default (HAProxy's own TLVs take a few hundred).
    package static func parse(_ bytes: some Collection<UInt8>, maxLength: Int = 4096) -> Parsed {
        let bytes = Array(bytes.prefix(max(maxLength, maxVersion1Length) + 1))
        guard let first = bytes.first else { return .needMore }
        if first == version2Signature[0] { return parseVersion2(bytes, maxLength: maxLength) }
        if first == UInt8(ascii: "P") { return parseVersion1(bytes) }
        return .invalid(reason: "the connection does not start with a PROXY protocol header")
    }

    // MARK: Version 1

    private static let version1Prefix = Array("PROXY ".utf8)

    private static func parseVersion1(_ bytes: [UInt8]) -> Parsed {
        let prefixCount = min(bytes.count, version1Prefix.count)
        guard bytes[..<prefixCount].elementsEqual(version1Prefix[..<prefixCount]) else {
            return .invalid(reason: "the connection does not start with a PROXY protocol header")
        }
        guard let lineFeed = bytes.prefix(maxVersion1Length).firstIndex(of: UInt8(ascii: "\n")) else {
            return bytes.count >= maxVersion1Length
                ? .invalid(reason: "PROXY v1 header without CRLF in its first \(maxVersion1Length) bytes") : .needMore
        }
        guard lineFeed > 0, bytes[lineFeed - 1] == UInt8(ascii: "\r") else {
            return .invalid(reason: "PROXY v1 header ends with LF, not CRLF")
        }
        let line = bytes[..<(lineFeed - 1)]
        let length = lineFeed + 1
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard parts.count >= 2 else { return .invalid(reason: "PROXY v1 header without a protocol") }
        switch parts[1] {
        case "UNKNOWN":
            return .header(ProxyProtocolHeader(version: 1), length: length)
        case "TCP4", "TCP6":
            guard parts.count == 6 else {
                return .invalid(reason: "PROXY v1 \(parts[1]) header needs source, destination and two ports, got \(parts.count - 2) fields")
            }
            let ipv6 = parts[1] == "TCP6"
            guard let sourcePort = port(parts[4]), let destinationPort = port(parts[5]) else {
                return .invalid(reason: "PROXY v1 header with a bad port: \(LogValue.quoted(parts[4])) \(LogValue.quoted(parts[5]))")
            }
            guard let source = address(parts[2], port: sourcePort, ipv6: ipv6),
                  let destination = address(parts[3], port: destinationPort, ipv6: ipv6)
            else {
                return .invalid(reason: "PROXY v1 \(parts[1]) header with an address that is not \(ipv6 ? "IPv6" : "IPv4"): \(LogValue.quoted(parts[2])) \(LogValue.quoted(parts[3]))")
            }
            return .header(ProxyProtocolHeader(version: 1, source: source, destination: destination), length: length)
        default:
            return .invalid(reason: "PROXY v1 header with unknown protocol \(LogValue.quoted(parts[1].prefix(16)))")
        }
    }

    /// A v1 port: decimal 0...65535, no sign, no leading zero.
    private static func port(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              text == "0" || !text.hasPrefix("0"), text.count <= 5, let value = Int(text), value <= 65535
        else { return nil }
        return value
    }

    /// A numeric address of the family the header named (no host names, no brackets).
    private static func address(_ text: String, port: Int, ipv6: Bool) -> SocketAddress? {
        guard !text.isEmpty, text != "localhost", !text.hasPrefix("["),
              let address = try? SocketAddress(host: text, port: port), address.isIPv6 == ipv6
        else { return nil }
        return address
    }

    // MARK: Version 2

    private static func parseVersion2(_ bytes: [UInt8], maxLength: Int) -> Parsed {
        let signatureCount = min(bytes.count, version2Signature.count)
        guard bytes[..<signatureCount].elementsEqual(version2Signature[..<signatureCount]) else {
            return .invalid(reason: "the connection does not start with a PROXY protocol header")
        }
        guard bytes.count >= 16 else { return .needMore }
        guard bytes[12] >> 4 == 2 else { return .invalid(reason: "PROXY v2 header with version \(bytes[12] >> 4)") }
        let command = bytes[12] & 0x0F
        guard command <= 1 else { return .invalid(reason: "PROXY v2 header with unknown command \(command)") }
        let family = bytes[13] >> 4
        let transport = bytes[13] & 0x0F
        let length = 16 + (Int(bytes[14]) << 8 | Int(bytes[15]))
        guard length <= maxLength else {
            return .invalid(reason: "PROXY v2 header of \(length) bytes, more than the \(maxLength) accepted")
        }
        guard bytes.count >= length else { return .needMore }
        let body = bytes[16..<length]
        var header = ProxyProtocolHeader(version: 2)
        // LOCAL: the proxy's own connection (a health check); its addresses, if any, are ignored.
        guard command == 1 else { return .header(header, length: length) }
        guard transport <= 1 else { return .invalid(reason: "PROXY v2 header for a datagram transport") }
        let addressLength: Int
        switch family {
        case 0: addressLength = 0
        case 1: addressLength = 12
        case 2: addressLength = 36
        case 3: addressLength = 216
        default: return .invalid(reason: "PROXY v2 header with unknown address family \(family)")
        }
        guard body.count >= addressLength else {
            return .invalid(reason: "PROXY v2 header of \(body.count) address bytes, too short for its family (\(addressLength))")
        }
        if family == 1 || family == 2 {
            let size = family == 1 ? 4 : 16
            let start = body.startIndex
            let ports = start + 2 * size
            header.source = SocketAddress(networkBytes: body[start..<(start + size)], port: Int(body[ports]) << 8 | Int(body[ports + 1]))
            header.destination = SocketAddress(networkBytes: body[(start + size)..<ports], port: Int(body[ports + 2]) << 8 | Int(body[ports + 3]))
        }
        guard readTLVs(body.dropFirst(addressLength), into: &header) else {
            return .invalid(reason: "PROXY v2 header with a TLV that overruns it")
        }
        return .header(header, length: length)
    }

    /// Reads the TLVs this server reports; false when one overruns the header.
    private static func readTLVs(_ tlvs: ArraySlice<UInt8>, into header: inout ProxyProtocolHeader) -> Bool {
        var rest = tlvs
        while !rest.isEmpty {
            guard rest.count >= 3 else { return false }
            let type = rest[rest.startIndex]
            let length = Int(rest[rest.startIndex + 1]) << 8 | Int(rest[rest.startIndex + 2])
            guard rest.count >= 3 + length else { return false }
            let value = rest[(rest.startIndex + 3)..<(rest.startIndex + 3 + length)]
            switch type {
            case 0x01: header.alpn = String(decoding: value, as: UTF8.self)
            case 0x02: header.authority = String(decoding: value, as: UTF8.self)
            case 0x20:
                // PP2_TYPE_SSL: client (1 byte), verify (4 bytes), then sub-TLVs.
                guard value.count >= 5, readTLVs(value.dropFirst(5), into: &header) else { return false }
            case 0x21: header.tlsVersion = String(decoding: value, as: UTF8.self)
            case 0x23: header.tlsCipher = String(decoding: value, as: UTF8.self)
            default: break
            }
            rest = rest.dropFirst(3 + length)
        }
        return true
    }
}
