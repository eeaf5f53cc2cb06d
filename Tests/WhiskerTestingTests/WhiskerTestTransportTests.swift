import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerTesting

/// WhiskerTestTransport's `send`, as a generated client calls it, against routes registered on
/// the server directly: in process and live, over HTTP/1.1 and h2c, bodies streaming both ways.
@Suite struct WhiskerTestTransportTests {
    /// The four ways a test can reach a server.
    enum Mode: String, CaseIterable, CustomTestStringConvertible {
        case inProcessHTTP1, inProcessHTTP2, liveHTTP1, liveHTTP2
        var testDescription: String { rawValue }
        var version: WhiskerTestTransport.HTTPVersion { self == .inProcessHTTP1 || self == .liveHTTP1 ? .http1 : .http2 }
        var isLive: Bool { self == .liveHTTP1 || self == .liveHTTP2 }
    }

    static let baseURL = URL(string: "http://localhost:8080/api")!

    /// Runs `body` with a transport to `server` in `mode` (running the server for a live one).
    func withTransport(_ mode: Mode, _ server: WhiskerServer, _ body: @Sendable (WhiskerTestTransport) async throws -> Void) async throws {
        if mode.isLive {
            try await WhiskerTestTransport.live(server, over: mode.version, body)
        } else {
            try await body(WhiskerTestTransport(server, over: mode.version))
        }
    }

    func makeServer() -> WhiskerServer {
        makeTestServer { $0.http2 = HTTP2Settings() }
    }

