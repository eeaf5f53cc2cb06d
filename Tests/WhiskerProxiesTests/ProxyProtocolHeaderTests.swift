import Testing
@testable import WhiskerProxies
import WhiskerCore
import WhiskerSockets

/// The PROXY protocol header (HAProxy's specification, v1 and v2) from exact bytes.
@Suite struct ProxyProtocolHeaderTests {
    private func parse(_ text: String) -> ProxyProtocolHeader.Parsed { ProxyProtocolHeader.parse(Array(text.utf8)) }

    private func address(_ host: String, _ port: Int) -> SocketAddress { try! SocketAddress(host: host, port: port) }

    // MARK: v1

    @Test func v1_TCP4_AndWhatFollowsIsLeft() {
        let line = "PROXY TCP4 192.0.2.1 198.51.100.7 56324 443\r\n"
        #expect(parse(line + "GET / HTTP/1.1\r\n") == .header(
            ProxyProtocolHeader(version: 1, source: address("192.0.2.1", 56324), destination: address("198.51.100.7", 443)),
            length: line.utf8.count))
    }

    @Test func v1_TCP6_AndUnknown() {
        #expect(parse("PROXY TCP6 2001:db8::1 ::1 65535 0\r\n") == .header(
            ProxyProtocolHeader(version: 1, source: address("2001:db8::1", 65535), destination: address("::1", 0)), length: 36))
        #expect(parse("PROXY UNKNOWN\r\n") == .header(ProxyProtocolHeader(version: 1), length: 15))
        #expect(parse("PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535\r\n")
            == .header(ProxyProtocolHeader(version: 1), length: 59), "UNKNOWN ignores the rest of the line")
    }

    @Test func v1_Prefixes_NeedMore_ByteByByte() {
        let line = Array("PROXY TCP4 192.0.2.1 198.51.100.7 56324 443\r\n".utf8)
        for count in 1..<line.count {
            #expect(ProxyProtocolHeader.parse(line[..<count]) == .needMore, "\(count) bytes")
        }
    }

    @Test func v1_Malformed_IsInvalid() {
        let bad = [
            "PROXY TCP4 192.0.2.1 198.51.100.7 56324 443\n",          // LF without CR
            "PROXY TCP4 192.0.2.1 198.51.100.7 56324\r\n",            // a port missing
            "PROXY TCP4 192.0.2.1  198.51.100.7 56324 443\r\n",       // two spaces
            "PROXY TCP4 2001:db8::1 198.51.100.7 56324 443\r\n",      // IPv6 in TCP4
            "PROXY TCP6 192.0.2.1 ::1 56324 443\r\n",                 // IPv4 in TCP6
            "PROXY TCP4 localhost 198.51.100.7 56324 443\r\n",        // a name
            "PROXY TCP4 192.0.2.1 198.51.100.7 65536 443\r\n",        // port out of range
            "PROXY TCP4 192.0.2.1 198.51.100.7 0443 443\r\n",         // leading zero
            "PROXY TCP4 192.0.2.1 198.51.100.7 +443 443\r\n",         // sign
            "PROXY UDP4 192.0.2.1 198.51.100.7 56324 443\r\n",        // not TCP
            "PROXY\r\n",
            "GET / HTTP/1.1\r\n",                                     // no header at all
            "PROXX TCP4",
        ]
        for text in bad {
            guard case .invalid = parse(text) else {
                Issue.record("accepted: \(text.debugDescription)")
                continue
            }
        }
    }

    @Test func v1_WithoutCRLFIn107Bytes_IsInvalid_WithoutWaiting() {
        let long = "PROXY TCP6 " + String(repeating: "1", count: 120)
        #expect(parse(long) == .invalid(reason: "PROXY v1 header without CRLF in its first 107 bytes"))
    }

    // MARK: v2

    private func v2(command: UInt8 = 1, familyTransport: UInt8, _ body: [UInt8]) -> [UInt8] {
        ProxyHeaderBytes.v2(command: command, familyTransport: familyTransport, body)
    }

    private func tlv(_ type: UInt8, _ value: [UInt8]) -> [UInt8] { ProxyHeaderBytes.tlv(type, value) }

    @Test func v2_IPv4_WithTLVs() {
        let addresses: [UInt8] = [192, 0, 2, 1, 198, 51, 100, 7, 0xDC, 0x04, 0x01, 0xBB]
        let ssl = tlv(0x20, [0x01, 0, 0, 0, 0] + tlv(0x21, Array("TLSv1.3".utf8)) + tlv(0x23, Array("TLS_AES_128_GCM_SHA256".utf8)))
        let header = v2(familyTransport: 0x11, addresses + tlv(0x01, Array("h2".utf8)) + tlv(0x02, Array("cats.example".utf8)) + tlv(0x04, [0, 0]) + ssl)
        #expect(ProxyProtocolHeader.parse(header + Array("PRI * HTTP/2.0".utf8)) == .header(
            ProxyProtocolHeader(version: 2, source: address("192.0.2.1", 56324), destination: address("198.51.100.7", 443), alpn: "h2",
                                authority: "cats.example", tlsVersion: "TLSv1.3", tlsCipher: "TLS_AES_128_GCM_SHA256"),
            length: header.count))
        for count in 1..<header.count {
            #expect(ProxyProtocolHeader.parse(header[..<count]) == .needMore, "\(count) bytes")
        }
    }

    @Test func v2_IPv6_Local_AndUnspec() {
        let loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]
        let ipv6 = v2(familyTransport: 0x21, [0x20, 0x01, 0x0D, 0xB8] + Array(repeating: 0, count: 11) + [1] + loopback + [0x30, 0x39, 0x1F, 0x90])
        #expect(ProxyProtocolHeader.parse(ipv6) == .header(
            ProxyProtocolHeader(version: 2, source: address("2001:db8::1", 12345), destination: address("::1", 8080)), length: ipv6.count))
        let local = v2(command: 0, familyTransport: 0x11, [127, 0, 0, 1, 127, 0, 0, 1, 0, 1, 0, 2])
        #expect(ProxyProtocolHeader.parse(local) == .header(ProxyProtocolHeader(version: 2), length: local.count), "LOCAL: the proxy's own connection")
        let unspec = v2(familyTransport: 0x00, [])
        #expect(ProxyProtocolHeader.parse(unspec) == .header(ProxyProtocolHeader(version: 2), length: 16))
    }

    @Test func v2_Malformed_IsInvalid() {
        let addresses: [UInt8] = [192, 0, 2, 1, 198, 51, 100, 7, 0xDC, 0x04, 0x01, 0xBB]
        var wrongVersion = v2(familyTransport: 0x11, addresses)
        wrongVersion[12] = 0x11
        let bad: [(String, [UInt8])] = [
            ("version 1 in the v2 form", wrongVersion),
            ("command 2", v2(command: 2, familyTransport: 0x11, addresses)),
            ("datagram", v2(familyTransport: 0x12, addresses)),
            ("family 4", v2(familyTransport: 0x41, addresses)),
            ("IPv6 family with IPv4's length", v2(familyTransport: 0x21, addresses)),
            ("a TLV that overruns", v2(familyTransport: 0x11, addresses + [0x01, 0x00, 0x09, 0x68])),
            ("a broken signature", [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0B, 0x21, 0x11, 0, 12]),
        ]
        for (why, bytes) in bad {
            guard case .invalid = ProxyProtocolHeader.parse(bytes) else {
                Issue.record("accepted: \(why)")
                continue
            }
        }
    }

    @Test func v2_Oversized_IsRefused_BeforeItArrives() {
        // Only the fixed 16 bytes have come; they announce 5,000 more.
        let start = ProxyProtocolHeader.version2Signature + [0x21, 0x11, 0x13, 0x88]
        #expect(ProxyProtocolHeader.parse(start) == .invalid(reason: "PROXY v2 header of 5016 bytes, more than the 4096 accepted"))
        #expect(ProxyProtocolHeader.parse(start, maxLength: 8192) == .needMore)
    }

    @Test func socketAddress_FromNetworkBytes() {
        #expect(SocketAddress(networkBytes: [10, 0, 0, 255], port: 80) == address("10.0.0.255", 80))
        #expect(SocketAddress(networkBytes: [0x20, 0x01, 0x0D, 0xB8] + Array(repeating: 0, count: 12), port: 1) == address("2001:db8::", 1))
        #expect(SocketAddress(networkBytes: [1, 2, 3], port: 80) == nil)
        #expect(SocketAddress(networkBytes: [1, 2, 3, 4], port: 70000) == nil)
    }
}
