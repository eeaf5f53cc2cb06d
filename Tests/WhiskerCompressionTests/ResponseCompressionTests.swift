import HTTPTypes
import Synchronization
import Testing
@testable import WhiskerCompression
import WhiskerCore

/// What ``ResponseCompression`` does to a response, for a request: which it codes, which it leaves,
/// and the fields it sets.
@Suite struct ResponseCompressionTests {
    private static let json = Array(("[" + (1...100).map { "{\"id\":\($0),\"name\":\"cat \($0)\"}" }.joined(separator: ",") + "]").utf8)
    private let compression = ResponseCompression(settings: CompressionSettings())

    private func request(_ acceptEncoding: String? = "gzip, br") -> HTTPRequest {
        var request = HTTPRequest(method: .get, scheme: nil, authority: "x", path: "/")
        if let acceptEncoding { request.headerFields[.acceptEncoding] = acceptEncoding }
        return request
    }

    private func response(_ fields: HTTPFields = [.contentType: "application/json"], status: HTTPResponse.Status = .ok, body: [UInt8] = json) -> Response {
        Response(status: status, headerFields: fields, body: ResponseBody(bytes: body))
    }

    private func bytes(_ response: Response) -> [UInt8]? {
        guard case .bytes(let bytes) = response.body.storage else { return nil }
        return Array(bytes)
    }

    @Test func aJSONBody_IsCodedInThePreferredCoding_WithItsFields() throws {
        var fields: HTTPFields = [.contentType: "application/json; charset=utf-8", .eTag: "\"abc\""]
        fields[.contentLength] = "\(Self.json.count)"
        let coded = compression.encode(response(fields), for: request("gzip;q=0.9, br"))
        #expect(coded.head.headerFields[.contentEncoding] == "br")
        #expect(coded.head.headerFields[.vary] == "Accept-Encoding")
        #expect(coded.head.headerFields[.eTag] == "W/\"abc\"", "the coded bytes are not the ones the strong tag named")
        #expect(coded.head.headerFields[.contentLength] == nil, "the identity length is gone")
        #expect(try ContentCoding.brotli.decode(try #require(bytes(coded))) == Self.json)

        let gzip = compression.encode(response(), for: request("gzip"))
        #expect(gzip.head.headerFields[.contentEncoding] == "gzip")
        #expect(try ContentCoding.gzip.decode(try #require(bytes(gzip))) == Self.json)
    }

    @Test func aClientThatTakesNoCoding_GetsTheIdentityBody_WithVary() {
        for acceptEncoding in [nil, "identity", "gzip;q=0, br;q=0, zstd;q=0", "compress"] as [String?] {
            let plain = compression.encode(response(), for: request(acceptEncoding))
            #expect(plain.head.headerFields[.contentEncoding] == nil)
            #expect(plain.head.headerFields[.vary] == "Accept-Encoding", "a cache must still tell the codings apart")
            #expect(bytes(plain) == Self.json)
        }
    }

    @Test func responsesThatMustNotBeCoded_AreLeftAlone_WithoutVary() {
        let untouched: [(String, Response)] = [
            ("below the minimum size", response(body: Array("{\"id\":1}".utf8))),
            ("an image", response([.contentType: "image/png"])),
            ("no content type", response([:])),
            ("a range", response([.contentType: "application/json", .contentRange: "bytes 0-9/100"], status: .partialContent)),
            ("already coded", response([.contentType: "application/json", .contentEncoding: "gzip"])),
            ("no-transform", response([.contentType: "application/json", .cacheControl: "public, No-Transform"])),
            ("204", response(status: .noContent, body: [])),
            ("304", response(status: .notModified, body: [])),
            ("empty", Response(status: .ok, headerFields: [.contentType: "text/plain"])),
        ]
        for (why, original) in untouched {
            let result = compression.encode(original, for: request())
            #expect(result.head.headerFields[.contentEncoding] == original.head.headerFields[.contentEncoding], "\(why)")
            #expect(result.head.headerFields[.vary] == nil, "\(why)")
            #expect(bytes(result) == bytes(original), "\(why)")
        }
    }

