#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
public import Darwin
#endif

/// An IPv4 or IPv6 socket address (a numeric host and a port), or a Unix domain socket's path.
///
///     let address = try SocketAddress(host: "::1", port: 8080)
///     print(address)   // [::1]:8080
///     let local = try SocketAddress(unixPath: "/run/cats.sock")
///     print(local)     // unix:/run/cats.sock
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    @usableFromInline
    enum Storage: Sendable, Hashable {
        case v4(host: String, port: Int)
        case v6(host: String, port: Int)
        /// A Unix domain socket: its path, empty for an unnamed one (a connecting client's).
        case unix(path: String)
    }
    @usableFromInline let storage: Storage

    /// The numeric host, `127.0.0.1` or `::1`; for a Unix domain socket, what ``description`` says.
    public var host: String {
        switch storage {
        case .v4(let host, _), .v6(let host, _): host
        case .unix: description
        }
    }

    /// The port number; 0 for a Unix domain socket.
    public var port: Int {
        switch storage {
        case .v4(_, let port), .v6(_, let port): port
        case .unix: 0
        }
    }

    /// The path of a Unix domain socket (empty for an unnamed one), `nil` for IPv4 and IPv6.
    public var unixPath: String? {
        if case .unix(let path) = storage { return path }
        return nil
    }

    /// True for an IPv6 address.
    public var isIPv6: Bool {
        if case .v6 = storage { return true }
        return false
    }

    /// `host:port`, with IPv6 hosts in brackets: `127.0.0.1:8080`, `[::1]:8080`; `unix:/run/cats.sock`
    /// for a Unix domain socket (`unix:` alone for an unnamed one, as a connecting client's is).
    public var description: String {
        switch storage {
        case .v4(let host, let port): "\(host):\(port)"
        case .v6(let host, let port): "[\(host)]:\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }

    /// The longest path a Unix domain socket address holds (`sun_path` less its terminating zero).
    public static let maxUnixPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Creates the address of a Unix domain socket.
    /// - Parameter unixPath: The socket file's path, at most ``maxUnixPathLength`` bytes of UTF-8
    ///   and without a zero byte.
    /// - Throws: ``SocketAddressError`` for an empty path, one too long or one with a zero byte.
    public init(unixPath: String) throws(SocketAddressError) {
        guard !unixPath.isEmpty else { throw SocketAddressError(host: unixPath, port: 0, reason: "a Unix domain socket needs a path") }
        guard unixPath.utf8.count <= Self.maxUnixPathLength else {
            throw SocketAddressError(host: unixPath, port: 0, reason: "a Unix domain socket's path is at most \(Self.maxUnixPathLength) bytes, this one is \(unixPath.utf8.count)")
        }
        guard !unixPath.utf8.contains(0) else { throw SocketAddressError(host: unixPath, port: 0, reason: "a zero byte in a Unix domain socket's path") }
        storage = .unix(path: unixPath)
    }

    /// Creates an address from a numeric IPv4 or IPv6 host (`0.0.0.0`, `::`, `127.0.0.1`, `::1`)
    /// or `localhost`, and a port (0 lets the system pick one when binding).
    /// - Parameters:
    ///   - host: A numeric address, or `localhost` for `127.0.0.1`. Brackets around IPv6 are accepted.
    ///   - port: A port from 0 to 65535.
    /// - Throws: ``SocketAddressError`` when the host is not a numeric address or the port is out of range.
    public init(host: String, port: Int) throws(SocketAddressError) {
        guard (0...65535).contains(port) else { throw SocketAddressError(host: host, port: port, reason: "port out of range 0...65535") }
        var host = host
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" { host = "127.0.0.1" }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            storage = .v4(host: host, port: port)
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            storage = .v6(host: Self.format(v6), port: port)
        } else {
            throw SocketAddressError(host: host, port: port, reason: "not a numeric IPv4 or IPv6 address")
        }
    }

    init(storage: Storage) { self.storage = storage }

    /// Reads an address the kernel filled in (`accept`, `getsockname`).
    init?(_ raw: UnsafePointer<sockaddr_storage>) {
        switch Int32(raw.pointee.ss_family) {
        case AF_INET:
            let sin = UnsafeRawPointer(raw).load(as: sockaddr_in.self)
            var address = sin.sin_addr
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
            storage = .v4(host: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                          port: Int(UInt16(bigEndian: sin.sin_port)))
        case AF_INET6:
            let sin6 = UnsafeRawPointer(raw).load(as: sockaddr_in6.self)
            storage = .v6(host: Self.format(sin6.sin6_addr), port: Int(UInt16(bigEndian: sin6.sin6_port)))
        case AF_UNIX:
            var sun = UnsafeRawPointer(raw).load(as: sockaddr_un.self)
            // A name in the abstract namespace starts with a zero byte: shown as `@name`, as systemd
            // and ss(8) show it.
            let path = withUnsafeBytes(of: &sun.sun_path) { bytes in
                bytes.first == 0 && bytes.count > 1 && bytes[1] != 0
                    ? "@" + String(decoding: bytes.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
                    : String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            storage = .unix(path: path)
        default:
            return nil
        }
    }

    /// An address from its bytes in network order, as a PROXY protocol v2 header carries them:
    /// 4 bytes for IPv4, 16 for IPv6; `nil` for any other count.
    package init?(networkBytes bytes: some Collection<UInt8>, port: Int) {
        guard (0...65535).contains(port) else { return nil }
        switch bytes.count {
        case 4:
            storage = .v4(host: bytes.map { String($0) }.joined(separator: "."), port: port)
        case 16:
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { raw in raw.copyBytes(from: bytes) }
            storage = .v6(host: Self.format(address), port: port)
        default:
            return nil
        }
    }

    /// The address's bytes in network order: 4 for IPv4, 16 for IPv6 (the inverse of
    /// ``init(networkBytes:port:)``); none for a Unix domain socket, which no address range holds.
    package var networkBytes: [UInt8] {
        if let address = ipv4Value { return withUnsafeBytes(of: address.bigEndian) { Array($0) } }
        if let address = ipv6Value { return withUnsafeBytes(of: (address.high.bigEndian, address.low.bigEndian)) { Array($0) } }
        return []
    }

    /// An IPv4 address as one number, its 4 bytes read big-endian (`10.0.0.1` is `0x0A00_0001`);
    /// `nil` for IPv6 and Unix domain sockets. Unlike ``networkBytes`` it allocates nothing, for
    /// what runs on every request (a rate limiter's key).
    package var ipv4Value: UInt32? {
        guard case .v4(let host, _) = storage else { return nil }
        var address = in_addr()
        guard host.withCString({ inet_pton(AF_INET, $0, &address) }) == 1 else { return nil }
        return UInt32(bigEndian: address.s_addr)
    }

    /// An IPv6 address as two numbers, its first and last 8 bytes each read big-endian: `high` is
    /// the /64 prefix (`2001:db8:0:1::5` has `high` `0x2001_0DB8_0000_0001`); `nil` for IPv4 and
    /// Unix domain sockets. Allocates nothing, like ``ipv4Value``.
    package var ipv6Value: (high: UInt64, low: UInt64)? {
        guard case .v6(let host, _) = storage else { return nil }
        var address = in6_addr()
        guard host.withCString({ inet_pton(AF_INET6, $0, &address) }) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { bytes in
            (UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }

    private static func format(_ address: in6_addr) -> String {
        var address = address
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Calls `body` with this address as a `sockaddr` and its length, for `bind` or `connect`.
    public func withSockAddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(SocketError) -> Result) throws(SocketError) -> Result {
        switch storage {
        case .v4(let host, let port):
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = UInt16(port).bigEndian
            inet_pton(AF_INET, host, &sin.sin_addr)
            return try Self.withGenericPointer(to: &sin, body)
        case .v6(let host, let port):
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = UInt16(port).bigEndian
            inet_pton(AF_INET6, host, &sin6.sin6_addr)
            return try Self.withGenericPointer(to: &sin6, body)
        case .unix(let path):
            var sun = sockaddr_un()
            sun.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &sun.sun_path) { bytes in bytes.copyBytes(from: path.utf8.prefix(Self.maxUnixPathLength)) }
            return try Self.withGenericPointer(to: &sun, body)
        }
    }

    /// Views a `sockaddr_in` or `sockaddr_in6` as the generic `sockaddr` the socket calls take.
    private static func withGenericPointer<Address, Result>(
        to address: inout Address,
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SocketError) -> Result
    ) throws(SocketError) -> Result {
        try withUnsafePointer(to: &address) { (pointer) throws(SocketError) -> Result in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (generic) throws(SocketError) -> Result in
                try body(generic, socklen_t(MemoryLayout<Address>.size))
            }
        }
    }

    /// `AF_INET`, `AF_INET6` or `AF_UNIX`.
    public var family: Int32 {
        switch storage {
        case .v4: AF_INET
        case .v6: AF_INET6
        case .unix: AF_UNIX
        }
    }
}

/// A host and port that do not make a socket address.
public struct SocketAddressError: Error, CustomStringConvertible, Sendable {
    /// The host as given.
    public var host: String
    /// The port as given.
    public var port: Int
    /// Why it is not an address.
    public var reason: String
    public var description: String { "invalid address \(host) port \(port): \(reason)" }
}