    @Test(arguments: Mode.allCases)
    func get_UnderTheServerURLsPath(_ mode: Mode) async throws {
        let server = makeServer()
        try server.register(method: .get, path: "/api/hello/{name}") { request in
            Response(status: .ok, headerFields: [.contentType: "text/plain"], body: .init(string: "hello \(request.pathParameters["name"]!) \(request.head.headerFields[.accept] ?? "-")"))
        }
        try await withTransport(mode, server) { transport in
            var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/hello/tom?x=1")
            request.headerFields[.accept] = "text/plain"
            let (response, body) = try await transport.send(request, body: nil, baseURL: Self.baseURL, operationID: "hello")
            #expect(response.status == .ok)
            #expect(response.headerFields[.contentType] == "text/plain")
            #expect(try await String(collecting: #require(body), upTo: 1024) == "hello tom text/plain")

            let (missing, problem) = try await transport.send(
                HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/nothing"), body: nil, baseURL: Self.baseURL, operationID: "nothing")
            #expect(missing.status == .notFound)
            #expect(try await String(collecting: #require(problem), upTo: 4096).contains("/api/nothing"))

            let (head, none) = try await transport.send(
                HTTPRequest(method: .head, scheme: nil, authority: nil, path: "/hello/tom"), body: nil, baseURL: Self.baseURL, operationID: "head")
            #expect(head.status == .ok && none == nil)
        }
    }

    /// A 20 MiB upload, made as it is sent, streams into the handler: the client is never more
    /// than a few windows ahead of what the handler has read (the pipe's, the body channel's,
    /// HTTP/2 flow control's; live, the kernel's socket buffers too).
    @Test(arguments: Mode.allCases, [true, false])
    func upload_StreamsIntoTheHandler(_ mode: Mode, knownLength: Bool) async throws {
        let size = 20 << 20
        let progress = UploadProgress()
        let server = makeServer()
        try server.register(method: .post, path: "/api/count", maxRequestBodySize: .maximum(64 << 20)) { request in
            var count = 0
            for try await chunk in request.body! {
                count += chunk.count
                progress.read.store(count, ordering: .relaxed)
            }
            return Response(status: .ok, body: .init(string: "\(count)"))
        }
        let upload = PatternUpload(size: size, progress: progress)
        try await withTransport(mode, server) { transport in
            let body = HTTPBody(upload, length: knownLength ? .known(Int64(size)) : .unknown, iterationBehavior: .single)
            let (response, answer) = try await transport.send(
                HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/count"), body: body, baseURL: Self.baseURL, operationID: "count")
            #expect(response.status == .ok)
            #expect(try await String(collecting: #require(answer), upTo: 64) == "\(size)")
        }
        let lead = progress.largestLead.load(ordering: .relaxed)
        #expect(lead < (mode.isLive ? 12 << 20 : 1 << 20), "the client ran \(lead) bytes ahead of the handler")
    }

    /// The response body is readable as the handler writes it: the handler writes its second
    /// piece only once the client has read the first.
    @Test(arguments: Mode.allCases)
    func responseBody_ReadAsItIsWritten(_ mode: Mode) async throws {
        let firstRead = Signal<Void>()
        let server = makeServer()
        try server.register(method: .get, path: "/api/ticks") { _ in
            Response(status: .ok, headerFields: [.contentType: "text/event-stream"], body: ResponseBody(length: nil) { writer in
                try await writer.write(Array("tick 1\n".utf8)[...])
                guard await firstRead.wait() != nil else { throw CancellationError() }
                try await writer.write(Array("tick 2\n".utf8)[...])
            })
        }
        try await withTransport(mode, server) { transport in
            let (response, body) = try await transport.send(
                HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/ticks"), body: nil, baseURL: Self.baseURL, operationID: "ticks")
            #expect(response.status == .ok)
            var iterator = try #require(body).makeAsyncIterator()
            #expect(try await iterator.next().map { String(decoding: $0, as: UTF8.self) } == "tick 1\n")
            firstRead.fire()
            var rest: [UInt8] = []
            while let chunk = try await iterator.next() { rest += chunk }
            #expect(String(decoding: rest, as: UTF8.self) == "tick 2\n")
        }
    }

    /// A response body dropped unread closes its connection: the handler is cancelled, as when a
    /// client leaves.
    @Test(arguments: Mode.allCases)
    func droppedBody_CancelsTheHandler(_ mode: Mode) async throws {
        let started = Signal<Void>()
        let cancelled = Signal<Void>()
        let server = makeServer()
        try server.register(method: .get, path: "/api/forever") { _ in
            Response(status: .ok, body: ResponseBody(length: nil) { writer in
                try await writer.write(Array("first\n".utf8)[...])
                started.fire()
                await withTaskCancellationHandler {
                    _ = await Signal<Void>().wait(timeout: .seconds(60))
                } onCancel: {
                    cancelled.fire()
                }
            })
        }
        try await withTransport(mode, server) { transport in
            do {
                let (response, body) = try await transport.send(
                    HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/forever"), body: nil, baseURL: Self.baseURL, operationID: "forever")
                #expect(response.status == .ok)
                _ = body
            }
            #expect(await started.wait() != nil)
            #expect(await cancelled.wait() != nil, "the handler's task was cancelled when the body was dropped")
        }
    }
}

/// How far an upload got: what the handler has read, and how far ahead of it the client ever was.
final class UploadProgress: Sendable {
    let read = Atomic<Int>(0)
    let largestLead = Atomic<Int>(0)
}

/// `size` bytes of a repeating pattern in 64 KiB pieces, each made when asked for, recording in
/// `progress` how far ahead of the handler's reading the upload ever got.
struct PatternUpload: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let size: Int
    let progress: UploadProgress
    static let piece = ArraySlice((0..<(64 * 1024)).map { UInt8(truncatingIfNeeded: $0) })

    func makeAsyncIterator() -> Iterator { Iterator(upload: self) }

    struct Iterator: AsyncIteratorProtocol {
        let upload: PatternUpload
        var sent = 0
        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard sent < upload.size else { return nil }
            let lead = sent - upload.progress.read.load(ordering: .relaxed)
            upload.progress.largestLead.store(Swift.max(lead, upload.progress.largestLead.load(ordering: .relaxed)), ordering: .relaxed)
            let count = Swift.min(PatternUpload.piece.count, upload.size - sent)
            sent += count
            return PatternUpload.piece.prefix(count)
        }
    }
}
