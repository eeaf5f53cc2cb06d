#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes
@_spi(Generated) import OpenAPIRuntime
import OpenAPIWhisker
import WhiskerCore

/// Two of the demo's operations served as `cat-service` serves them: through `WhiskerTransport`,
/// each request checked against the demo's own document (validation on, as `make run` starts
/// it), each handler decoding its input and encoding its output with swift-openapi-runtime's
/// `Converter`, as the code swift-openapi-generator makes from that document does.
///
/// - `getEmoji`, `GET /api/emoji?count=3`: the query parameter checked (an integer, 1...100),
///   then decoded by the runtime's URI decoder; three cats as `text/plain`.
/// - `adoptCat`, `POST /api/adopt` with `{"name":"Tabby"}`: the body's media type checked, the
///   body read and checked against `Adoption` (an object, `name` required, 1 to 100 characters,
///   `pattern: '\S'`), then decoded by the runtime's JSON decoder; `201` with a `Welcome`
///   encoded by its JSON encoder.
///   The document declares an optional `Idempotency-Key` header on it (`x-idempotency: optional`):
///   the checks read the absent field on every request, 9 allocations in this debug build (219 to
///   228, issue 42), and the idempotency middleware the transport adds passes a request without a
///   key on with none (`make test-budget-stacks` shows no stack of it).
///
/// What the demo adds around them is left out: its rate limit on `adoptCat`, its metrics and
/// access-log observers, the security check of `getShelterReport` (no authenticators are given:
/// the two operations here have no security requirements anyway).
enum DemoOperations {
    /// One server with both operations, shared by the two benchmarks (each opens its own
    /// connection).
    static let budget = Budget { server in
        let transport = try WhiskerTransport(
            server, requestBodyLimits: ["POST /api/adopt": .maximum(1024)],
            validatingAgainst: OpenAPIDocument(yaml: try demoDocument()))
        let converter = Converter(configuration: .init())
        try transport.register({ request, _, _ in
            // As the generated `getEmoji` reads its input: the query through the URI decoder.
            let count = try converter.getOptionalQueryItemAsURI(in: request.soar_query, style: .form, explode: true, name: "count", as: Int.self) ?? 1
            var fields = HTTPFields()
            let body = try converter.setResponseBodyAsBinary(HTTPBody(String(repeating: "😺", count: count)), headerFields: &fields, contentType: "text/plain")
            return (HTTPResponse(status: .ok, headerFields: fields), body)
        }, method: .get, path: "/api/emoji")
        try transport.register({ _, body, _ in
            let adoption = try await converter.getRequiredRequestBodyAsJSON(Adoption.self, from: body, transforming: { $0 })
            var fields = HTTPFields()
            let answer = try converter.setResponseBodyAsJSON(Welcome(message: "Welcome home, \(adoption.name)!"), headerFields: &fields, contentType: "application/json; charset=utf-8")
            return (HTTPResponse(status: .created, headerFields: fields), answer)
        }, method: .post, path: "/api/adopt")
    }

    static let emojiRequest = Array("GET /api/emoji?count=3 HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
    private static let ok = Array("HTTP/1.1 200 OK\r\n".utf8)
    private static let threeCats = Array("😺😺😺".utf8)
    static let isEmojiResponse: @Sendable (ArraySlice<UInt8>) -> Bool = { hasPrefix($0, ok) && hasSuffix($0, threeCats) }

    static let adoptRequest = Array("""
        POST /api/adopt HTTP/1.1\r
        Host: localhost\r
        Content-Type: application/json\r
        Content-Length: 16\r
        \r
        {"name":"Tabby"}
        """.utf8)
    private static let created = Array("HTTP/1.1 201 Created\r\n".utf8)
    private static let welcome = Array("\"Welcome home, Tabby!\"\n}".utf8)
    static let isAdoptResponse: @Sendable (ArraySlice<UInt8>) -> Bool = { hasPrefix($0, created) && hasSuffix($0, welcome) }

    /// The generated `Components.Schemas.Adoption`, as far as the handler reads it.
    struct Adoption: Codable, Sendable { var name: String }
    /// The generated `Components.Schemas.Welcome`.
    struct Welcome: Codable, Sendable { var message: String }

    /// The demo's document, found from this file's path (as WhiskerTesting's `TestCertificates`
    /// finds the certificates): Demo/CatService/Sources/CatServiceCore/openapi.yaml.
    static func demoDocument() throws -> [UInt8] {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(5)  // this file, AllocationBudget, Benchmarks, Allocations, Benchmarks
        let path = parts.joined(separator: "/") + "/Demo/CatService/Sources/CatServiceCore/openapi.yaml"
        guard let file = fopen(path, "rb") else { throw MissingDocument(path: path) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while case let count = fread(&chunk, 1, chunk.count, file), count > 0 { bytes += chunk[..<count] }
        return bytes
    }

    struct MissingDocument: Error, CustomStringConvertible {
        let path: String
        var description: String { "cannot read the demo's document at \(path)" }
    }
}
