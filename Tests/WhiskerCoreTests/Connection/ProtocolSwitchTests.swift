import HTTPTypes
import Logging
import Testing
import WhiskerCore
import WhiskerSockets
import WhiskerTesting

/// ``ProtocolSwitch``: a handler's `101` hands an HTTP/1.1 connection to another protocol, written
/// here as a third party would, with public API only: an echo protocol.
@Suite struct ProtocolSwitchTests {
    /// Echoes every byte back; on a graceful shutdown says "bye" and closes.
    final class Echo: ConnectionHandler {
        let connection: Connection
        var buffer = ReadBuffer()

        init(_ connection: Connection) { self.connection = connection }

        func start(buffered: inout ReadBuffer) {
            swap(&buffer, &buffered)
            echo()
        }

        func readable() {
            do {
                while true {
                    switch try connection.stream.read(into: &buffer) {
                    case .bytes: continue
                    case .wouldBlock: return echo()
                    case .endOfStream: return connection.close()
                    }
                }
            } catch {
                connection.close()
            }
        }

        private func echo() {
            guard buffer.readableBytes > 0 else { return }
            connection.stream.write(buffer.readBytes(buffer.readableBytes), flush: true)
        }

        func beginShutdown() {
            connection.stream.write(ArraySlice("bye".utf8), flush: true)
            connection.stream.closeAfterFlush()
        }

        func streamClosed() {}
    }

    struct EchoSwitch: ProtocolSwitch {
        func takeOver(_ connection: Connection) throws -> any ConnectionHandler { Echo(connection) }
    }

    /// `GET /echo` switches when asked with `Upgrade: echo`, else says how to ask (426).
    private func server(_ configure: (inout WhiskerServer.Configuration) -> Void = { _ in }) throws -> WhiskerServer {
        let server = makeTestServer(configure)
        try server.register(method: .get, path: "/echo") { request in
            guard request.head.headerFields[.upgrade]?.lowercased() == "echo" else {
                return Response(status: .upgradeRequired, headerFields: [.upgrade: "echo"])
            }
            return .switchingProtocols(headerFields: [.upgrade: "echo"], to: EchoSwitch())
        }
        return server
    }

    private static let upgrade = "GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n"

    /// What the server sends until `text` ends it (or it closes).
    private func read(_ client: TestClient, until text: String) async throws -> String {
        var received = ""
        while !received.hasSuffix(text) {
            let bytes = try await client.receiveSome()
            if bytes.isEmpty { break }
            received += String(decoding: bytes, as: UTF8.self)
        }
        return received
    }

    @Test func switch_AnswersOneHundredOne_ThenTheBytesAfterTheHead_AndLaterOnes_AreTheNewProtocols() async throws {
        let lines = LoggedLines()
        let server = try server {
            $0.requestIDs = true
            $0.accessLog = .capturing(lines, label: "access")
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            // The client speaks the new protocol at once, in the same packet as the request.
            try await client.send(Self.upgrade + "hello")
            let head = try await read(client, until: "\r\n\r\nhello")
            #expect(head.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"), "\(head)")
            #expect(head.contains("\r\nupgrade: echo\r\n") || head.contains("\r\nUpgrade: echo\r\n"))
            #expect(head.contains("\r\nConnection: Upgrade\r\n"))
            #expect(head.lowercased().contains("\r\nx-request-id: "), "the response steps ran on the 101")
            #expect(!head.lowercased().contains("content-length"), "a 101 has no framing")
            try await client.send("again")
            #expect(try await read(client, until: "again") == "again")
        }
        #expect(lines.all.map(\.0) == ["GET /echo 101"], "the upgrade is logged like any request")
    }

    @Test func withoutTheUpgrade_TheRouteAnswers_AndTheConnectionStaysHTTP() async throws {
        try await server().withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 426)
            try await client.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 426, "still HTTP/1.1")
        }
    }

    @Test func aRequestWithABody_OrHTTP10_CannotSwitch() async throws {
        try await server().withRunning { address in
            for request in [
                "GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\nContent-Length: 3\r\n\r\nabc",
                "GET /echo HTTP/1.0\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n",
            ] {
                let client = try await TestClient.connect(to: address)
                try await client.send(request)
                let response = try await client.readResponse()
                #expect(response.status == 400, "\(request)")
                #expect(try await client.isClosedByServer())
            }
        }
    }

    @Test func shutdown_ReachesTheNewProtocol() async throws {
        let server = try server()
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send(Self.upgrade)
            _ = try await read(client, until: "\r\n\r\n")
            await server.shutdown()
            #expect(try await read(client, until: "bye").hasSuffix("bye"))
        }
    }
}
