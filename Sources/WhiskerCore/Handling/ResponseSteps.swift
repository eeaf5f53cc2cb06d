import HTTPTypes

/// What the server does to every handler's response before it is written, in this order, from
/// the configuration (read once, when the server starts):
/// 1. the request id into `X-Request-ID` (``WhiskerServer/Configuration/requestIDs``), unless the
///    handler set one;
/// 2. an event stream's proxy fields (``Response/withEventStreamDefaults()``);
/// 3. in RFC 9110's order: an in-memory 200 gets an `ETag` (``WhiskerServer/Configuration/generatesETags``),
///    the request's preconditions are answered (304, 412), and its `Range` (206, 416;
///    ``WhiskerServer/Configuration/servesByteRanges``);
/// 4. the CORS fields, if a policy covers the path (``WhiskerServer/Configuration/cors``);
/// 5. the content coding, if one is configured (``ResponseCoding``; `WhiskerCompression`).
struct ResponseSteps: Sendable {
    let echoesRequestID: Bool
    let generatesETags: Bool
    let servesRanges: Bool
    let crossOrigin: CrossOrigin?
    let coding: (any ResponseCoding)?

    init(_ configuration: WhiskerServer.Configuration) {
        echoesRequestID = configuration.requestIDs
        generatesETags = configuration.generatesETags
        servesRanges = configuration.servesByteRanges
        crossOrigin = CrossOrigin(configuration.cors)
        coding = configuration.responseCoding
    }

    /// `response` as it leaves the server for `request`, whose id (if any) is `requestID`.
    func apply(to response: Response, for request: HTTPRequest, requestID: String?) -> Response {
        var response = response
        if echoesRequestID, let requestID, response.head.headerFields[RequestContext.requestIDField] == nil {
            response.head.headerFields[RequestContext.requestIDField] = requestID
        }
        response = response.withEventStreamDefaults()
        let asks = ConditionalHeaders(request.headerFields)
        if generatesETags { response = response.withGeneratedETag(for: request) }
        if asks.hasPreconditions { response = response.answeringPreconditions(of: request) }
        if servesRanges { response = response.answeringRange(of: request, asksRange: asks.hasRange) }
        if let crossOrigin { crossOrigin.decorate(&response, for: request) }
        if let coding { response = coding.encode(response, for: request) }
        return response
    }
}