    @Test func compressibleTypes() {
        let settings = CompressionSettings(additionalTypes: ["application/wasm"])
        for type in ["text/plain", "text/html; charset=utf-8", "text/event-stream", "application/json", "application/problem+json",
                     "image/svg+xml", "application/x-ndjson", "application/yaml", "Application/JSON", "application/wasm"] {
            #expect(settings.compresses(MediaType(type)!), "\(type)")
        }
        for type in ["image/png", "video/mp4", "application/octet-stream", "application/zip", "font/woff2"] {
            #expect(!settings.compresses(MediaType(type)!), "\(type)")
        }
    }

    @Test func vary_IsExtendedOnce() {
        let withOrigin = compression.encode(response([.contentType: "text/plain", .vary: "Origin"]), for: request())
        #expect(withOrigin.head.headerFields[values: .vary] == ["Origin", "Accept-Encoding"])
        let already = compression.encode(response([.contentType: "text/plain", .vary: "origin, accept-encoding"]), for: request())
        #expect(already.head.headerFields[values: .vary] == ["origin, accept-encoding"])
        let star = compression.encode(response([.contentType: "text/plain", .vary: "*"]), for: request())
        #expect(star.head.headerFields[values: .vary] == ["*"])
    }

    @Test func aSmallerMinimum_CodesSmallBodies() throws {
        let eager = ResponseCompression(settings: CompressionSettings(codings: [.gzip], minimumSize: 1))
        let coded = eager.encode(response([.contentType: "text/plain"], body: Array("hi".utf8)), for: request())
        #expect(coded.head.headerFields[.contentEncoding] == "gzip")
        #expect(try ContentCoding.gzip.decode(try #require(bytes(coded))) == Array("hi".utf8))
    }

    @Test(arguments: ContentCoding.allCases)
    func aStream_IsCodedAsItFlows_EachWriteDecodableAtOnce(coding: ContentCoding) async throws {
        let events = ["id: 1\ndata: 🐱\n\n", "id: 2\ndata: 😹\n\n", "id: 3\ndata: 😻\n\n"]
        let original = Response(status: .ok, headerFields: [.contentType: "text/event-stream"], body: ResponseBody(length: nil) { writer in
            for event in events { try await writer.write(Array(event.utf8)) }
        })
        let coded = compression.encode(original, for: request(coding.token))
        #expect(coded.head.headerFields[.contentEncoding] == coding.token)
        guard case .stream(let length, let write) = coded.body.storage else {
            Issue.record("not a stream")
            return
        }
        #expect(length == nil)
        let written = CollectingSink()
        try await write(ResponseBodyWriter(sink: written))
        // Every event is one write, and decodes as soon as it is written; then the stream's end.
        let writes = written.writes
        #expect(writes.count == events.count + 1)
        let decoder = try coding.decoder()
        for (write, event) in zip(writes, events) {
            #expect(String(decoding: try decoder.decode(write), as: UTF8.self) == event)
        }
        #expect(try decoder.decode(try #require(writes.last)).isEmpty)
        #expect(decoder.isFinished)
    }

    @Test func aStreamOfKnownSmallLength_IsLeftAlone() {
        let small = Response(status: .ok, headerFields: [.contentType: "text/plain"], body: ResponseBody(length: 10) { writer in
            try await writer.write(Array("0123456789".utf8))
        })
        #expect(compression.encode(small, for: request()).head.headerFields[.contentEncoding] == nil)
    }
}

/// Keeps every write it is given, in order.
final class CollectingSink: ResponseBodySink {
    private let collected = Mutex<[[UInt8]]>([])
    var writes: [[UInt8]] { collected.withLock { $0 } }

    func writeBodyChunk(_ bytes: ArraySlice<UInt8>) async throws {
        collected.withLock { $0.append(Array(bytes)) }
    }
}
