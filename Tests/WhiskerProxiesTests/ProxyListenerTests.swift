import Testing
import WhiskerCore
import WhiskerProxies
import WhiskerTesting

/// Trusted proxies and the listener list: a peer on a Unix domain socket, and which implied
/// listeners expect the PROXY protocol.
@Suite struct ProxyListenerTests {
    private static func get(_ path: String, fields: String = "") -> String { "GET \(path) HTTP/1.1\r\nHost: x\r\n\(fields)\r\n" }

    @Test func aUnixPeer_IsATrustedProxy_WhenProxiesAreTrusted() async throws {
        let path = try temporarySocketPath()
        let server = makeTestServer {
            $0.listeners = [.unixDomainSocket(path)]
            $0.reverseProxies = try! .init(trusting: [])
        }
        try registerClientRoute(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send(Self.get("/client", fields: "X-Forwarded-For: 203.0.113.9\r\nX-Forwarded-Proto: https\r\n"))
            #expect(try await client.readResponse().text == "203.0.113.9:0 | https | unix: | none", "nginx on this host names the client")
        }
    }

    @Test func aPROXYListener_WithoutTrustedProxies_IsAStartupError() async throws {
        let server = makeTestServer { $0.listeners = [.tcp(port: 0).expectingProxyProtocol()] }
        let error = await #expect(throws: WhiskerServerError.self) { try await server.run() }
        #expect(error?.description.contains("expects the PROXY protocol") == true, "\(String(describing: error))")
        #expect(error?.description.contains("no proxy is trusted (configuration.reverseProxies)") == true)
    }

    @Test func expectProxyProtocol_SetsTheListeners_ByKind_AndTheInheritedOnesByName() throws {
        var configuration = WhiskerServer.Configuration(host: "0.0.0.0", port: 8080)
        configuration.listeners += [.unixDomainSocket("/tmp/x.sock"), .tcp(port: 9090).with(ProxyListenerTests.NotRoutes())]
        configuration.expectProxyProtocol(on: [.cleartext])
        #expect(configuration.listeners.map(\.expectsProxyProtocol) == [true, false, false])
        configuration.expectProxyProtocol(on: [])
        #expect(configuration.listeners.map(\.expectsProxyProtocol) == [false, false, false])
        configuration.listeners = [.inherited(.init(fd: 3, name: "web")), .inherited(.init(fd: 4, name: "lb"))]
        try configuration.expectProxyProtocol(onSocketsNamed: ["lb"])
        #expect(configuration.listeners.map(\.expectsProxyProtocol) == [false, true])
        let error = #expect(throws: WhiskerServerError.self) { try configuration.expectProxyProtocol(onSocketsNamed: ["db"]) }
        #expect(error?.description == "no inherited socket is named \"db\" (the names are web:lb)")
    }

    /// A listener option that does not serve the routes, as the health checks' own listener's.
    struct NotRoutes: ListenerOption {
        var logField: (name: String, value: String) { ("not_routes", "true") }
        var servesRoutes: Bool { false }
    }
}
