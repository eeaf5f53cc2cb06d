import CatServiceCore
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing
import Whisker
import WhiskerMock
import WhiskerTesting

/// Every CatService operation through a client generated from the service's own openapi.yaml
/// (this target's openapi.yaml is a symlink to it), against the handlers `cat-service` serves:
/// in process (no socket) and live over HTTP/1.1 and h2c.
@Suite struct CatServiceTests {
    /// How the client reaches the server.
    enum Mode: String, CaseIterable, CustomTestStringConvertible {
        case inProcessHTTP1, inProcessHTTP2, liveHTTP1, liveHTTP2
        var testDescription: String { rawValue }
    }

    static let cats = Set("🐱😹😻🙀😿😽😸😺😾😼")

    /// Runs `body` with a client of a new server serving the CatService, reached as `mode` says.
    func withClient(_ mode: Mode, _ body: @Sendable (Client, CatServiceOperations) async throws -> Void) async throws {
        let server = makeTestServer { $0.http2 = HTTP2Settings() }
        let operations = try CatServiceOperations()
        try operations.registerHandlers(on: operations.transport(on: server))
        let serverURL = try Servers.Server1.url()
        switch mode {
        case .inProcessHTTP1, .inProcessHTTP2:
            let transport = WhiskerTestTransport(server, over: mode == .inProcessHTTP1 ? .http1 : .http2)
            try await body(Client(serverURL: serverURL, transport: transport), operations)
        case .liveHTTP1, .liveHTTP2:
            try await WhiskerTestTransport.live(server, over: mode == .liveHTTP1 ? .http1 : .http2) { transport in
                try await body(Client(serverURL: serverURL, transport: transport), operations)
            }
        }
    }

    @Test(arguments: Mode.allCases)
    func getEmoji_OneCatByDefault_CountCats_400NamingTheParameter(_ mode: Mode) async throws {
        try await withClient(mode) { client, _ in
            let one = try await String(collecting: client.getEmoji().ok.body.plainText, upTo: 1024)
            #expect(one.count == 1 && Self.cats.contains(one.first!))

            let three = try await String(collecting: client.getEmoji(query: .init(count: 3)).ok.body.plainText, upTo: 1024)
            #expect(three.count == 3 && Set(three).count == 1 && Self.cats.contains(three.first!), "one cat, three times: \(three)")

            let refused = try await client.getEmoji(query: .init(count: 0)).badRequest.body.application_problem_plus_json
            #expect(refused.detail == "query parameter count: must be at least 1, got 0")
            #expect(refused.errors?.map { "\($0._in) \($0.parameter ?? ""): \($0.detail)" } == ["query count: must be at least 1, got 0"])
        }
    }

    @Test(arguments: Mode.allCases)
    func getClip_TheBundledClip(_ mode: Mode) async throws {
        try await withClient(mode) { client, operations in
            let clip = try await client.getClip().ok.body.video_mp4
            #expect(clip.length == .known(Int64(operations.clip.count)))
            #expect(try await [UInt8](collecting: clip, upTo: 1 << 20) == Array(operations.clip))
        }
    }

    /// The events are read as they arrive: the first long before the stream ends (event n is due
    /// at interval × (n - 1) from the start, so three intervals before; two are allowed, for a
    /// loaded machine: a CI host running this suite's 20 MiB uploads on 2 cores once delivered the
    /// first of three events 0.66 s late).
    @Test(arguments: Mode.allCases)
    func getEmojiStream_EventsReadAsTheyArrive(_ mode: Mode) async throws {
        try await withClient(mode) { client, _ in
            let interval = Duration.milliseconds(600)
            let stream = try await client.getEmojiStream(query: .init(count: 4, interval_ms: 600)).ok.body.text_event_hyphen_stream
            var arrivals: [ContinuousClock.Instant] = []
            var events: [ServerSentEvent] = []
            for try await event in stream.asDecodedServerSentEvents() {
                arrivals.append(.now)
                events.append(event)
            }
            let ended = ContinuousClock.now
            #expect(events.map(\.id) == ["1", "2", "3", "4"])
            #expect(events.allSatisfy { $0.data.map { $0.count == 1 && Self.cats.contains($0.first!) } == true })
            let first = try #require(arrivals.first)
            #expect(ended - first > interval, "the first event arrived \(ended - first) before the stream ended")
        }
    }

    /// 20 MiB of text, made as it is sent (never whole in memory), counted as it streams in.
    @Test(arguments: Mode.allCases)
    func countCats_A20MiBStreamedUpload(_ mode: Mode) async throws {
        let text = RepeatedText(unit: Array("a cat 🐱, ".utf8), size: 20 << 20)
        try await withClient(mode) { client, _ in
            let body = HTTPBody(text, length: .known(Int64(text.size)), iterationBehavior: .single)
            let census = try await client.countCats(body: .plainText(body)).ok.body.json
            #expect(census.cats == Int64(text.units))
            #expect(census.bytes == Int64(text.size))
        }
    }

