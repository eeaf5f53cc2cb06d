import Logging
import Testing
@testable import WhiskerProxies
import WhiskerCore
import WhiskerTesting

/// Behind a reverse proxy: the PROXY protocol on a listener, `X-Forwarded-For` from trusted
/// addresses, and what the handler's `RequestContext` and the access log then say. (The header's
/// parsing: Connection/ProxyProtocolHeaderTests.swift; after TLS: WhiskerTLSTests.)
@Suite struct ReverseProxyTests {
    private static let request = "GET /client HTTP/1.1\r\nHost: x\r\n\r\n"

    /// A server whose cleartext listener requires the PROXY protocol from `trusted`, logging to `lines`.
    private func proxyServer(trusting trusted: [String] = ["127.0.0.1"], lines: LoggedLines = LoggedLines(),
                             _ configure: (inout WhiskerServer.Configuration) -> Void = { _ in }) throws -> WhiskerServer {
        let proxies = try WhiskerServer.ReverseProxies(trusting: trusted)
        let server = makeTestServer {
            $0.listeners = $0.listeners.map { $0.expectingProxyProtocol() }
            $0.reverseProxies = proxies
            $0.logger = .capturing(lines, level: .trace)
            configure(&$0)
        }
        try registerClientRoute(on: server)
        return server
    }

    /// A v2 PROXY header for TCP over IPv4 from `source` to 127.0.0.1:8080, with `tlvs` after the addresses.
    private static func version2(source: [UInt8], sourcePort: UInt16, tlvs: [UInt8] = [], command: UInt8 = 1) -> [UInt8] {
        ProxyHeaderBytes.v2(command: command, familyTransport: 0x11, source + [127, 0, 0, 1] + [UInt8(sourcePort >> 8), UInt8(sourcePort & 0xFF), 0x1F, 0x90] + tlvs)
    }

