import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Gives the 400 that the generated code returns for a `count` that is not an integer
/// (`abc`, an empty value, `99999999999999999999`) the same kind of plain-text message as the
/// handler's own range check, instead of an empty body, as the OpenAPI document's 400 response
/// describes.
///
/// The generated code decodes `count` before `CatHandler.getEmoji` runs, and a decoding failure
/// reaches the middleware as a `ServerError` with no operation input; every other error passes
/// through untouched.
struct EmojiCountErrorMiddleware: ServerMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard operationID == "getEmoji" else {
            return try await next(request, body, metadata)
        }
        do {
            return try await next(request, body, metadata)
        } catch let error as ServerError where error.operationInput == nil {
            // getEmoji's only input is the `count` query item, so any failure to decode its input
            // is a bad `count`: usually a 400 already, but swift-openapi-runtime 1.13 answers a bare
            // `?count` (no `=`) with a 500 that should be a 400.
            let range = CatHandler.countRange
            let got = Self.rawCount(in: request.path).map { " got \(String(reflecting: $0))" } ?? ""
            let message = "count must be an integer between \(range.lowerBound) and \(range.upperBound),\(got)\n"
            var response = HTTPResponse(status: .badRequest)
            response.headerFields[.contentType] = "text/plain"
            return (response, HTTPBody(message))
        }
    }

    /// The first `count` value in the request target's query, percent-decoded and cut to 40 characters.
    static func rawCount(in path: String?) -> String? {
        guard let path, let query = path.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0] == "count" else { continue }
            let raw = parts.count > 1 ? String(parts[1]) : ""
            let decoded = raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? raw
            return decoded.count > 40 ? String(decoded.prefix(40)) + "…" : decoded
        }
        return nil
    }
}
