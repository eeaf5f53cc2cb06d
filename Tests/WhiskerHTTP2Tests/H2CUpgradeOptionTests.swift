import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerProxies
import WhiskerTesting

/// `Upgrade: h2c` is a listener option, off by default: a 101 relayed by a proxy that forwards
/// `Upgrade` (nginx's WebSocket recipe, HAProxy's `mode http`) is a tunnel past the proxy (h2c
/// smuggling, issue 38). Off, the request is served as HTTP/1.1 and the connection stays HTTP/1.1;
/// on, where asked, the upgrade works as before; the server-wide switch never reaches a server that
/// trusts proxies, a listener's own `acceptsH2CUpgrade` does.
@Suite struct H2CUpgradeOptionTests {
    /// The h2csmuggler request: `Upgrade: h2c`, `HTTP2-Settings`, both as connection options.
    static let upgradeRequest = "GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
        + "HTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n"

    /// Sends the upgrade request, then (as a smuggler does, without waiting) the HTTP/2 preface
    /// and a request on stream 3; returns what the server sends until it closes or answers.
    private func smuggle(to address: SocketAddress) async throws -> (head: TestResponse?, h2: HTTP2FrameReader, raw: String) {
        let socket = try await TestClient.connect(to: address)
        try await socket.send(Self.upgradeRequest)
        var received: [UInt8] = []
        while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") { received += try await socket.receiveSome() }
        let text = String(decoding: received, as: UTF8.self)
        let h2 = HTTP2FrameReader()
        guard text.hasPrefix("HTTP/1.1 101") else {
            // Served as HTTP/1.1: the preface that follows is not HTTP/2 to this connection.
            try await socket.send(HTTP2Frame.preface + HTTP2Frame.settings().bytes)
            let rest = try await socket.readUntilClose()
            return (nil, h2, text + rest)
        }
        let headEnd = (0...(received.count - 4)).first { Array(received[$0..<$0 + 4]) == Array("\r\n\r\n".utf8) }! + 4
        h2.receive(Array(received[headEnd...]))
        try await socket.send(HTTP2Frame.preface + HTTP2Frame.settings().bytes)
        try await h2.read(from: socket) { $0.frames(ofType: HTTP2Frame.Kind.data).contains { $0.streamID == 1 && $0.has(HTTP2Frame.Flag.endStream) } }
        return (nil, h2, text)
    }

    @Test func byDefault_UpgradeH2c_IsServedAsHTTP1_NoSwitch() async throws {
        let server = makeHTTP2Server()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let (_, h2, raw) = try await smuggle(to: address)
            #expect(raw.hasPrefix("HTTP/1.1 200"), "served as HTTP/1.1: \(raw.prefix(60))")
            #expect(raw.contains("hello"))
            #expect(!raw.contains("101 Switching Protocols"))
            #expect(h2.frames.isEmpty, "no HTTP/2 frame after the upgrade attempt")
            // The preface that follows is an HTTP/1.1 request line to this connection, refused.
            #expect(raw.split(separator: "HTTP/1.1 ").count == 2, "a second HTTP/1.1 answer, to the preface: \(raw)")
        }
    }

    /// The core asks a handover only about an HTTP/1.1 request without a body: an upgrade that
    /// comes with one (or over HTTP/1.0) is served as HTTP/1.1, even where the upgrade is on.
    @Test func anUpgradeWithABody_OrHTTP10_IsServedAsHTTP1() async throws {
        let server = makeHTTP2Server { $0.acceptsH2CUpgrade = true }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            for request in [
                "POST /echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\nContent-Length: 3\r\n\r\nabc",
                "GET /hello HTTP/1.0\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n",
            ] {
                let client = try await TestClient.connect(to: address)
                try await client.send(request)
                let response = try await client.readResponse()
                #expect(response.status == 200 && ["abc", "hello"].contains(response.text), "\(request): \(response.status) \(response.text)")
            }
            let (_, h2, raw) = try await smuggle(to: address)
            #expect(raw.hasPrefix("HTTP/1.1 101") && !h2.frames.isEmpty, "without a body, the upgrade is taken (so the test can fail)")
        }
    }

    @Test func priorKnowledge_IsServed_WithTheUpgradeOff() async throws {
        let server = makeHTTP2Server()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let socket = try await TestClient.connect(to: address)
            let h2 = HTTP2TestClient()
            let id = h2.request(path: "/hello")
            try await h2.exchange(over: socket) { $0.closed[id] != nil }
            #expect(h2.status(id) == "200")
        }
    }

    @Test func switchedOn_UpgradeH2c_Gets101_ThenHTTP2OnStream1() async throws {
        let server = makeHTTP2Server { $0.acceptsH2CUpgrade = true }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let (_, h2, raw) = try await smuggle(to: address)
            #expect(raw.hasPrefix("HTTP/1.1 101 Switching Protocols"))
            #expect(h2.status(1) == "200")
            #expect(h2.body(1) == Array("hello".utf8))
        }
    }

    /// The server-wide switch does not reach a server that trusts reverse proxies.
    @Test func serverWideSwitch_WithTrustedProxies_DoesNotUpgrade() async throws {
        let server = makeHTTP2Server {
            $0.acceptsH2CUpgrade = true
            $0.reverseProxies = try? .init(trusting: ["127.0.0.1"])
        }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let (_, h2, raw) = try await smuggle(to: address)
            #expect(raw.hasPrefix("HTTP/1.1 200") && !raw.contains(" 101 "))
            #expect(h2.frames.isEmpty)
        }
    }

    /// A listener's own choice wins: on where it says so (proxies trusted or not), off where it
    /// says so (the server-wide switch on).
    @Test func aListenersOwnChoice_Wins() async throws {
        let server = makeHTTP2Server {
            $0.acceptsH2CUpgrade = true
            $0.reverseProxies = try? .init(trusting: ["10.0.0.0/8"])
            $0.listeners = [.tcp(port: 0).acceptingH2CUpgrade(true), .tcp(port: 0).acceptingH2CUpgrade(false), .tcp(port: 0)]
        }
        try registerBasicRoutes(on: server)
        try await server.withRunningAddresses { addresses in
            let upgraded = try await smuggle(to: addresses[0])
            #expect(upgraded.raw.hasPrefix("HTTP/1.1 101") && upgraded.h2.status(1) == "200", "asked on the listener")
            for address in addresses.dropFirst() {
                let served = try await smuggle(to: address)
                #expect(served.raw.hasPrefix("HTTP/1.1 200") && served.h2.frames.isEmpty, "not asked on \(address)")
            }
        }
    }
}