    @Test(arguments: Mode.allCases)
    func adoptCat_Welcome_400ForABlankName_413OverItsLimit(_ mode: Mode) async throws {
        try await withClient(mode) { client, _ in
            let welcome = try await client.adoptCat(body: .json(.init(name: "Tom"))).created.body.json
            #expect(welcome.message == "Welcome home, Tom 😻")

            let empty = try await client.adoptCat(body: .json(.init(name: " "))).badRequest.body.application_problem_plus_json
            #expect(empty.errors?.map { "\($0._in) \($0.pointer ?? ""): \($0.detail)" } == ["body /name: must match the pattern \\S"])

            let tooLarge = try await client.adoptCat(body: .json(.init(name: String(repeating: "x", count: 2000))))
            #expect(try tooLarge.contentTooLarge.body.application_problem_plus_json.status == 413)
        }
    }

    /// The document's own examples as a test: each request example (a census of two cats, Tom's
    /// adoption, a nameless one the document expects a 400 for, the streams' and the report's)
    /// sent to the real handlers, each answer checked against the documented response.
    @Test(arguments: [WhiskerTestTransport.HTTPVersion.http1, .http2])
    func theDocumentsExamples_EachAnsweredAsDocumented(_ version: WhiskerTestTransport.HTTPVersion) async throws {
        let server = makeTestServer { $0.http2 = HTTP2Settings() }
        let operations = try CatServiceOperations()
        try operations.registerHandlers(on: operations.transport(on: server, reportTokens: ["staff-token"]))
        let report = try await DocumentExamples(CatServiceOperations.document()).replay(
            through: WhiskerTestTransport(server, over: version), serverURL: CatServiceOperations.serverURL(),
            headerFields: [.authorization: "Bearer staff-token"]
        )
        #expect(report.failures.isEmpty && report.skipped.isEmpty, "\(report)")
        #expect(report.outcomes.map { "\($0.operationID) \($0.example ?? "-") \($0.status ?? 0)" } == [
            "getEmoji - 200", "getClip - 200", "getEmojiStream - 200", "countCats two-cats 200",
            "adoptCat tom 201", "adoptCat nameless 400", "getShelterReport - 200",
        ])
    }

    /// The generated client against a mock of the same document (WhiskerMock, what
    /// `whisker-mock openapi.yaml` serves): no handler runs, the answers are the document's
    /// examples, and the requests are still validated.
    @Test(arguments: [WhiskerTestTransport.HTTPVersion.http1, .http2])
    func theGeneratedClient_AgainstAMockOfTheDocument(_ version: WhiskerTestTransport.HTTPVersion) async throws {
        let server = makeTestServer { $0.http2 = HTTP2Settings() }
        try DocumentMock(CatServiceOperations.document()).register(on: server)
        let client = Client(serverURL: try CatServiceOperations.serverURL(), transport: WhiskerTestTransport(server, over: version))
        #expect(try await String(collecting: client.getEmoji(query: .init(count: 3)).ok.body.plainText, upTo: 1024) == "😺😺😺")
        let census = try await client.countCats(body: .plainText("A 😺 and a 🙀 met.")).ok.body.json
        #expect(census.cats == 2 && census.bytes == 22)
        #expect(try await client.adoptCat(body: .json(.init(name: "Tom"))).created.body.json.message == "Welcome home, Tom 😻")
        let blank = try await client.adoptCat(body: .json(.init(name: " "))).badRequest.body.application_problem_plus_json
        #expect(blank.errors?.map(\.detail) == ["must match the pattern \\S"], "validated as the real server validates")
        #expect(try await client.getShelterReport().unauthorized.body.application_problem_plus_json.status == 401)
        let stream = try await client.getEmojiStream(query: .init(count: 2, interval_ms: 0)).ok.body.text_event_hyphen_stream
        var cats: [String] = []
        for try await event in stream.asDecodedServerSentEvents() { cats.append(event.data ?? "") }
        #expect(cats == ["😺", "🙀"])
    }
}

/// `unit` repeated up to `size` bytes (whole units only), in 64 KiB pieces made when asked for:
/// the pieces cut through units, and so through cats.
struct RepeatedText: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let piece: [UInt8]
    let units: Int
    let size: Int

    init(unit: [UInt8], size: Int) {
        units = size / unit.count
        self.size = units * unit.count
        piece = Array((0..<(64 * 1024)).map { unit[$0 % unit.count] })
    }

    func makeAsyncIterator() -> Iterator { Iterator(text: self) }

    struct Iterator: AsyncIteratorProtocol {
        let text: RepeatedText
        var sent = 0
        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard sent < text.size else { return nil }
            // Each piece starts where the previous one stopped in the repetition.
            let offset = sent % (text.size / text.units)
            let count = Swift.min(text.piece.count - offset, text.size - sent)
            sent += count
            return text.piece[offset..<(offset + count)]
        }
    }
}
