import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import OpenAPIWhisker
import Synchronization
import Testing
import WhiskerCore
import WhiskerTesting

/// The runtime contract of `ServerTransport` (DESIGN.md), checked over real sockets.
@Suite struct WhiskerTransportTests {
    typealias Handler = @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)

    func withTransport(_ routes: [(HTTPRequest.Method, String, Handler)], _ body: @Sendable (TestClient) async throws -> Void) async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let server = WhiskerServer(configuration: .init(host: "127.0.0.1", port: 0, logger: logger))
        let transport = WhiskerTransport(server)
        for (method, path, handler) in routes { try transport.register(handler, method: method, path: path) }
        try await server.withRunning { address in
            try await body(try await TestClient.connect(to: address))
        }
    }

    /// Describes what the handler received: `nil` or the body's length kind and bytes.
    static let describeBody: Handler = { request, body, _ in
        guard let body else { return (HTTPResponse(status: .ok), HTTPBody("nil")) }
        let length = switch body.length { case .known(let n): "known(\(n))"; case .unknown: "unknown" }
        let bytes = try await String(collecting: body, upTo: 1 << 20)
        return (HTTPResponse(status: .ok), HTTPBody("\(length):\(bytes):\(body.iterationBehavior == .single ? "single" : "multiple")"))
    }

    @Test func requestBodies_NilWithoutBody_KnownOrUnknownLengthOtherwise() async throws {
        try await withTransport([(.post, "/body", Self.describeBody), (.get, "/body", Self.describeBody)]) { client in
            try await client.send("GET /body HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().text == "nil")
            try await client.send("POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            #expect(try await client.readResponse().text == "nil", "Content-Length: 0 is no body, not an empty one")
            try await client.send("POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
            #expect(try await client.readResponse().text == "known(3):abc:single")
            try await client.send("POST /body HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n1\r\nc\r\n0\r\n\r\n")
            #expect(try await client.readResponse().text == "unknown:abc:single")
        }
    }

    @Test func pathParameters_StayPercentEncoded_MixedSegmentsMatch() async throws {
        let echo: Handler = { request, _, metadata in
            let parameters = metadata.pathParameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            return (HTTPResponse(status: .ok), HTTPBody("\(parameters)|\(request.path ?? "")"))
        }
        try await withTransport([(.get, "/api/pets/{petId}", echo), (.get, "/api/file/{name}.zip", echo), (.get, "/api/{a}-{b}", echo)]) { client in
            try await client.send("GET /api/pets/a%20b?x=%2F HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().text == "petId=a%20b|/api/pets/a%20b?x=%2F")
            try await client.send("GET /api/file/v1.2.zip HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().text == "name=v1.2|/api/file/v1.2.zip")
            try await client.send("GET /api/left-right HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().text == "a=left,b=right|/api/left-right")
        }
    }

    @Test func responseBodies_KnownLengthOnce_UnknownLengthChunked_HeadWithoutBody() async throws {
        let known: Handler = { _, _, _ in
            (HTTPResponse(status: .ok, headerFields: [.contentLength: "5", .contentType: "text/plain"]), HTTPBody("hello"))
        }
        let unknown: Handler = { _, _, _ in
            let stream = AsyncStream<ArraySlice<UInt8>> { continuation in
                continuation.yield(ArraySlice("one,".utf8))
                continuation.yield(ArraySlice("two".utf8))
                continuation.finish()
            }
            return (HTTPResponse(status: .ok), HTTPBody(stream, length: .unknown))
        }
        try await withTransport([(.get, "/known", known), (.get, "/unknown", unknown)]) { client in
            try await client.send("GET /known HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.headers("content-length") == ["5"], "generated code may set content-length; never send it twice")
            #expect(response.text == "hello")
            try await client.send("GET /unknown HTTP/1.1\r\nHost: x\r\n\r\n")
            let chunked = try await client.readResponse()
            #expect(chunked.header("transfer-encoding") == "chunked")
            #expect(chunked.text == "one,two")
            try await client.send("HEAD /known HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try await client.readResponse(isHEAD: true)
            #expect(head.header("content-length") == "5")
            try await client.send("GET /known HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().text == "hello", "HEAD left no body on the wire")
        }
    }

    /// A small body of known length is collected before the head is written: kept as it is when
    /// it is one chunk, joined when it comes in several, nothing when it is empty.
    @Test func responseBodies_KnownLengthCollected_OneChunkSeveralOrNone() async throws {
        let several: Handler = { _, _, _ in
            let stream = AsyncStream<ArraySlice<UInt8>> { continuation in
                for part in ["one,", "two,", "six"] { continuation.yield(ArraySlice(part.utf8)) }
                continuation.finish()
            }
            return (HTTPResponse(status: .ok), HTTPBody(stream, length: .known(11)))
        }
        let one: Handler = { _, _, _ in (HTTPResponse(status: .ok), HTTPBody("😺 one")) }
        let none: Handler = { _, _, _ in (HTTPResponse(status: .ok), HTTPBody()) }
        try await withTransport([(.get, "/several", several), (.get, "/one", one), (.get, "/none", none)]) { client in
            try await client.send("GET /several HTTP/1.1\r\nHost: x\r\n\r\n")
            let joined = try await client.readResponse()
            #expect(joined.header("content-length") == "11")
            #expect(joined.header("transfer-encoding") == nil)
            #expect(joined.text == "one,two,six")
            try await client.send("GET /one HTTP/1.1\r\nHost: x\r\n\r\n")
            let whole = try await client.readResponse()
            #expect(whole.header("content-length") == "\("😺 one".utf8.count)")
            #expect(whole.text == "😺 one")
            try await client.send("GET /none HTTP/1.1\r\nHost: x\r\n\r\n")
            let empty = try await client.readResponse()
            #expect(empty.header("content-length") == "0")
            #expect(empty.text == "")
            try await client.send("GET /one HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().text == "😺 one", "the connection is still in step")
        }
    }

    /// A body in memory of known length (iterable more than once) whose first chunk fills that
    /// length is sent without asking it for a next chunk (each ask goes through the runtime's
    /// async layers); a stream of the same shape is still read to its end.
    @Test func responseBodies_KnownLengthFilledByTheFirstChunk_InMemoryAskedOnce_StreamToItsEnd() async throws {
        let asks = Mutex<[String: Int]>([:])
        func counted(_ name: String, _ behavior: IterationBehavior) -> Handler {
            { _, _, _ in
                let chunks = CountedChunks(chunks: [ArraySlice("hello".utf8)]) { asks.withLock { $0[name, default: 0] += 1 } }
                return (HTTPResponse(status: .ok), HTTPBody(chunks, length: .known(5), iterationBehavior: behavior))
            }
        }
        try await withTransport([(.get, "/memory", counted("memory", .multiple)), (.get, "/stream", counted("stream", .single))]) { client in
            for path in ["/memory", "/stream"] {
                try await client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                let response = try await client.readResponse()
                #expect(response.header("content-length") == "5")
                #expect(response.text == "hello")
            }
        }
        #expect(asks.withLock { $0 } == ["memory": 1, "stream": 2])
    }

    /// `chunks` as an async sequence that calls `asked` each time an iterator is asked for one.
    struct CountedChunks: AsyncSequence, Sendable {
        let chunks: [ArraySlice<UInt8>]
        let asked: @Sendable () -> Void

        struct Iterator: AsyncIteratorProtocol {
            var rest: ArraySlice<ArraySlice<UInt8>>
            let asked: @Sendable () -> Void

            mutating func next() async -> ArraySlice<UInt8>? {
                asked()
                return rest.popFirst()
            }
        }

        func makeAsyncIterator() -> Iterator { Iterator(rest: chunks[...], asked: asked) }
    }

    struct Teapot: Error, HTTPResponseConvertible {
        var httpStatus: HTTPResponse.Status { .init(code: 418) }
        var httpHeaderFields: HTTPFields { [.init("X-Reason")!: "short and stout"] }
        var httpBody: HTTPBody? { HTTPBody("no coffee") }
    }

    struct Hidden: Error, CustomStringConvertible { var description: String { "database password is hunter2" } }

    @Test func errors_ConvertibleBecomeTheirStatus_OthersBecome500WithoutDetails() async throws {
        let teapot: Handler = { _, _, _ in throw Teapot() }
        let hidden: Handler = { _, _, _ in throw Hidden() }
        let badRequest: Handler = { request, body, metadata in
            throw ServerError(
                operationID: "getEmoji", request: request, requestBody: body, requestMetadata: metadata,
                causeDescription: "Unexpected query parameter value for count", underlyingError: RuntimeErrorStandIn(),
                httpStatus: .badRequest, httpHeaderFields: [:], httpBody: nil
            )
        }
        let serverError: Handler = { request, body, metadata in
            throw ServerError(operationID: "x", request: request, requestBody: body, requestMetadata: metadata, causeDescription: "Unknown", underlyingError: Hidden())
        }
        try await withTransport([(.get, "/teapot", teapot), (.get, "/hidden", hidden), (.get, "/bad", badRequest), (.get, "/server", serverError)]) { client in
            try await client.send("GET /teapot HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 418)
            #expect(response.header("x-reason") == "short and stout")
            #expect(response.text == "no coffee")

            try await client.send("GET /hidden HTTP/1.1\r\nHost: x\r\n\r\n")
            let hidden = try await client.readResponse()
            #expect(hidden.status == 500)
            #expect(!hidden.text.contains("hunter2"))

            try await client.send("GET /bad HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n")
            let bad = try await client.readResponse()
            #expect(bad.status == 400)
            #expect(bad.header("content-type") == "application/problem+json", "a 4xx without a body is problem details")
            #expect(bad.text == #"{"type":"about:blank","title":"Bad Request","status":400,"detail":"Unexpected query parameter value for count"}"#)

            try await client.send("GET /bad HTTP/1.1\r\nHost: x\r\nAccept: text/plain\r\n\r\n")
            let badText = try await client.readResponse()
            #expect(badText.header("content-type") == "text/plain; charset=utf-8", "plain text for a client that asks only for text")
            #expect(badText.text == "Bad Request: Unexpected query parameter value for count\n")

            try await client.send("GET /server HTTP/1.1\r\nHost: x\r\n\r\n")
            let server = try await client.readResponse()
            #expect(server.status == 500)
            #expect(server.header("content-type") == "application/problem+json")
            #expect(server.text == #"{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"the server failed to answer this request"}"#)
        }
    }

    struct RuntimeErrorStandIn: Error {}

    @Test func severalHandlerTypes_ShareOneTransport_DuplicatesThrowNamingBoth() async throws {
        let server = WhiskerServer(configuration: .init(host: "127.0.0.1", port: 0))
        let transport = WhiskerTransport(server)
        try transport.register(Self.describeBody, method: .get, path: "/v1/pets/{id}")
        try transport.register(Self.describeBody, method: .get, path: "/v2/pets/{id}")
        let error = #expect(throws: RouteError.self) {
            try transport.register(Self.describeBody, method: .get, path: "/v1/pets/{petId}")
        }
        #expect(error?.description == "route GET /v1/pets/{petId} conflicts with GET /v1/pets/{id}, registered earlier")
    }

    @Test func requestBodyStreams_AsTheHandlerPulls() async throws {
        let firstChunk = Mutex<Int?>(nil)
        let handler: Handler = { _, body, _ in
            var total = 0
            for try await chunk in body! {
                firstChunk.withLock { $0 = $0 ?? chunk.count }
                total += chunk.count
            }
            return (HTTPResponse(status: .ok), HTTPBody("\(total)"))
        }
        try await withTransport([(.put, "/big", handler)]) { client in
            let size = 8 * 1024 * 1024
            try await client.send("PUT /big HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\n\r\n")
            try await client.sendPattern(count: size)
            #expect(try await client.readResponse().text == "\(size)")
        }
        #expect((firstChunk.withLock { $0 } ?? .max) < 8 * 1024 * 1024, "the body arrived in pieces, not collected first")
    }
}
