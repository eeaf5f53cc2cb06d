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

    /// Makes `response` what leaves the server for `request`, whose id (if any) is `requestID`.
    /// In place: fields the handler made are added to, not copied first.
    func apply(to response: inout Response, for request: HTTPRequest, requestID: String?) {
        // Room, at once, for the fields the steps may add (request id, ETag, Accept-Ranges, CORS):
        // one allocation, not one for each field appended.
        if echoesRequestID || crossOrigin != nil || request.method == .get || request.method == .head {
            response.head.headerFields.reserveCapacity(response.head.headerFields.count + 4)
        }
        if echoesRequestID, let requestID, response.head.headerFields[RequestContext.requestIDField] == nil {
            response.head.headerFields[RequestContext.requestIDField] = requestID
        }
        response = response.withEventStreamDefaults()
        let asks = ConditionalHeaders(request.headerFields)
        if generatesETags { response.addGeneratedETag(for: request) }
        if asks.hasPreconditions { response = response.answeringPreconditions(of: request) }
        if servesRanges { response.answerRange(of: request, asksRange: asks.hasRange) }
        if let crossOrigin { crossOrigin.decorate(&response, for: request) }
        if let coding { response = coding.encode(response, for: request) }
    }
}
