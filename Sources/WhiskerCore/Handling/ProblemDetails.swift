public import HTTPTypes

/// An error answer as RFC 9457 describes it: `application/problem+json` with `type`, `title`,
/// `status`, `detail` and the request's id, for a client that accepts JSON (`*/*` does, and so
/// does a request without `Accept`); `text/plain` for one that asks only for text.
///
/// Every error the server answers by itself (404, 405, 400, 408, 413, 415, 431, 503, a refused
/// preflight, a handler that threw) is one, and so is every error `OpenAPIWhisker` answers for the
/// generated code (a bad or missing parameter or body). A handler may answer with one too:
///
///     try server.register(method: .post, path: "/cats") { request in
///         ...
///         return ProblemDetails(status: .conflict, detail: "a cat named Tom is already adopted")
///             .response(to: request.head)
///     }
///
/// which a client that accepts JSON gets as
///
///     HTTP/1.1 409 Conflict
///     Content-Type: application/problem+json
///     X-Content-Type-Options: nosniff
///
///     {"type":"about:blank","title":"Conflict","status":409,"detail":"a cat named Tom is already adopted","requestId":"3f2a..."}
///
/// `type` is `about:blank` unless set: the status says what kind of problem it is, `title` is its
/// reason phrase, `detail` what was wrong with this request. The request id (the handler's
/// ``RequestContext/requestID``) is the `requestId` member, so a client can quote it to an operator
/// who finds the request's log lines by it.
public struct ProblemDetails: Sendable, Equatable {
    /// A URI naming the kind of problem; `about:blank` when the status says it all.
    public var type: String
    /// A short summary of the kind of problem: by default the status's reason phrase.
    public var title: String
    /// The status code.
    public var status: HTTPResponse.Status
    /// What was wrong with this request, for a person to read.
    public var detail: String
    /// The request's id (`requestId` in the document), when it has one.
    public var requestID: String?

    /// The media type of the JSON form.
    public static let mediaType = "application/problem+json"

    /// Creates a problem.
    /// - Parameters:
    ///   - status: The status code.
    ///   - detail: What was wrong with this request.
    ///   - type: A URI naming the kind of problem; `about:blank` by default.
    ///   - title: A summary of the kind; the status's reason phrase by default.
    ///   - requestID: The request's id; by default the current request's (``RequestContext/current``).
    public init(status: HTTPResponse.Status, detail: String, type: String = "about:blank", title: String? = nil, requestID: String? = RequestContext.current?.requestID) {
        self.type = type
        self.title = title ?? status.wireReasonPhrase
        self.status = status
        self.detail = detail
        self.requestID = requestID
    }

    /// The problem as a response to `request`: JSON unless the request's `Accept` asks only for
    /// text (or prefers it). `fields` are added (`Allow` for a 405, say), and
    /// `X-Content-Type-Options: nosniff`.
    /// - Parameters:
    ///   - request: The request answered; `nil` for one whose head could not be read.
    ///   - fields: More header fields for the response.
    public func response(to request: HTTPRequest?, fields: HTTPFields = [:]) -> Response {
        var fields = fields
        let body: String
        if Self.prefersText(request?.headerFields[.accept]) {
            fields[.contentType] = "text/plain; charset=utf-8"
            body = "\(title): \(detail)\n"
        } else {
            fields[.contentType] = Self.mediaType
            body = json
        }
        return Response(status: status, headerFields: fields + [.contentTypeOptions: "nosniff"], body: ResponseBody(string: body))
    }

    /// The JSON document: members in the RFC's order, the request id last.
    public var json: String {
        var members = ["\"type\":\(Self.quoted(type))", "\"title\":\(Self.quoted(title))", "\"status\":\(status.code)", "\"detail\":\(Self.quoted(detail))"]
        if let requestID { members.append("\"requestId\":\(Self.quoted(requestID))") }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// `value` as a JSON string.
    package static func quoted(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Whether `accept` (an `Accept` field value) takes plain text over JSON: it accepts
    /// `text/plain` with a higher weight than any JSON type, or does not accept JSON at all but
    /// does text. No `Accept`, `*/*` and anything unparseable get JSON.
    static func prefersText(_ accept: String?) -> Bool {
        guard let accept else { return false }
        // The weight of the most specific range that matches, for each of the two forms.
        var json: (specificity: Int, weight: Double) = (0, 0)
        var text: (specificity: Int, weight: Double) = (0, 0)
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";")
            guard let type = parts.first?.trimmingOWS().lowercased(), !type.isEmpty else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingOWS().lowercased() == "q", let q = Double(pair[1].trimmingOWS()) { weight = min(max(q, 0), 1) }
            }
            let jsonSpecificity = switch type {
            case "application/problem+json", "application/json": 3
            case "application/*": 2
            case "*/*": 1
            default: 0
            }
            let textSpecificity = switch type {
            case "text/plain": 3
            case "text/*": 2
            case "*/*": 1
            default: 0
            }
            if jsonSpecificity > json.specificity { json = (jsonSpecificity, weight) }
            if textSpecificity > text.specificity { text = (textSpecificity, weight) }
        }
        return text.weight > json.weight
    }
}
