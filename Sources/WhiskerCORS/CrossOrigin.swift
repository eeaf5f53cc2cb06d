import HTTPTypes
import WhiskerCore

/// The server's CORS policies (``WhiskerServer/CORS``) as a feature: preflights answered before
/// routing (an ``EarlyAnswer``), and every response decorated (a ``ResponseStep`` of the access
/// phase). I/O-free.
struct CrossOrigin: ServerFeature, EarlyAnswer, ResponseStep {
    /// As given, for `configuration.cors` to read back.
    let policies: [WhiskerServer.CORS]
    /// Longest prefix first: the most specific policy wins.
    private let byPrefix: [WhiskerServer.CORS]
    /// After the health checks.
    var order: Int { 10 }
    var phase: ResponseStepPhase { .access }

    init?(_ policies: [WhiskerServer.CORS]) {
        guard !policies.isEmpty else { return nil }
        self.policies = policies
        self.byPrefix = policies.sorted { $0.pathPrefix.count > $1.pathPrefix.count }
    }

    func validate(_ configuration: WhiskerServer.Configuration) throws(WhiskerServerError) {
        for policy in policies { try policy.validate() }
    }

    func contribute(to contributions: inout ServerFeatureContributions) {
        contributions.add(self as any EarlyAnswer)
        contributions.add(self as any ResponseStep)
    }

    func answer(_ head: HTTPRequest, path: Substring, context: EarlyAnswerContext) -> LocalAnswer? {
        preflight(head, path: path, methods: context.methods)
    }

    func apply(to response: inout Response, for request: HTTPRequest, requestID: String?) {
        decorate(&response, for: request)
    }

    func policy(for path: Substring) -> WhiskerServer.CORS? {
        byPrefix.first { path.hasPrefix($0.pathPrefix) }
    }

    /// The answer to `request` if it is a preflight under a policy: 204 with the allowance, 403
    /// saying what is not allowed, 404 for a path with no route. `methods` gives a path's methods.
    func preflight(_ request: HTTPRequest, path: Substring, methods: (Substring) -> [HTTPRequest.Method]) -> LocalAnswer? {
        guard request.method == .options, let origin = request.headerFields[.origin],
              let requested = request.headerFields[.accessControlRequestMethod], let policy = policy(for: path)
        else { return nil }
        var fields: HTTPFields = [.vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"]
        func refuse(_ status: HTTPResponse.Status, _ reason: String) -> LocalAnswer {
            .rejection(HTTPRejection(status, "CORS preflight: \(reason)"), fields: fields)
        }
        guard policy.allows(origin: origin) else { return refuse(.forbidden, "origin \(origin) is not allowed for \(path)") }
        let pathMethods = methods(path)
        guard !pathMethods.isEmpty else { return refuse(.notFound, "no route for \(path)") }
        let allowed = policy.allowedMethods.map { own in pathMethods.filter(own.contains) } ?? pathMethods
        let list = allowed.map(\.rawValue).joined(separator: ", ")
        guard allowed.contains(where: { $0.rawValue == requested }) else {
            return refuse(.forbidden, "method \(requested) is not allowed for \(path); allowed: \(list)")
        }
        let allowedHeaders = Set(policy.allowedHeaders.map { $0.lowercased() })
        for name in (request.headerFields[.accessControlRequestHeaders] ?? "").split(separator: ",") {
            let header = name.trimmingOWS().lowercased()
            guard header.isEmpty || allowedHeaders.contains(header) else {
                return refuse(.forbidden, "request header \(header) is not allowed; allowed: \(policy.allowedHeaders.joined(separator: ", "))")
            }
        }
        policy.allowOrigin(origin, in: &fields)
        fields[.accessControlAllowMethods] = list
        if !policy.allowedHeaders.isEmpty { fields[.accessControlAllowHeaders] = policy.allowedHeaders.joined(separator: ", ") }
        if let maxAge = policy.maxAge { fields[.accessControlMaxAge] = "\(maxAge.components.seconds)" }
        return .response(Response(status: .noContent, headerFields: fields, body: .empty))
    }

    /// Adds the CORS fields to the `response` to `request` (a handler's or the server's own). A
    /// preflight's answer (``preflight(_:path:methods:)``) has its fields already, and a refused
    /// one grants nothing.
    func decorate(_ response: inout Response, for request: HTTPRequest) {
        if request.method == .options, request.headerFields[.accessControlRequestMethod] != nil { return }
        let path = request.path ?? "/"
        guard let policy = policy(for: path[..<(path.utf8.firstIndex(of: UInt8(ascii: "?")) ?? path.endIndex)]) else { return }
        response.head.headerFields.addVary(.origin)
        guard let origin = request.headerFields[.origin], policy.allows(origin: origin) else { return }
        policy.allowOrigin(origin, in: &response.head.headerFields)
        if !policy.exposedHeaders.isEmpty {
            response.head.headerFields[.accessControlExposeHeaders] = policy.exposedHeaders.joined(separator: ", ")
        }
    }
}

extension WhiskerServer.CORS {
    /// Whether a page from `origin` may call: it is listed, matches a `*` pattern, or any is.
    func allows(origin: String) -> Bool {
        let origin = origin.lowercased()
        return allowedOrigins.contains { allowed in
            let allowed = allowed.lowercased()
            if allowed == "*" || allowed == origin { return true }
            guard let star = allowed.firstIndex(of: "*") else { return false }
            let prefix = allowed[..<star], suffix = allowed[allowed.index(after: star)...]
            guard origin.count > prefix.count + suffix.count, origin.hasPrefix(prefix), origin.hasSuffix(suffix) else { return false }
            let labels = origin.dropFirst(prefix.count).dropLast(suffix.count)
            return labels.allSatisfy { $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII || $0 == "-" || $0 == "." }
        }
    }

    /// `Access-Control-Allow-Origin` (the origin itself, or `*` when any is allowed without
    /// credentials) and `-Credentials`.
    func allowOrigin(_ origin: String, in fields: inout HTTPFields) {
        let any = !allowsCredentials && allowedOrigins.contains("*")
        fields[.accessControlAllowOrigin] = any ? "*" : origin
        if allowsCredentials { fields[.accessControlAllowCredentials] = "true" }
    }
}
