import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Gives the 400 that the generated code returns for an integer query parameter that is not an
/// integer (`count=abc`, an empty value, `99999999999999999999`) the same kind of plain-text
/// message as the handler's own range checks, instead of an empty body, as the OpenAPI document's
/// 400 responses describe.
///
/// The generated code decodes the query before `CatHandler` runs, and a decoding failure reaches
/// the middleware as a `ServerError` with no operation input; every other error passes through
/// untouched.
struct QueryIntegerErrorMiddleware: ServerMiddleware {
    /// The integer query parameters of each operation, and their ranges, in the document's order.
    static let parameters: [String: [(name: String, range: ClosedRange<Int>)]] = [
        "getEmoji": [("count", CatHandler.countRange)],
        "getEmojiStream": [("count", CatHandler.countRange), ("interval_ms", CatHandler.intervalRange)],
    ]

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let parameters = Self.parameters[operationID] else {
            return try await next(request, body, metadata)
        }
        do {
            return try await next(request, body, metadata)
        } catch let error as ServerError where error.operationInput == nil {
            // These operations' only inputs are their integer query items, so any failure to decode
            // the input is a bad one: usually a 400 already, but swift-openapi-runtime 1.13 answers a
            // bare `?count` (no `=`) with a 500 that should be a 400. The message names the first
            // parameter whose value is not an integer in its range.
            let bad = parameters.lazy.compactMap { parameter in
                Self.rawValue(of: parameter.name, in: request.path).flatMap { raw in
                    Int(raw).map(parameter.range.contains) == true ? nil : (parameter, raw)
                }
            }.first
            let (parameter, raw) = bad ?? (parameters[0], nil)
            let got = raw.map { " got \(String(reflecting: Self.shortened($0)))" } ?? ""
            let message = "\(parameter.name) must be an integer between \(parameter.range.lowerBound) and \(parameter.range.upperBound),\(got)\n"
            var response = HTTPResponse(status: .badRequest)
            response.headerFields[.contentType] = "text/plain"
            return (response, HTTPBody(message))
        }
    }

    /// The first value of query item `name` in the request target, percent-decoded.
    static func rawValue(of name: String, in path: String?) -> String? {
        guard let path, let query = path.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0] == name else { continue }
            let raw = parts.count > 1 ? String(parts[1]) : ""
            return raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? raw
        }
        return nil
    }

    /// `value` cut to 40 characters for a message.
    static func shortened(_ value: String) -> String {
        value.count > 40 ? String(value.prefix(40)) + "…" : value
    }
}
