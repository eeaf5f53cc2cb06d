#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import HTTPTypes
public import Logging
import Synchronization
public import WhiskerCore

/// The source of this file's log lines: the transport's, as before the module was split from it
/// (issue 39), so that a filter on `[OpenAPIWhisker]` still sees them.
private let logSource = "OpenAPIWhisker"

/// A response that does not do what the document says its operation answers.
public struct ContractViolation: Sendable, CustomStringConvertible {
    /// The operation's `operationId`.
    public var operationID: String
    /// The request's method, as sent (`GET`).
    public var method: String
    /// The request's path without its query (`/cats/42`), as sent: not the document's template.
    public var path: String
    /// The response's status.
    public var status: Int
    /// What failed: "status 418 is not documented (documented: 200, 400)", "body /cats: is
    /// required"...
    public var problems: [String]

    public var description: String { "\(operationID) (\(method) \(path)) answered \(status): \(problems.joined(separator: "; "))" }
}

/// A check, for tests and staging, that every response is one the document describes: its
/// status documented for the operation (exactly, by class such as `4XX`, or `default`), its
/// `Content-Type` one the document lists for that status, and a JSON body valid against its
/// schema (a streamed JSON body is checked when it ends, up to 1 MiB). A stream whose media type
/// has an `itemSchema` (OpenAPI 3.2: `text/event-stream`, `application/jsonl`,
/// `application/json-seq`) has each item checked as it leaves, before the client can see it:
/// each server-sent event as the object of its fields (`data`, `event`, `id`, `retry`), each
/// JSON line, each JSON text sequence record. Each violation is logged
/// (warning, with the operation, the status and what failed) and handed to `onViolation`, to count
/// it in a metric or fail a test; the response itself goes out unchanged.
///
///     var configuration = WhiskerServer.Configuration(host: "127.0.0.1", port: 8080)
///     configuration.responseSteps.append(try ContractCheck(document, serverURL: try Servers.Server1.url()) { violation in
///         violations.increment()
///     })
///
/// It sees every response to an operation's path and method, the ones the server makes itself
/// (a 413 before the handler ran, a 415) as well as the handler's. Requests that are not for an
/// operation (a 404, the docs page, health checks) are not checked, nor what the server answers to
/// any request (408 for a client too slow, 503 while it shuts down, 413 for a body sent to an
/// operation that takes none). What HTTP itself answers to
/// a documented success is allowed where the document does not list it: 206 and 416 to a `Range`
/// request, 304 and 412 to a conditional one.
public struct ContractCheck: ResponseStep {
    let operations: DocumentOperations
    private let prefix: String
    private let logger: Logger
    private let onViolation: @Sendable (ContractViolation) -> Void

    /// The largest streamed JSON body collected to be checked.
    static let streamedBodyLimit = 1 << 20

    /// Creates a check of the responses to `document`'s operations under `serverURL`'s path.
    /// - Throws: ``DocumentError`` if the document cannot be read.
    public init(
        _ document: OpenAPIDocument, serverURL: URL, logger: Logger = Logger(label: "whisker.contract"),
        onViolation: @escaping @Sendable (ContractViolation) -> Void = { _ in }
    ) throws(DocumentError) {
        operations = try DocumentOperations(document)
        var prefix = serverURL.path
        while prefix.hasSuffix("/") { prefix.removeLast() }
        self.prefix = prefix
        self.logger = logger
        self.onViolation = onViolation
    }

    /// After the content step (so a 304 or a 206 is seen as sent), before compression.
    public var phase: ResponseStepPhase { .application }

