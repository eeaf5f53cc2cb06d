public import HTTPTypes
import Logging
import WhiskerCore

/// An entry point for Benchmarks/Allocations' per-layer micro-benchmarks (`make bench-layers`):
/// one operation's request checks (`RequestValidator`, `package`) and the query reader
/// (`QueryString`), out of reach of the benchmark's own package otherwise. Not API:
/// `@_spi(Benchmarks)`, for measuring only.
@_spi(Benchmarks) public struct RequestValidatorBenchmark: Sendable {
    private let validator: RequestValidator
    private let logger = Logger(label: "whisker.benchmark") { _ in SwiftLogNoOpLogHandler() }

    /// The checks of the operation registered as `method` `path` in `document`, as
    /// `WhiskerTransport(_:validatingAgainst:)` makes them.
    /// - Throws: ``DocumentError`` if the document cannot be read or has no such operation.
    public init(document: OpenAPIDocument, method: HTTPRequest.Method, path: String) throws(DocumentError) {
        let validation = RequestValidation(operations: try DocumentOperations(document), status: .badRequest, authenticators: [:])
        validator = try validation.validator(method: method, path: path)
    }

    /// Checks `request` and `body` (read whole when it is JSON), as the transport's validation
    /// does: synchronously when nothing needs waiting for, else through the async check.
    /// - Returns: Whether the request passes (`false`: it would be answered with a 400 or 415).
    public func validate(_ request: HTTPRequest, body: [UInt8]?) async throws -> Bool {
        let outcome: RequestValidator.Outcome
        if let quick = validator.validateWithoutWaiting(request, pathParameters: PathParameters(), hasBody: body != nil, status: .badRequest, logger: logger) {
            outcome = quick
        } else {
            let chunks = body.map { BodyChunks(bytes: $0) }
            outcome = try await validator.validate(request, pathParameters: PathParameters(), body: chunks, lengthHint: body.map { Int64($0.count) }, status: .badRequest, logger: logger)
        }
        switch outcome {
        case .proceed: return true
        case .answer: return false
        }
    }

    /// How many items `QueryString` reads in `target`'s query (still percent-encoded).
    public static func queryItemCount(of target: String) -> Int { QueryString.rawItems(of: target).count }

    /// `target` as swift-openapi-runtime's URI decoder is handed it (`nil`: unchanged, no copy).
    public static func runtimeTarget(_ target: String) -> String? { QueryString.runtimeTarget(target) }

    /// A body of one chunk.
    private struct BodyChunks: AsyncSequence, Sendable {
        let bytes: [UInt8]
        func makeAsyncIterator() -> Iterator { Iterator(bytes: bytes[...]) }
        struct Iterator: AsyncIteratorProtocol {
            var bytes: ArraySlice<UInt8>?
            mutating func next() async -> ArraySlice<UInt8>? {
                defer { bytes = nil }
                return bytes
            }
        }
    }
}