    @Test func version1_TheHeadersSourceIsTheClient_TheSocketsPeerStays() async throws {
        let server = try proxyServer()
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            // Header and request in one write: nothing after the header may be lost.
            try await client.send("PROXY TCP4 203.0.113.7 127.0.0.1 56324 8080\r\n" + Self.request)
            #expect(try await client.readResponse().text == "203.0.113.7:56324 | http | 127.0.0.1 | v1 - - -")
            try await client.send(Self.request)
            #expect(try await client.readResponse().text == "203.0.113.7:56324 | http | 127.0.0.1 | v1 - - -", "for every request of the connection")
        }
    }

    @Test func version2_WithTLVs_InPiecesByteByByte() async throws {
        // One byte a send is slow on a loaded machine: the header's timeout is not what this tests.
        let server = try proxyServer { $0.reverseProxies?.proxyHeaderTimeout = .seconds(60) }
        let tlvs = ProxyHeaderBytes.tlv(0x01, Array("h2".utf8)) + ProxyHeaderBytes.tlv(0x02, Array("cats.example".utf8))
            + ProxyHeaderBytes.tlv(0x20, [0x01, 0, 0, 0, 0] + ProxyHeaderBytes.tlv(0x21, Array("TLSv1.3".utf8)))
        let header = Self.version2(source: [198, 51, 100, 9], sourcePort: 4711, tlvs: tlvs)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            for byte in header { try await client.send([byte]) }
            try await client.send(Self.request)
            #expect(try await client.readResponse().text == "198.51.100.9:4711 | https | 127.0.0.1 | v2 h2 cats.example TLSv1.3",
                    "the proxy's TLS with the client makes the scheme https")
        }
    }

    @Test func version2Local_TheSocketsPeerIsTheClient() async throws {
        let server = try proxyServer()
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send(Self.version2(source: [0, 0, 0, 0], sourcePort: 0, command: 0) + Array(Self.request.utf8))
            let text = try await client.readResponse().text
            #expect(text.hasPrefix("127.0.0.1:") && text.hasSuffix("| http | 127.0.0.1 | v2 - - -"), "\(text)")
        }
    }

    @Test(arguments: [
        ("GET /client HTTP/1.1\r\nHost: x\r\n\r\n", "does not start with a PROXY protocol header"),
        ("PROXY TCP4 203.0.113.7 127.0.0.1 56324\r\n", "needs source, destination and two ports"),
        ("PROXY TCP4 203.0.113.7 127.0.0.1 56324 8080\n", "ends with LF, not CRLF"),
        ("PROXY " + String(repeating: "X", count: 120), "without CRLF in its first 107 bytes"),
    ])
    func malformedHeader_ClosesWithALogLine(_ sent: String, _ reason: String) async throws {
        let lines = LoggedLines()
        let server = try proxyServer(lines: lines)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send(sent)
            #expect(try await client.readUntilClose() == "", "closed without an answer")
        }
        let logged = lines.all.map(\.0)
        #expect(logged.contains { $0.contains("without a PROXY protocol header") && $0.contains(reason) }, "\(logged)")
    }

    @Test func oversizedVersion2_IsRefusedBeforeItArrives() async throws {
        let lines = LoggedLines()
        let server = try proxyServer(lines: lines) { $0.reverseProxies?.maxProxyHeaderLength = 256 }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            // Announces 300 bytes of TLVs and sends only the first 16 bytes.
            try await client.send(ProxyProtocolHeader.version2Signature + [0x21, 0x11, 0x01, 0x2C])
            #expect(try await client.readUntilClose() == "")
        }
        #expect(lines.all.contains { $0.0.contains("more than the 256 accepted") })
    }

    @Test func untrustedPeer_IsClosedBeforeAnythingIsRead() async throws {
        let lines = LoggedLines()
        let server = try proxyServer(trusting: ["10.0.0.0/8"], lines: lines)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            #expect(try await client.isClosedByServer())
        }
        #expect(lines.all.contains { $0.0.contains("not a trusted proxy") && $0.1["peer"]?.description.hasPrefix("127.0.0.1:") == true })
    }

    @Test func incompleteHeader_IsClosedAtTheHeaderTimeout() async throws {
        let lines = LoggedLines()
        let server = try proxyServer(lines: lines) { $0.reverseProxies?.proxyHeaderTimeout = .milliseconds(300) }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("PROXY TCP4 203.0.")
            #expect(try await client.readUntilClose() == "")
        }
        #expect(lines.all.contains { $0.0.contains("no complete PROXY header within") })
    }

    @Test func proxyHeaderFromATrustedProxy_ThenItsXForwardedFor() async throws {
        // HAProxy (127.0.0.1) in front of another proxy (10.0.0.9, trusted) that sets X-Forwarded-For.
        let server = try proxyServer(trusting: ["127.0.0.1", "10.0.0.0/8"])
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("PROXY TCP4 10.0.0.9 127.0.0.1 40000 8080\r\nGET /client HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.7\r\n\r\n")
            #expect(try await client.readResponse().text == "203.0.113.7:0 | http | 127.0.0.1 | v1 - - -")
            // An untrusted PROXY source's own X-Forwarded-For is not believed.
            try await client.send("GET /client HTTP/1.1\r\nHost: x\r\n\r\n")
            let second = try await TestClient.connect(to: address)
            try await second.send("PROXY TCP4 192.0.2.5 127.0.0.1 40000 8080\r\nGET /client HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.7\r\n\r\n")
            #expect(try await second.readResponse().text == "192.0.2.5:40000 | http | 127.0.0.1 | v1 - - -")
        }
    }

    @Test func xForwardedFor_OnlyFromTrustedAddresses_AndInTheAccessLog() async throws {
        let request = "GET /client HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 198.51.100.1, 203.0.113.7\r\nX-Forwarded-Proto: https\r\n\r\n"
        for trusted in [true, false] {
            let lines = LoggedLines()
            let accessLog = Logger.capturing(lines, label: "access")
            let proxies = trusted ? try WhiskerServer.ReverseProxies(trusting: ["127.0.0.0/8"]) : nil
            let server = makeTestServer {
                $0.reverseProxies = proxies
                $0.accessLog = accessLog
            }
            try registerClientRoute(on: server)
            try await server.withRunning { address in
                let client = try await TestClient.connect(to: address)
                try await client.send(request)
                let text = try await client.readResponse().text
                if trusted {
                    #expect(text == "203.0.113.7:0 | https | 127.0.0.1 | none")
                } else {
                    #expect(text.hasPrefix("127.0.0.1:") && text.hasSuffix("| http | 127.0.0.1 | none"), "never trusted by default: \(text)")
                }
            }
            let client = lines.all.first?.1["client"]?.description
            #expect(trusted ? client == "203.0.113.7" : client?.hasPrefix("127.0.0.1:") == true, "\(String(describing: client))")
        }
    }
}
