public import struct Foundation.URL
public import HTTPTypes
public import OpenAPIRuntime
public import OpenAPIWhiskerDocument

/// The request examples of an OpenAPI document, replayed as tests: each sent through a transport
/// (``WhiskerTestTransport``, to your real handlers) and each answer checked against the response
/// the document documents for it.
///
///     let server = makeTestServer()
///     try MyHandler().registerHandlers(on: WhiskerTransport(server), serverURL: try Servers.Server1.url())
///     let report = try await DocumentExamples(.embedded).replay(
///         through: WhiskerTestTransport(server), serverURL: try Servers.Server1.url()
///     )
///     #expect(report.failures.isEmpty, "\(report)")
///
/// **The requests.** Each operation makes one request per name its examples have (the request
/// body's `examples` and its parameters', the values of the same name together), or one request
/// from its unnamed examples (`example`, a schema's `example`). A parameter without an example is
/// left out unless it is required; an operation that needs a value no example gives (a required
/// parameter or body) is listed in ``Report/skipped`` with the reason, not failed. An operation
/// with nothing required and no example is still sent once, as it is.
///
/// **The answers.** A response passes when its status is documented for the operation and is the
/// one the example expects (the status of the response whose example has the same name, or else
/// any success: 2XX or 3XX), its `Content-Type` is documented for that status, and its body is
/// valid: a JSON body against its schema, each item of a `text/event-stream`, JSON Lines or JSON
/// text sequence against its `itemSchema` (OpenAPI 3.2). A body is read up to 1 MiB (past that,
/// only its type is checked), within `timeout`.
public struct DocumentExamples: Sendable {
    /// The most of a response body read to be checked.
    static let bodyLimit = 1 << 20

    private let operations: DocumentOperations

    /// Reads the examples of `document`.
    /// - Throws: ``/OpenAPIWhiskerDocument/DocumentError`` if the document cannot be read.
    public init(_ document: OpenAPIDocument) throws(DocumentError) {
        operations = try DocumentOperations(document)
    }

    /// Sends each example request through `transport` and checks each answer.
    /// - Parameters:
    ///   - transport: Where the requests go: ``WhiskerTestTransport`` for your server's handlers.
    ///   - serverURL: The server URL the handlers were registered under (the generated
    ///     `Servers.Server1.url()`): its path is put before each operation's.
    ///   - headerFields: Fields every request carries, in place of an example's of the same name:
    ///     the credentials an operation's security scheme wants (`Authorization: Bearer ...`).
    ///   - timeout: How long one answer, its body included, may take.
    ///   - operationIDs: The operations whose examples are replayed; `nil` (the default) for all.
    /// - Returns: Each request's outcome, in the document's order, and what was skipped.
    /// - Throws: Only what cancels the replay; a request that fails is an outcome with a problem.
    public func replay(
        through transport: some ClientTransport, serverURL: URL, headerFields: HTTPFields = [:], timeout: Duration = .seconds(30),
        only operationIDs: Set<String>? = nil
    ) async throws -> Report {
        let (requests, skipped) = operations.exampleRequests()
        var outcomes: [Outcome] = []
        for example in requests where operationIDs?.contains(example.operationID) ?? true {
            try Task.checkCancellation()
            var request = HTTPRequest(method: HTTPRequest.Method(example.method) ?? .get, scheme: nil, authority: nil, path: example.target)
            for (name, value) in example.headerFields {
                if let name = HTTPField.Name(name) { request.headerFields.append(HTTPField(name: name, value: value)) }
            }
            for field in headerFields {
                request.headerFields[field.name] = field.value
            }
            let line = "\(example.method) \(example.target)"
            var outcome = Outcome(operationID: example.operationID, example: example.name, request: line, status: nil, problems: [])
            do {
                let (status, contentType, body) = try await Self.answer(to: request, body: example.body, through: transport, serverURL: serverURL, timeout: timeout)
                outcome.status = status
                outcome.problems = operations.problems(ofAnswer: status, contentType: contentType, body: body, to: example)
            } catch {
                outcome.problems = ["\(error)"]
            }
            outcomes.append(outcome)
        }
        let skips = skipped.filter { operationIDs?.contains($0.operationID) ?? true }
        return Report(outcomes: outcomes, skipped: skips.map { Skipped(operationID: $0.operationID, example: $0.name, reason: $0.reason) })
    }

    /// The status, `Content-Type` and body (`nil` past the limit) of the answer to `request`.
    private static func answer(
        to request: HTTPRequest, body: [UInt8]?, through transport: some ClientTransport, serverURL: URL, timeout: Duration
    ) async throws -> (Int, String?, [UInt8]?) {
        try await withThrowingTaskGroup(of: (Int, String?, [UInt8]?)?.self) { group in
            group.addTask {
                let (response, responseBody) = try await transport.send(
                    request, body: body.map { HTTPBody($0) }, baseURL: serverURL, operationID: ""
                )
                var bytes: [UInt8] = []
                var whole = true
                for try await chunk in responseBody ?? HTTPBody() {
                    guard bytes.count + chunk.count <= bodyLimit else {
                        whole = false
                        break
                    }
                    bytes += chunk
                }
                return (response.status.code, response.headerFields[.contentType], whole ? bytes : nil)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let answer = try await group.next() ?? nil else { throw ExampleTimeout(timeout: timeout) }
            return answer
        }
    }

    /// What one example request got.
    public struct Outcome: Sendable, CustomStringConvertible {
        /// The operation's `operationId`.
        public var operationID: String
        /// The example's name, `nil` when the operation's examples have none.
        public var example: String?
        /// The request's method and target, under the server URL's path: `GET /emoji?count=3`.
        public var request: String
        /// The answer's status, `nil` if none came.
        public var status: Int?
        /// What the answer does that the document does not say; empty when it passed.
        public var problems: [String]

        public var description: String {
            let name = example.map { " (example \($0))" } ?? ""
            let answer = status.map { "answered \($0)" } ?? "got no answer"
            return "\(operationID)\(name): \(request) \(answer)" + (problems.isEmpty ? "" : ": " + problems.joined(separator: "; "))
        }
    }

    /// An example request that could not be made, and why ("its query parameter id is required
    /// and has no example").
    public struct Skipped: Sendable, CustomStringConvertible {
        /// The operation's `operationId`.
        public var operationID: String
        /// The example's name, `nil` when the operation's examples have none.
        public var example: String?
        /// Why no request could be made: the required value that has no example.
        public var reason: String

        public var description: String { "\(operationID)\(example.map { " (example \($0))" } ?? ""): skipped, \(reason)" }
    }

    /// What a replay found: each request's outcome, and the examples that could not be made.
    public struct Report: Sendable, CustomStringConvertible {
        /// Each request's outcome, in the document's order.
        public var outcomes: [Outcome]
        /// The examples no request could be made from.
        public var skipped: [Skipped]

        /// The outcomes with a problem.
        public var failures: [Outcome] { outcomes.filter { !$0.problems.isEmpty } }

        /// One line per outcome and per skipped example: what a failed expectation prints.
        public var description: String {
            (outcomes.map { ($0.problems.isEmpty ? "pass " : "FAIL ") + $0.description } + skipped.map { "skip " + $0.description })
                .joined(separator: "\n")
        }
    }
}

/// An answer that did not come, body and all, within the replay's timeout.
struct ExampleTimeout: Error, CustomStringConvertible {
    let timeout: Duration
    var description: String { "no complete answer within \(timeout)" }
}
