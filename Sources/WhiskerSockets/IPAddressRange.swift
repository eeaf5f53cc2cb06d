/// A block of IP addresses in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`), or one address
/// (`127.0.0.1`, `::1`): what a server trusts as its reverse proxies.
///
///     let proxies = try [IPAddressRange("10.0.0.0/8"), IPAddressRange("::1")]
///     proxies.contains { $0.contains(peer) }
///
/// An IPv4 range also matches the IPv4-mapped IPv6 form of its addresses (`::ffff:10.1.2.3`),
/// which is how IPv4 clients appear to a server listening on `::`.
public struct IPAddressRange: Sendable, Hashable, CustomStringConvertible {
    /// The network's address bytes (4 or 16), with the bits past the prefix cleared.
    private let network: [UInt8]
    /// How many leading bits an address must share with the network.
    public let prefixLength: Int

    /// Parses `address/prefix` or a lone address (a prefix of 32 or 128).
    /// - Throws: ``IPAddressRangeError`` when the address is not numeric IPv4 or IPv6, the prefix
    ///   is not a decimal number within the family's bits, or bits past the prefix are set
    ///   (`10.0.0.1/8`, most likely a typing error).
    public init(_ text: String) throws(IPAddressRangeError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard !parts[0].hasPrefix("["), parts[0] != "localhost",
              let bytes = (try? SocketAddress(host: String(parts[0]), port: 0))?.networkBytes
        else {
            throw IPAddressRangeError(text: text, reason: "not a numeric IPv4 or IPv6 address")
        }
        let bits = bytes.count * 8
        var length = bits
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  parts[1].count <= 3, let value = Int(parts[1]), value <= bits
            else { throw IPAddressRangeError(text: text, reason: "the prefix length must be 0...\(bits)") }
            length = value
        }
        guard Self.masked(bytes, to: length) == bytes else {
            throw IPAddressRangeError(text: text, reason: "bits are set past the /\(length) prefix (the network is \(Self.format(Self.masked(bytes, to: length)))/\(length))")
        }
        network = bytes
        prefixLength = length
    }

    /// Whether `address` (its host; the port does not matter) is in the range.
    public func contains(_ address: SocketAddress) -> Bool {
        contains(networkBytes: address.networkBytes)
    }

    /// Whether the address of these bytes (network order, 4 or 16) is in the range: for a caller
    /// that checks one address against several ranges.
    package func contains(networkBytes: [UInt8]) -> Bool {
        var bytes = networkBytes
        if network.count == 4, bytes.count == 16, bytes[..<12].elementsEqual(Self.mappedPrefix) {
            bytes = Array(bytes[12...])
        }
        guard bytes.count == network.count else { return false }
        return Self.masked(bytes, to: prefixLength) == network
    }

    /// `network/prefix`.
    public var description: String { "\(Self.format(network))/\(prefixLength)" }

    private static func format(_ bytes: [UInt8]) -> String {
        SocketAddress(networkBytes: bytes, port: 0)?.host ?? "?"
    }

    /// The 12 bytes before an IPv4 address in its IPv4-mapped IPv6 form.
    private static let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]

    private static func masked(_ bytes: [UInt8], to length: Int) -> [UInt8] {
        bytes.indices.map { index in
            let kept = min(8, max(0, length - index * 8))
            return kept == 8 ? bytes[index] : bytes[index] & ~(0xFF >> kept)
        }
    }
}

/// Text that is not an IP address range.
public struct IPAddressRangeError: Error, CustomStringConvertible, Sendable {
    /// The text as given.
    public var text: String
    /// Why it is not a range.
    public var reason: String
    public var description: String { "invalid address range \"\(text)\": \(reason)" }
}