    public func apply(to response: inout Response, for request: HTTPRequest, requestID: String?) {
        guard let target = request.path,
              let operation = operations.operation(method: request.method.rawValue, target: target[...], prefix: prefix)
        else { return }
        let status = response.head.status.code
        let seen = Seen(operation: operation, request: request, status: status, requestID: requestID)
        if Self.answersAnyRequest(status, operation: operation) { return }
        guard let documented = operation.response(for: status) ?? Self.answeredByHTTP(status, to: request, of: operation) else {
            return report([operation.undocumented(status)], seen)
        }
        let hasBody: Bool = switch response.body.storage {
        case .empty, .switchingProtocols: false
        case .bytes(let bytes): !bytes.isEmpty
        case .stream(let length, _): length != 0
        }
        guard hasBody, status != 304, status != 204, request.method != .head else { return }
        let (essence, match, problem) = documented.match(contentType: response.head.headerFields[.contentType], status: status)
        if let problem { return report([problem], seen) }
        // A 206's body is a part: its type is checked, not its JSON.
        guard status != 206 else { return }
        if let itemSchema = match.itemSchema, let sequential = SequentialMediaType(essence: essence) {
            return checkItems(of: &response, as: sequential, against: itemSchema) { report($0, seen) }
        }
        guard let schema = match.schema, DocumentOperations.MediaTypes.isJSON(essence) else { return }
        switch response.body.storage {
        case .bytes(let bytes):
            report(operations.schemas.problems(ofJSON: bytes, against: schema), seen)
        case .stream(let length, let write):
            response.body = ResponseBody(length: length) { writer in
                let collector = CollectingSink(forwardingTo: writer.sink, limit: Self.streamedBodyLimit)
                try await write(ResponseBodyWriter(sink: collector))
                if let bytes = collector.collected { report(operations.schemas.problems(ofJSON: bytes, against: schema), seen) }
            }
        case .empty, .switchingProtocols:
            break
        }
    }

    /// What a violation report says of the response it is about.
    struct Seen: Sendable {
        let operation: DocumentOperations.Operation
        let request: HTTPRequest
        let status: Int
        let requestID: String?
    }


    /// Logs `problems` (if any) as one violation of the response `seen` and hands it on.
    func report(_ problems: [String], _ seen: Seen) {
        guard !problems.isEmpty else { return }
        let path = String((seen.request.path ?? "").prefix { $0 != "?" })
        let violation = ContractViolation(
            operationID: seen.operation.id, method: seen.request.method.rawValue, path: path, status: seen.status, problems: problems
        )
        logger.warning("contract violation", metadata: [
            "operation": "\(violation.operationID)", "method": "\(LogValue.quoted(violation.method))", "path": "\(LogValue.quoted(LogRedaction.target(violation.path)))",
            "status": "\(seen.status)", "violation": "\(LogValue.quoted(problems.joined(separator: "; ")))", "request_id": "\(LogValue.quoted(seen.requestID ?? "-"))",
        ], source: logSource)
        onViolation(violation)
    }
}

extension ContractCheck {
    /// What the server answers to any request, whatever its operation: 408 (the client too slow
    /// to send its request), 503 (the server shutting down or full), and 413 to a body sent to
    /// an operation that takes none.
    static func answersAnyRequest(_ status: Int, operation: DocumentOperations.Operation) -> Bool {
        status == 408 || status == 503 || (status == 413 && operation.requestBody == nil)
    }

    /// A status that HTTP's own semantics give a documented success, whether or not the document
    /// lists it: 206 and 416 to a `Range` request, 304 and 412 to a conditional one (RFC 9110
    /// §13, §14). Checked as the operation's 200 for its content.
    static func answeredByHTTP(_ status: Int, to request: HTTPRequest, of operation: DocumentOperations.Operation) -> DocumentOperations.MediaTypes? {
        guard let success = operation.response(for: 200) else { return nil }
        let fields = request.headerFields
        switch status {
        case 206: return fields[.range] != nil ? success : nil
        case 416: return fields[.range] != nil ? DocumentOperations.MediaTypes(types: [("application/problem+json", nil, nil), ("text/plain", nil, nil)]) : nil
        case 304, 412:
            let conditional = [HTTPField.Name.ifMatch, .ifNoneMatch, .ifModifiedSince, .ifUnmodifiedSince].contains { fields[$0] != nil }
            return conditional ? DocumentOperations.MediaTypes(types: [("application/problem+json", nil, nil), ("text/plain", nil, nil)]) : nil
        default: return nil
        }
    }
}

/// Passes a streamed body on and keeps a copy of it, up to a limit.
private final class CollectingSink: ResponseBodySink {
    private let next: any ResponseBodySink
    private let limit: Int
    private let bytes = Mutex<[UInt8]?>([])

    init(forwardingTo next: any ResponseBodySink, limit: Int) {
        self.next = next
        self.limit = limit
    }

    /// The whole body, or `nil` if it was larger than the limit.
    var collected: [UInt8]? { bytes.withLock { $0 } }

    func writeBodyChunk(_ chunk: ArraySlice<UInt8>) async throws {
        bytes.withLock { bytes in
            guard var copy = bytes.take() else { return }
            if copy.count + chunk.count <= limit {
                copy += chunk
                bytes = copy
            }
        }
        try await next.writeBodyChunk(chunk)
    }
}
