public import struct Foundation.URL
import HTTPTypes
import OpenAPIRuntime
import OpenAPIWhisker
public import OpenAPIWhiskerDocument
public import WhiskerCore

/// A server for an OpenAPI document with no code behind it: each operation answers from the
/// document's examples, or with a value its schema allows, after the request is validated as
/// ``/OpenAPIWhisker/WhiskerTransport`` validates it. For a team that writes the document first: the
/// client, the tests and the docs page can start before the handlers exist.
///
///     let server = WhiskerServer(configuration: .init(host: "127.0.0.1", port: 4010))
///     try DocumentMock(try OpenAPIDocument(yaml: bytes)).register(on: server)
///     try await server.run()
///
/// `whisker-mock openapi.yaml --port 4010` does the same from the command line.
///
/// **What each operation answers.** The request's `Prefer` field (RFC 7240) chooses:
/// `Prefer: code=404` the response of that status, `Prefer: example=NAME` the response whose
/// example has that name; without it, the operation's first success (its lowest `2XX`, else
/// `default`). The media type is the first of that response's that the request's `Accept` takes.
/// The body is that media type's example (the named one, else `example`, else its first), else a
/// value made from its schema: the schema's own `example` where valid, else one its keywords allow
/// (`const`, the first of `enum`, a `format`'s usual value, the smallest number in bounds, the
/// required properties and the others); for a stream with an `itemSchema`, three such items, as
/// server-sent events, JSON lines or JSON text sequence records. The response's documented
/// headers are set when they have an example, or are required. A `Prefer` the operation cannot
/// answer gets `400` with problem details saying why, and `Preference-Applied` says what was.
///
/// **What it enforces.** Requests are validated against the document (parameters, bodies, media
/// types: `400`, `413`, `415`, as a real server's), and an operation with security wants a
/// credential of its scheme (`401` without one): any credential, or one of those given
/// (`credentials:`), which holds every scope the document names. The document is served beside
/// the operations, with the docs page
/// (``/OpenAPIWhisker/WhiskerTransport/serveDocument(_:serverURL:)``).
public struct DocumentMock: Sendable {
    private let document: OpenAPIDocument
    private let operations: DocumentOperations
    private let credentials: Set<String>?

    /// A mock of `document`.
    /// - Parameters:
    ///   - document: The document to answer as.
    ///   - credentials: The credentials its security schemes accept: a bearer token, an API key,
    ///     or `user:password` for basic; `nil` (the default) accepts any.
    /// - Throws: ``/OpenAPIWhiskerDocument/DocumentError`` if the document cannot be read.
    public init(_ document: OpenAPIDocument, credentials: Set<String>? = nil) throws(DocumentError) {
        self.document = document
        self.credentials = credentials
        operations = try DocumentOperations(document)
    }

    /// The document's first server URL (`http://localhost:8080/api`), or `/` when it has none:
    /// where ``register(on:serverURL:)`` puts the operations by default.
    public var serverURL: URL {
        operations.serverURL.flatMap { URL(string: $0) } ?? URL(string: "/")!
    }

    /// The number of operations the document has.
    public var operationCount: Int { operations.operations.count }

    /// Registers each operation of the document on `server`, under the path of `serverURL`, and
    /// the document and its docs page beside them.
    /// - Parameters:
    ///   - server: The server to answer on; not yet running.
    ///   - serverURL: Where the operations are: its path is put before each operation's path. By
    ///     default the document's first server URL (``serverURL``).
    /// - Throws: ``/WhiskerCore/RouteError`` if a path is already registered, or
    ///   ``/OpenAPIWhiskerDocument/DocumentError`` if the document cannot be validated against.
    public func register(on server: WhiskerServer, serverURL: URL? = nil) throws {
        let serverURL = serverURL ?? self.serverURL
        let needs = operations.securityNeeds
        let principal = Principal(name: "mock", scopes: needs.scopes)
        var authenticators: [String: Authenticator] = [:]
        let credentials = credentials
        for scheme in needs.schemes {
            authenticators[scheme] = { credential in
                guard let credentials else { return principal }
                let secret = credential.bearerToken ?? credential.apiKey ?? credential.basic.map { "\($0.user):\($0.password)" }
                return secret.map(credentials.contains) == true ? principal : nil
            }
        }
        let transport = try WhiskerTransport(server, validatingAgainst: document, authenticators: authenticators)
        var prefix = serverURL.path
        while prefix.hasSuffix("/") { prefix.removeLast() }
        for operation in operations.operations {
            guard let method = HTTPRequest.Method(operation.method) else { continue }
            let operations = operations
            let id = operation.id
            try transport.register({ request, _, _ in
                Self.answer(operations, id, to: request)
            }, method: method, path: prefix + operation.path)
        }
        try transport.serveDocument(document, serverURL: serverURL)
    }

    private static let prefer = HTTPField.Name("Prefer")!
    private static let preferenceApplied = HTTPField.Name("Preference-Applied")!

    private static func answer(_ operations: DocumentOperations, _ id: String, to request: HTTPRequest) -> (HTTPResponse, HTTPBody?) {
        let prefer = request.headerFields[prefer]
        do {
            let answer = try operations.mockAnswer(operationID: id, prefer: prefer, accept: request.headerFields[.accept])
            var fields = HTTPFields()
            for (name, value) in answer.headerFields {
                if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
            }
            if let prefer { fields[preferenceApplied] = prefer }
            return (HTTPResponse(status: .init(code: answer.status), headerFields: fields), answer.body.isEmpty ? nil : HTTPBody(answer.body))
        } catch {
            let problem = ProblemDetails(status: .badRequest, detail: error.detail).response(to: request)
            guard case .bytes(let bytes) = problem.body.storage else { return (problem.head, nil) }
            return (problem.head, HTTPBody(Array(bytes)))
        }
    }
}
