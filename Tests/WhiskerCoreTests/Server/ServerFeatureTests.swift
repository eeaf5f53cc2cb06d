import HTTPTypes
import Synchronization
import Testing
import WhiskerCore
import WhiskerSockets
import WhiskerTesting

/// ``ServerFeature``: a capability written as a third party would, with public API only, that adds
/// an early answer, a response step, an observer, a protocol handover and a listener option.
@Suite struct ServerFeatureTests {
    /// Counts what it observes: requests a handler answered, and the server's own answers.
    final class Counter: RequestObserver {
        let counts = Mutex((handled: 0, local: 0))
        func observe(_ request: Request, route: String, context: RequestContext, _ respond: () async -> (status: Int, bytes: Int)) async -> (status: Int, bytes: Int) {
            counts.withLock { $0.handled += 1 }
            return await respond()
        }
        func observeLocalResponse(to head: HTTPRequest?, status: Int, context: RequestContext, write: () -> Void) {
            counts.withLock { $0.local += 1 }
            write()
        }
    }

    /// The "knock" protocol: a client that opens with `KNOCK\n` (or asks `Upgrade: knock`) is told
    /// `COME IN\n`, and the connection closes.
    struct Knock: ServerFeature, EarlyAnswer, ResponseStep, ProtocolHandover {
        let counter: Counter
        static let knock = Array("KNOCK\n".utf8)

        func contribute(to contributions: inout ServerFeatureContributions) {
            contributions.add(self as any EarlyAnswer)
            contributions.add(self as any ResponseStep)
            contributions.add(self as any ProtocolHandover)
            contributions.add(counter)
        }

        // EarlyAnswer
        func answer(_ head: HTTPRequest, path: Substring, context: EarlyAnswerContext) -> LocalAnswer? {
            if context.listenerOptions[KnockOnly.self] != nil, path != "/knock" {
                return .rejection(HTTPRejection(.notFound, "this listener only knocks"))
            }
            return path == "/knock" ? .response(Response(status: .ok, body: .init(string: "who is there?\n"))) : nil
        }

        // ResponseStep
        func apply(to response: inout Response, for request: HTTPRequest, requestID: String?) {
            response.head.headerFields[HTTPField.Name("X-Knock")!] = "1"
        }

        // ProtocolHandover
        var applicationProtocols: [String] { [] }

        func firstBytes(_ buffer: ReadBuffer, on connection: Connection) -> FirstBytesVerdict {
            let prefix = buffer.withUnsafeReadableBytes { Array($0.prefix(Self.knock.count)) }
            if prefix == Self.knock { return .takeOver }
            return Self.knock.starts(with: prefix) ? .needMore : .http1
        }

        func acceptsUpgrade(_ request: HTTPRequest, on connection: Connection) -> Bool {
            request.headerFields[.upgrade] == "knock"
        }

        func takeOver(_ connection: Connection, upgrade: HTTPRequest?) throws -> any ConnectionHandler {
            ComeIn(connection, switching: upgrade != nil)
        }
    }

    final class ComeIn: ConnectionHandler {
        let connection: Connection
        let switching: Bool
        init(_ connection: Connection, switching: Bool) { (self.connection, self.switching) = (connection, switching) }
        func start(buffered: inout ReadBuffer) {
            let head = switching ? "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: knock\r\n\r\n" : ""
            connection.stream.write(ArraySlice((head + "COME IN\n").utf8), flush: true)
            connection.stream.closeAfterFlush()
        }
        func readable() {}
        func beginShutdown() {}
        func streamClosed() {}
    }

    /// A listener that answers only `/knock`.
    struct KnockOnly: ListenerOption {
        var logField: (name: String, value: String) { ("knock_only", "true") }
    }

    @Test func aThirdPartyFeature_AddsAnEarlyAnswer_AStep_AnObserver_AHandover_AndAListenerOption() async throws {
        let counter = Counter()
        let server = makeTestServer {
            $0.features.add(Knock(counter: counter))
            $0.listeners = [.tcp(port: 0), .tcp(port: 0).with(KnockOnly())]
        }
        try registerBasicRoutes(on: server)
        try await server.withRunningAddresses { addresses in
            let client = try await TestClient.connect(to: addresses[0])
            try await client.send("GET /knock HTTP/1.1\r\nHost: x\r\n\r\n")
            let knocked = try await client.readResponse()
            #expect(knocked.status == 200 && knocked.text == "who is there?\n")
            #expect(knocked.header("X-Knock") == "1", "the step runs on the early answer")
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let hello = try await client.readResponse()
            #expect(hello.text == "hello" && hello.header("X-Knock") == "1", "and on a handler's response")

            let knocker = try await TestClient.connect(to: addresses[0])
            try await knocker.send("KNOCK\n")
            #expect(try await knocker.readUntilClose() == "COME IN\n", "the first bytes hand the connection over")

            let upgrader = try await TestClient.connect(to: addresses[0])
            try await upgrader.send("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: knock\r\nConnection: Upgrade\r\n\r\n")
            #expect(try await upgrader.readUntilClose().hasSuffix("\r\n\r\nCOME IN\n"), "so does Upgrade")

            let only = try await TestClient.connect(to: addresses[1])
            try await only.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await only.readResponse().status == 404, "the option of its listener reaches the early answer")
        }
        let counts = counter.counts.withLock { $0 }
        #expect(counts.handled == 1 && counts.local == 2, "\(counts)")
    }

    struct Named: ServerFeature {
        let name: String
        func contribute(to contributions: inout ServerFeatureContributions) {}
    }

    struct Other: ServerFeature {
        func contribute(to contributions: inout ServerFeatureContributions) {}
    }

    @Test func features_AreOnePerType_InTheOrderAdded() {
        var features = ServerFeatures()
        features.add(Named(name: "first"))
        features.add(Other())
        features.add(Named(name: "again"))
        #expect(features.map { "\(type(of: $0))" } == ["Named", "Other"], "a second of a type replaces the first where it stands")
        #expect(features[Named.self]?.name == "again")
        features[Named.self] = nil
        #expect(features.map { "\(type(of: $0))" } == ["Other"])
    }

    /// Two observers (a feature's and the configuration's): both see every request.
    @Test func severalObservers_EachSeeEveryRequest() async throws {
        let (first, second) = (Counter(), Counter())
        let server = makeTestServer {
            $0.features.add(Knock(counter: first))
            $0.requestObserver = second
        }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /nothere HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
            #expect(try await client.readResponse().status == 404)
        }
        for counter in [first, second] {
            let counts = counter.counts.withLock { $0 }
            #expect(counts.handled == 1 && counts.local == 1, "\(counts)")
        }
    }
}
