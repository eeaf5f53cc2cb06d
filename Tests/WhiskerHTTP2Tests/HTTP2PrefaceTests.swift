import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerTLS
import WhiskerTesting

/// What a client gets for a connection preface the server cannot take (h2spec 3.5 #2 and its
/// neighbours), as exact bytes: over TLS, where ALPN said `h2`, and on the cleartext port, where
/// only bytes that begin like the preface show the client meant HTTP/2.
@Suite struct HTTP2PrefaceTests {
    /// Sends `bytes` and reads frames until the server closes; the server's SETTINGS must come
    /// first, then GOAWAY naming no stream with `errorCode`.
    private func expectGoAway(_ errorCode: UInt32, after bytes: [UInt8], over socket: TestClient) async throws {
        try await socket.send(bytes)
        let reader = HTTP2FrameReader()
        try await reader.read(from: socket) { _ in false }  // until the server closes
        #expect(reader.frames.first?.type == HTTP2Frame.Kind.settings)
        let goAway = try #require(reader.frames(ofType: HTTP2Frame.Kind.goAway).first)
        #expect(goAway.errorCode == errorCode)
        #expect(goAway.lastStreamID == 0)
        #expect(reader.isClosed)
    }

    /// h2spec 3.5 #2: ALPN chose h2, then the client sent no preface. It used to be parsed as
    /// HTTP/1.1 and answered 400, which an HTTP/2 client reads as a frame of 4.7 MB.
    @Test func alpnH2_WithoutThePreface_GetsGoAwayProtocolError() async throws {
        let server = makeHTTP2Server {
            $0.listeners = [.https(port: 0, tls: TestCertificates.localhostTLS)]
        }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            var tls = TestTLSOptions(trustedCAPath: TestCertificates.ca)
            tls.applicationProtocols = ["h2"]
            let socket = try await TestClient.connect(to: address, tls: tls)
            try await expectGoAway(0x1, after: Array("INVALID CONNECTION PREFACE\r\n\r\n".utf8), over: socket)
        }
    }

    /// An h2c prior-knowledge client that dials the TLS port by mistake (`http://` for an
    /// `https://` server) is told in HTTP/2, not with a 400 it would read as frames: SETTINGS and
    /// GOAWAY naming no stream, with the reason as debug data. The TLS stream passes the
    /// plaintext through (`isPlaintextPeer`) and the core answers it.
    @Test func priorKnowledge_OnTheTLSPort_GetsGoAway_SayingToUseHTTPS() async throws {
        let server = makeHTTP2Server {
            $0.listeners = [.https(port: 0, tls: TestCertificates.localhostTLS)]
        }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let socket = try await TestClient.connect(to: address)
            try await expectGoAway(0x0, after: HTTP2Frame.preface + HTTP2Frame.settings().bytes, over: socket)
        }
    }

    /// On the cleartext port, the preface's first line and then something else is a broken
    /// HTTP/2 preface (PROTOCOL_ERROR); bytes that never looked like it are HTTP/1.1 and get 400,
    /// which is why h2spec's 3.5 #2 cannot pass on a port that serves both (see Sources/Whisker/Whisker.docc/HTTPSAndHTTP2.md).
    @Test func cleartext_BrokenPreface_GetsGoAway_OtherBytesGet400() async throws {
        let server = makeHTTP2Server()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let broken = try await TestClient.connect(to: address)
            try await expectGoAway(0x1, after: Array("PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n".utf8), over: broken)
            let http1 = try await TestClient.connect(to: address)
            try await http1.send("INVALID CONNECTION PREFACE\r\n\r\n")
            #expect(try await http1.readResponse().status == 400)
        }
    }

    /// With HTTP/2 off, a prior-knowledge client is told to use HTTP/1.1 in its own protocol
    /// (HTTP_1_1_REQUIRED) instead of getting a 505 it cannot read; HTTP/1.1 is served as ever.
    @Test func http2Off_PriorKnowledge_GetsGoAwayHTTP11Required() async throws {
        let server = makeHTTP2Server { $0.http2 = nil }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let socket = try await TestClient.connect(to: address)
            try await expectGoAway(0xD, after: HTTP2Frame.preface + HTTP2Frame.settings().bytes, over: socket)
            let client = try await TestClient.connect(to: address)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi")
            #expect(try await client.readResponse().text == "hi")
        }
    }

    /// With `cleartextHTTP2Only`, the cleartext port is HTTP/2 alone: h2spec 3.5 #2's bytes and an
    /// HTTP/1.1 request get GOAWAY(PROTOCOL_ERROR); the preface is served.
    @Test func cleartextHTTP2Only_AnythingButThePreface_GetsGoAway() async throws {
        let server = makeHTTP2Server { $0.cleartextHTTP2Only = true }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            for bytes in ["INVALID CONNECTION PREFACE\r\n\r\n", "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"] {
                let socket = try await TestClient.connect(to: address)
                try await expectGoAway(0x1, after: Array(bytes.utf8), over: socket)
            }
            let socket = try await TestClient.connect(to: address)
            let h2 = HTTP2TestClient()
            let id = h2.request(path: "/hello")
            try await h2.exchange(over: socket) { $0.closed[id] != nil }
            #expect(h2.status(id) == "200")
        }
    }

    /// A listener of the list that serves only HTTP/2 (h2c with prior knowledge), beside one
    /// that serves both: the option sits on the listener.
    @Test func aListenerServingOnlyHTTP2_RefusesHTTP1_TheOtherServesBoth() async throws {
        let server = makeHTTP2Server { $0.listeners = [.tcp(port: 0), .tcp(port: 0).servingOnlyHTTP2()] }
        try registerBasicRoutes(on: server)
        try await server.withRunningAddresses { addresses in
            let http1 = try await TestClient.connect(to: addresses[0])
            try await http1.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await http1.readResponse().text == "hello", "the first listener serves HTTP/1.1")
            try await expectGoAway(0x1, after: Array("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n".utf8), over: try await TestClient.connect(to: addresses[1]))
            for address in addresses {
                let socket = try await TestClient.connect(to: address)
                let h2 = HTTP2TestClient()
                let id = h2.request(path: "/hello")
                try await h2.exchange(over: socket) { $0.closed[id] != nil }
                #expect(h2.status(id) == "200", "h2c with prior knowledge on \(address)")
            }
        }
        let withoutHTTP2 = makeHTTP2Server {
            $0.http2 = nil
            $0.listeners = [.tcp(port: 0).servingOnlyHTTP2()]
        }
        let error = await #expect(throws: WhiskerServerError.self) { try await withoutHTTP2.run() }
        #expect(error?.description.contains("serves only HTTP/2, which is off") == true)
    }

    @Test func cleartextHTTP2Only_WithoutHTTP2_StopsRunWithAnError() async throws {
        let server = makeHTTP2Server {
            $0.cleartextHTTP2Only = true
            $0.http2 = nil
        }
        await #expect(throws: WhiskerServerError.self) { try await server.run() }
    }
}
