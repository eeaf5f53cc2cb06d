@testable import WhiskerProxies
import WhiskerCore

/// PROXY protocol v2 headers built byte by byte, for the tests.
enum ProxyHeaderBytes {
    /// A v2 header: signature, version 2 and `command` (1 PROXY, 0 LOCAL), `familyTransport`
    /// (0x11 TCP over IPv4, 0x21 over IPv6), the length, then `body`.
    static func v2(command: UInt8 = 1, familyTransport: UInt8, _ body: [UInt8]) -> [UInt8] {
        ProxyProtocolHeader.version2Signature + [0x20 | command, familyTransport, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    /// One TLV: type, 16-bit length, value.
    static func tlv(_ type: UInt8, _ value: [UInt8]) -> [UInt8] { [type, UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value }
}
