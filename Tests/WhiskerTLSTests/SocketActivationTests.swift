import Logging
import Testing
import WhiskerCore
import WhiskerSockets
import WhiskerTLS
import WhiskerTesting

/// Serving on sockets passed as systemd passes them (socket activation), with HTTPS: which
/// inherited sockets speak TLS (`activation.listeners(https:)`), and the errors when the sockets and
/// the certificate disagree. The sockets are made here, listening on 127.0.0.1, and handed over as an injected
/// descriptor list, never through the process's own `LISTEN_*` variables. (Without HTTPS:
/// WhiskerCoreTests/Server/SocketActivationTests.swift.)
@Suite struct SocketActivationTests {
    @Test func inheritedCleartextAndTLSSockets_EachServeARequest_AndHostAndPortAreNotBound() async throws {
        // A port that is taken: binding the configured host and port would fail.
        let taken = try Listener(address: SocketAddress(host: "127.0.0.1", port: 0))
        defer { taken.stop() }
        let activation = try SystemdSocketActivation.loopbackForTesting(names: ["http", "https"])
        let notify = try FakeNotifySocket()
        let lines = LoggedLines()
        let listeners = try activation.listeners(https: TestCertificates.localhostTLS)
        let server = makeTestServer {
            $0.listeners = listeners
            $0.systemdNotifier = notify.notifier
            $0.logger = Logger(label: "whisker.test") { _ in CapturingLogHandler(lines: lines) }
        }
        try registerBasicRoutes(on: server)
        try await server.withRunningAddresses { addresses in
            #expect(addresses.count == 2)
            #expect(addresses.allSatisfy { $0.host == "127.0.0.1" && $0.port != taken.localAddress.port })

            let plain = try await TestClient.connect(to: addresses[0])
            try await plain.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await plain.readResponse().text == "hello")

            let secure = try await TestClient.connect(to: addresses[1], tls: TestTLSOptions(trustedCAPath: TestCertificates.ca))
            #expect(secure.tlsVersion == "TLSv1.3")
            try await secure.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await secure.readResponse().text == "hello")

            let ready = try notify.receive()
            #expect(ready.hasPrefix("READY=1\n"))
            #expect(ready.contains("STATUS=listening on \(addresses[0]), \(addresses[1])"))
        }
        let listening = lines.all.filter { $0.0 == "listening" }.map(\.1)
        #expect(listening.count == 2)
        #expect(listening.first?["inherited"] == "\(activation.descriptors[0])")
        #expect(listening.first?["tls"] == "false")
        #expect(listening.last?["inherited"] == "fd \(activation.descriptors[1].fd) (\"https\")")
        #expect(listening.last?["tls"] == "true")
    }

    @Test func customTLSNames_ChooseWhichSocketsSpeakTLS() async throws {
        let activation = try SystemdSocketActivation.loopbackForTesting(names: ["secure", "https"])
        let listeners = try activation.listeners(https: TestCertificates.localhostTLS, tlsNames: ["secure"])
        let server = makeTestServer { $0.listeners = listeners }
        try registerBasicRoutes(on: server)
        try await server.withRunningAddresses { addresses in
            let secure = try await TestClient.connect(to: addresses[0], tls: TestTLSOptions(trustedCAPath: TestCertificates.ca))
            try await secure.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await secure.readResponse().status == 200)
            // "https" is not in tlsNames here: that socket speaks cleartext.
            let plain = try await TestClient.connect(to: addresses[1])
            try await plain.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await plain.readResponse().status == 200)
        }
    }

    @Test func cleartextSocket_WithCleartextOff_IsAnError_ATLSOne_WithoutACertificate_Too() throws {
        let activation = try SystemdSocketActivation.loopbackForTesting(names: ["cat-service.socket"])
        defer { activation.closeForTesting() }
        let error = #expect(throws: WhiskerServerError.self) { try activation.listeners(https: TestCertificates.localhostTLS, servesCleartext: false) }
        #expect(error?.description.hasPrefix("the inherited socket fd \(activation.descriptors[0].fd) (\"cat-service.socket\") would serve cleartext HTTP, but cleartext is off") == true, "\(String(describing: error))")
        // The same socket with cleartext on is served as cleartext.
        #expect(try activation.listeners(https: nil).map(\.isTLS) == [false])
        let named = try SystemdSocketActivation.loopbackForTesting(names: ["https"])
        defer { named.closeForTesting() }
        let missing = #expect(throws: WhiskerServerError.self) { try named.listeners(https: nil) }
        #expect(missing?.description == "the inherited socket \(named.descriptors[0]) is named for TLS, but no TLS certificate is configured")
    }

    @Test func httpsConfigured_WithNoTLSSocketInherited_IsAnError() throws {
        let activation = try SystemdSocketActivation.loopbackForTesting(names: ["http"])
        defer { activation.closeForTesting() }
        let error = #expect(throws: WhiskerServerError.self) { try activation.listeners(https: TestCertificates.localhostTLS) }
        #expect(error?.description == "a TLS certificate is configured, but no inherited socket is named \"https\" or \"tls\" to serve it on (the names are http)")
    }
}
