import Foundation
import HTTPTypes
import WhiskerCore
import WhiskerSockets

/// A security scheme of the document (`components.securitySchemes`), as far as finding its
/// credential in a request goes.
struct SecurityScheme: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case bearer
        case basic
        case apiKey(in: String, name: String)
        case mutualTLS
    }

    let name: String
    let kind: Kind

    /// The scheme `value` (a Security Scheme Object) describes.
    init(name: String, _ value: JSONValue) throws(DocumentError) {
        self.name = name
        switch value["type"]?.string {
        case "http":
            switch value["scheme"]?.string?.lowercased() {
            case "bearer": kind = .bearer
            case "basic": kind = .basic
            default: throw DocumentError("security scheme \(name): http scheme \(value["scheme"]?.string ?? "(none)") is not bearer or basic")
            }
        case "apiKey":
            guard let place = value["in"]?.string, ["header", "query", "cookie"].contains(place), let key = value["name"]?.string else {
                throw DocumentError("security scheme \(name): an apiKey needs `in` (header, query or cookie) and `name`")
            }
            kind = .apiKey(in: place, name: key)
        case "mutualTLS": kind = .mutualTLS
        // Tokens from an authorization server arrive as bearer tokens.
        case "oauth2", "openIdConnect": kind = .bearer
        default: throw DocumentError("security scheme \(name): type \(value["type"]?.string ?? "(none)") is not one Whisker reads")
        }
    }

    /// The credential `head` (and its connection, `tls`) presents for this scheme, if any.
    func credential(in head: HTTPRequest, tls: TLSDetails?) -> Credential? {
        switch kind {
        case .bearer:
            return Self.authorization(head, scheme: "bearer").map(Credential.bearer)
        case .basic:
            guard let encoded = Self.authorization(head, scheme: "basic"),
                  let data = Data(base64Encoded: encoded), let text = String(data: data, encoding: .utf8),
                  let colon = text.firstIndex(of: ":")
            else { return nil }
            return .basic(user: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
        case .apiKey(let place, let name):
            let value: Substring? = switch place {
            case "header": HTTPField.Name(name).flatMap { head.headerFields[$0] }.map { Substring($0) }
            case "query": RequestValidator.queryItems(of: head.path ?? "").first { $0.name == name }?.value
            default: RequestValidator.cookies(in: head.headerFields[values: .cookie]).first { $0.name == name }?.value
            }
            return value.flatMap { $0.isEmpty ? nil : .apiKey(String($0)) }
        case .mutualTLS:
            return tls?.clientCertificate.map(Credential.clientCertificate)
        }
    }

    /// The challenge of a 401 for this scheme (`WWW-Authenticate`), where HTTP has one.
    var challenge: String? {
        switch kind {
        case .bearer: "Bearer"
        case .basic: "Basic realm=\"\(name)\", charset=\"UTF-8\""
        case .apiKey, .mutualTLS: nil
        }
    }

    /// The credentials of `Authorization: SCHEME credentials`, if the request uses that scheme.
    private static func authorization(_ head: HTTPRequest, scheme: String) -> String? {
        guard let field = head.headerFields[.authorization] else { return nil }
        let parts = field.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == scheme else { return nil }
        let credentials = parts[1].trimmingSpaces
        return credentials.isEmpty ? nil : String(credentials)
    }
}

/// An operation's security requirements (`security`, or the document's): alternatives, any one
/// of which admits the request (OR), each naming schemes that must all be satisfied (AND), each
/// with the scopes its principal must hold. An empty alternative (`{}`) admits anyone.
struct SecurityRequirements: Sendable {
    struct Requirement: Sendable, Equatable {
        let scheme: SecurityScheme
        let scopes: [String]
    }

    let alternatives: [[Requirement]]

    /// What checking a request came to.
    enum Outcome: Sendable, Equatable {
        /// Admitted: the principal of the alternative that admitted it (the first scheme's), or
        /// `nil` for an anonymous alternative.
        case admitted(Principal?)
        /// No alternative's credentials were all present and accepted: 401, with the challenges
        /// of the schemes that have one. `detail` names schemes, never credentials.
        case unauthenticated(detail: String, challenges: [String])
        /// Authenticated, but no alternative's scopes are all held: 403.
        case forbidden(detail: String)
    }

    /// Checks `head` against the requirements: each alternative in order, each of its schemes'
    /// credentials authenticated (once per scheme, whichever alternatives name it).
    func check(
        _ head: HTTPRequest, tls: TLSDetails?, authenticate: (SecurityScheme, Credential) async throws -> Principal?
    ) async throws -> Outcome {
        // `security: []`: no requirement at all.
        guard !alternatives.isEmpty else { return .admitted(nil) }
        enum Authentication { case missing, refused, accepted(Principal) }
        var results: [String: Authentication] = [:]
        var missing: [String] = []
        var refused: [String] = []
        var lacking: [String] = []
        for alternative in alternatives {
            var first: Principal?
            var admits = true
            for requirement in alternative where admits {
                let name = requirement.scheme.name
                let result: Authentication
                if let known = results[name] {
                    result = known
                } else if let credential = requirement.scheme.credential(in: head, tls: tls) {
                    result = try await authenticate(requirement.scheme, credential).map(Authentication.accepted) ?? .refused
                    results[name] = result
                } else {
                    result = .missing
                    results[name] = result
                }
                switch result {
                case .missing:
                    if !missing.contains(name) { missing.append(name) }
                    admits = false
                case .refused:
                    if !refused.contains(name) { refused.append(name) }
                    admits = false
                case .accepted(let principal):
                    let absent = requirement.scopes.filter { !principal.scopes.contains($0) }
                    if !absent.isEmpty {
                        lacking.append("\(name) needs \(absent.joined(separator: ", "))")
                        admits = false
                    } else if first == nil {
                        first = principal
                    }
                }
            }
            if admits { return .admitted(first) }
        }
        if refused.isEmpty, !lacking.isEmpty {
            return .forbidden(detail: "not allowed: \(lacking.joined(separator: "; "))")
        }
        var parts: [String] = []
        if !refused.isEmpty { parts.append("credentials refused for \(refused.joined(separator: ", "))") }
        if !missing.isEmpty { parts.append("no credentials for \(missing.joined(separator: " or "))") }
        let challenges = alternatives.joined().compactMap(\.scheme.challenge)
        return .unauthenticated(detail: parts.joined(separator: "; "), challenges: challenges.reduce(into: []) { if !$0.contains($1) { $0.append($1) } })
    }
}
