#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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

    /// The scheme `value` (a Security Scheme Object) describes, by the first of
    /// ``SecuritySchemeRule/all`` that matches it.
    init(name: String, _ value: JSONValue) throws(DocumentError) {
        self.name = name
        let type = value["type"]?.string
        guard let rule = SecuritySchemeRule.matching(type: type, scheme: value["scheme"]?.string, in: value["in"]?.string) else {
            switch type {
            case "http": throw DocumentError("security scheme \(name): http scheme \(value["scheme"]?.string ?? "(none)") is not bearer or basic")
            case "apiKey": throw DocumentError("security scheme \(name): an apiKey needs `in` (header, query or cookie) and `name`")
            default: throw DocumentError("security scheme \(name): type \(type ?? "(none)") is not one Whisker reads")
            }
        }
        switch rule.credential {
        case .bearer: kind = .bearer
        case .basic: kind = .basic
        case .clientCertificate: kind = .mutualTLS
        case .header, .query, .cookie:
            guard let key = value["name"]?.string else {
                throw DocumentError("security scheme \(name): an apiKey needs `in` (header, query or cookie) and `name`")
            }
            kind = .apiKey(in: rule.credential.rawValue, name: key)
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

/// Which credential each kind of security scheme (`type`, and `scheme` or `in` where they
/// matter) presents: the one table of them. The transport finds credentials by it, and the docs
/// page gets it as JSON (``json``) to know what its "Authorize" area can send: neither holds a
/// second copy of these rules.
package struct SecuritySchemeRule: Sendable {
    /// Where a request presents the credential.
    package enum Credential: String, Sendable {
        /// `Authorization: Bearer`.
        case bearer
        /// `Authorization: Basic`.
        case basic
        /// A header, query parameter or cookie the scheme names (`apiKey`).
        case header, query, cookie
        /// The TLS client certificate.
        case clientCertificate
    }

    /// The scheme's `type`.
    package let type: String
    /// The `http` scheme's `scheme` (lowercased), or `nil` for any.
    package let scheme: String?
    /// The `apiKey` scheme's `in`, or `nil` for any.
    package let location: String?
    package let credential: Credential

    /// Every kind of scheme Whisker reads; any other is refused when the document is read.
    package static let all: [SecuritySchemeRule] = [
        SecuritySchemeRule(type: "http", scheme: "bearer", location: nil, credential: .bearer),
        SecuritySchemeRule(type: "http", scheme: "basic", location: nil, credential: .basic),
        // Tokens from an authorization server arrive as bearer tokens.
        SecuritySchemeRule(type: "oauth2", scheme: nil, location: nil, credential: .bearer),
        SecuritySchemeRule(type: "openIdConnect", scheme: nil, location: nil, credential: .bearer),
        SecuritySchemeRule(type: "apiKey", scheme: nil, location: "header", credential: .header),
        SecuritySchemeRule(type: "apiKey", scheme: nil, location: "query", credential: .query),
        SecuritySchemeRule(type: "apiKey", scheme: nil, location: "cookie", credential: .cookie),
        SecuritySchemeRule(type: "mutualTLS", scheme: nil, location: nil, credential: .clientCertificate),
    ]

    /// The rule for a scheme of `type` with `scheme` (any case) and `in`, if Whisker reads it.
    package static func matching(type: String?, scheme: String?, in location: String?) -> SecuritySchemeRule? {
        let scheme = scheme?.lowercased()
        return all.first { $0.type == type && ($0.scheme == nil || $0.scheme == scheme) && ($0.location == nil || $0.location == location) }
    }

    /// ``all`` as a JSON array of `{"type", "scheme"?, "in"?, "credential"}`, the docs page's `schemeRules`.
    package static let json: String = JSONValue.array(all.map { rule in
        var members: [(key: String, value: JSONValue)] = [("type", .string(rule.type))]
        if let scheme = rule.scheme { members.append(("scheme", .string(scheme))) }
        if let location = rule.location { members.append(("in", .string(location))) }
        members.append(("credential", .string(rule.credential.rawValue)))
        return .object(members)
    }).jsonText
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
