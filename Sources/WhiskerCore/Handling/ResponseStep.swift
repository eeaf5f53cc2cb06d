public import HTTPTypes

/// One step of the way out: what the server does to every response, a handler's or its own (404,
/// 413, a health check...), before it is written, over every protocol. Steps run in order of
/// their ``phase``, then in the order they were added; modules add theirs (WhiskerCORS its fields,
/// WhiskerCompression the content coding), and so can you, with
/// ``WhiskerServer/Configuration/responseSteps``:
///
///     struct ServerName: ResponseStep {
///         func apply(to response: inout Response, for request: HTTPRequest, requestID: String?) {
///             response.head.headerFields[.server] = "cats"
///         }
///     }
///     configuration.responseSteps = [ServerName()]
public protocol ResponseStep: Sendable {
    /// Where the step runs; ``ResponseStepPhase/application`` by default.
    var phase: ResponseStepPhase { get }
    /// Makes `response` what answers `request` (whose id, if any, is `requestID`), in place.
    func apply(to response: inout Response, for request: HTTPRequest, requestID: String?)
}

extension ResponseStep {
    public var phase: ResponseStepPhase { .application }
}

/// Where a ``ResponseStep`` runs on the way out; lower first.
public struct ResponseStepPhase: Comparable, Hashable, Sendable {
    /// The phase's rank: steps run in ascending order. The built-in phases run from 100
    /// (``identity``) to 400 (``coding``); a step that must run between two of them takes a value
    /// in between.
    public let rawValue: Int
    /// Creates a phase of rank `rawValue`, to order a step between the built-in phases, e.g.
    /// `ResponseStepPhase(250)` after ``content`` and before ``access``. Steps of one phase run in
    /// the order they were added.
    /// - Parameter rawValue: The rank; lower runs first.
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Whose the response is: the request id into `X-Request-ID` (built in).
    public static let identity = Self(100)
    /// What it carries, in RFC 9110's order: an event stream's proxy fields, a generated `ETag`,
    /// the request's preconditions (304, 412) and `Range` (206, 416) (built in).
    public static let content = Self(200)
    /// Who may read it: CORS (WhiskerCORS).
    public static let access = Self(300)
    /// Steps of your own, by default.
    public static let application = Self(350)
    /// How its content is coded on the wire: compression (WhiskerCompression). Last: it codes
    /// whatever the others made.
    public static let coding = Self(400)
}

/// The steps of a running server, in order (read once, when it starts): the built-in ones, the
/// features' and the configuration's own.
struct ResponseSteps: Sendable {
    let echoesRequestID: Bool
    /// The built-in content step, called directly: most servers have no other step.
    private let content: ContentStep
    /// The other steps before it, and after it, in order.
    private let before: [any ResponseStep]
    private let after: [any ResponseStep]

    init(_ configuration: WhiskerServer.Configuration, featureSteps: [any ResponseStep]) {
        echoesRequestID = configuration.requestIDs
        content = ContentStep(generatesETags: configuration.responses.generatesETags, servesRanges: configuration.responses.servesByteRanges)
        var steps: [any ResponseStep] = []
        if configuration.requestIDs { steps.append(RequestIDStep()) }
        steps += featureSteps
        steps += configuration.responseSteps
        // Stable: equal phases keep the order above, and the content step leads its phase.
        let ordered = steps.enumerated().sorted { ($0.element.phase, $0.offset) < ($1.element.phase, $1.offset) }.map(\.element)
        before = ordered.filter { $0.phase < .content }
        after = ordered.filter { $0.phase >= .content }
    }

    /// Makes `response` what leaves the server for `request`, whose id (if any) is `requestID`.
    func apply(to response: inout Response, for request: HTTPRequest, requestID: String?) {
        // Room, at once, for the fields the steps may add (request id, ETag, Accept-Ranges, CORS):
        // one allocation, not one for each field appended.
        let method = request.method
        if !before.isEmpty || !after.isEmpty || method == .get || method == .head {
            response.head.headerFields.reserveCapacity(response.head.headerFields.count + 4)
        }
        for step in before { step.apply(to: &response, for: request, requestID: requestID) }
        content.apply(to: &response, for: request, requestID: requestID)
        for step in after { step.apply(to: &response, for: request, requestID: requestID) }
    }

    /// The steps for a request whose head could not be read: only its id.
    func applyWithoutRequest(to response: inout Response, requestID: String?) {
        guard echoesRequestID, let requestID else { return }
        response.head.headerFields[RequestContext.requestIDField] = requestID
    }
}

/// The request id into `X-Request-ID` (``WhiskerServer/Configuration/requestIDs``), unless the
/// handler set one.
struct RequestIDStep: ResponseStep {
    var phase: ResponseStepPhase { .identity }

    func apply(to response: inout Response, for request: HTTPRequest, requestID: String?) {
        guard let requestID, response.head.headerFields[RequestContext.requestIDField] == nil else { return }
        response.head.headerFields[RequestContext.requestIDField] = requestID
    }
}

/// What a response carries, in RFC 9110's order: an event stream's proxy fields
/// (``Response/addEventStreamDefaults()``), an in-memory 200's `ETag`
/// (``WhiskerServer/ResponseDefaults/generatesETags``), the request's preconditions (304, 412) and
/// its `Range` (206, 416; ``WhiskerServer/ResponseDefaults/servesByteRanges``).
struct ContentStep: ResponseStep {
    let generatesETags: Bool
    let servesRanges: Bool
    var phase: ResponseStepPhase { .content }

    func apply(to response: inout Response, for request: HTTPRequest, requestID: String?) {
        // Read once: `HTTPResponse.status` and `HTTPRequest.method` parse their field on every read.
        let status = response.head.status
        // A 101 carries nothing: the connection switches protocols.
        guard status != .switchingProtocols else { return }
        response.addEventStreamDefaults()
        // Validators, preconditions and ranges are about a GET's (or a HEAD's) 2xx.
        let method = request.method
        guard method == .get || method == .head, (200..<300).contains(status.code) else { return }
        let asks = ConditionalHeaders(request.headerFields)
        if generatesETags { response.addGeneratedETag(status: status) }
        if asks.hasPreconditions {
            response = response.answeringPreconditions(of: request)
            if servesRanges { response.answerRange(of: request, status: response.head.status, asksRange: asks.hasRange) }
        } else if servesRanges {
            response.answerRange(of: request, status: status, asksRange: asks.hasRange)
        }
    }
}
