import Foundation
import HTTPTypes
import OpenAPIWhisker
import Synchronization
import Testing
import WhiskerCore
import WhiskerTesting

/// OpenAPI 3.2's `itemSchema` in the contract check: each server-sent event, JSON line and JSON
/// text sequence record checked against it as it leaves, before the client can read it.
@Suite struct ContractCheckItemTests {
    static let document = """
        openapi: 3.2.0
        info: {title: Cats, version: '1'}
        paths:
          /cats/{format}:
            get:
              operationId: streamCats
              parameters:
                - {name: format, in: path, required: true, schema: {type: string}}
              responses:
                '200':
                  description: A stream of cats.
                  content:
                    text/event-stream:
                      itemSchema:
                        type: object
                        required: [data, id]
                        properties:
                          data: {type: string, enum: ['😺', '🙀']}
                          event: {const: message}
                          id: {type: string, pattern: '^[0-9]+$'}
                    application/jsonl:
                      itemSchema: {$ref: '#/components/schemas/Cat'}
                    application/json-seq:
                      itemSchema: {$ref: '#/components/schemas/Cat'}
        components:
          schemas:
            Cat:
              type: object
              required: [name]
              properties:
                name: {type: string}
        """

    /// The contract check's reports, and a gate that holds each stream open after its items.
    final class Fixture: Sendable {
        let reports = Mutex<[String]>([])
        let reported = Signal<Void>()
        let gate = Signal<Void>()
    }

    /// `GET /v1/cats/{format}`: two good items and a bad one of the format, chunked across their
    /// separators, then the stream waits for the gate (so the client can read the bad item while
    /// the stream is still open), then a last bad item.
    func withServer(_ body: @Sendable (SocketAddress, Fixture) async throws -> Void) async throws {
        let fixture = Fixture()
        let check = try ContractCheck(OpenAPIDocument(yaml: Array(Self.document.utf8)), serverURL: URL(string: "http://localhost/v1")!) { violation in
            fixture.reports.withLock { $0.append(violation.description) }
            fixture.reported.fire()
        }
        let server = makeTestServer { $0.responseSteps.append(check) }
        try server.register(method: .get, path: "/v1/cats/{format}") { request in
            if let many = request.pathParameters["format"].flatMap({ $0.hasPrefix("many-") ? $0.dropFirst(5) : nil }) {
                // A whole body (not a stream) of 15 lines, good or bad.
                let line = many == "good" ? "{\"name\":\"Tom\"}\n" : "{}\n"
                return Response(status: .ok, headerFields: [.contentType: "application/jsonl"], body: .init(string: String(repeating: line, count: 15)))
            }
            let (type, chunks, last): (String, [String], String) = switch request.pathParameters["format"] {
            case "events": ("text/event-stream", ["id: 1\ndata: 😺\n", "\nid: 2\r", "\ndata: 🙀\n\n: a comment\n\ndata: 🐶\n\n"], "id: x\ndata: 😺\n\n")
            case "lines": ("application/jsonl", [#"{"name":"Tom"}"#, "\n{\"name\":\"Felix\"}\n{\"age\":", "3}\n"], "not json\n")
            default: ("application/json-seq", ["\u{1E}{\"name\":\"Tom\"}\n\u{1E}", "{\"name\":1}\n"], "\u{1E}{}")
            }
            return Response(status: .ok, headerFields: [.contentType: type], body: .init(length: nil) { writer in
                for chunk in chunks { try await writer.write(Array(chunk.utf8)) }
                _ = await fixture.gate.wait()
                try await writer.write(Array(last.utf8))
            })
        }
        try await server.withRunning { address in try await body(address, fixture) }
    }

    @Test(arguments: [
        ("events", "🐶", [
            "event 3 /data: must be one of \"😺\", \"🙀\", got \"🐶\"",
            "event 4 /id: must match the pattern ^[0-9]+$",
        ]),
        ("lines", "3}", ["line 3 /name: is required", "line 4: not valid JSON at byte 0: unexpected character"]),
        ("seq", #"{"name":1}"#, ["record 2 /name: must be a string, got an integer (1)", "record 3 /name: is required"]),
    ])
    func eachBadItem_ReportedBeforeTheClientSeesIt(format: String, bad: String, expected: [String]) async throws {
        try await withServer { address, fixture in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /v1/cats/\(format) HTTP/1.1\r\nHost: x\r\n\r\n")
            var received: [UInt8] = [] // chunked: `bad` is within one chunk
            while !String(decoding: received, as: UTF8.self).contains(bad) {
                let some = try await client.receiveSome()
                #expect(!some.isEmpty, "the stream stays open until the gate")
                if some.isEmpty { return }
                received += some
            }
            // The check runs before the chunk is written: the client has the bad item, so it was reported.
            #expect(fixture.reports.withLock { $0.count } == 1)
            fixture.gate.fire()
            #expect(await fixture.reported.wait() != nil)
            #expect(await fixture.reported.wait() != nil)
            #expect(fixture.reports.withLock { $0 } == expected.map { "streamCats (GET /v1/cats/\(format)) answered 200: \($0)" })
        }
    }

    @Test func aWholeBody_ItsItemsChecked_TenReportedAtMost() async throws {
        try await withServer { address, fixture in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /v1/cats/many-good HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/cats/many-bad HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
            #expect(try await client.readResponse().status == 200)
            // The check of a whole body runs before the response is sent: all reports are in.
            let reports = fixture.reports.withLock { $0 }
            #expect(reports.count == 10, "fifteen bad lines, ten reported")
            #expect(reports.first == "streamCats (GET /v1/cats/many-bad) answered 200: line 1 /name: is required")
            #expect(reports.last == "streamCats (GET /v1/cats/many-bad) answered 200: line 10 /name: is required")
        }
    }
}
