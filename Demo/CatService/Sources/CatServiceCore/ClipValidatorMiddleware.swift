import HTTPTypes
import OpenAPIRuntime

/// Gives `getClip`'s 200 its strong `ETag`, so that a browser or player can revalidate the clip
/// (`If-None-Match` → 304) and resume or seek safely (`If-Range` → 206), which Whisker answers.
///
/// Why a middleware and not an `ETag` header declared in openapi.yaml: the generated code
/// percent-encodes header values, as the OpenAPI specification's URI-template rules say, so a
/// declared `ETag` would go out as `%22…%22`, which is not an entity tag (swift-openapi-generator
/// issues 529 and 857). A middleware sets the raw field on the `HTTPResponse`; an `ETag` set there
/// (or by any handler) is kept by Whisker, which generates one only for in-memory bodies without.
///
/// A middleware of `getClip`'s `OperationPolicy` (``CatServiceOperations/Policies``): it runs for
/// that operation alone, so it does not compare `operationID` (which, on a transport without the
/// document, is `GET /api/clip`).
struct ClipValidatorMiddleware: ServerMiddleware {
    /// The clip's entity tag (``CatHandler/clipETag``).
    let etag: String

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var (response, responseBody) = try await next(request, body, metadata)
        if response.status == .ok {
            response.headerFields[.eTag] = etag
        }
        return (response, responseBody)
    }
}
