public import WhiskerCore
public import WhiskerSockets

/// What a request presents for one of the document's security schemes, as the scheme says where
/// to find it. An ``Authenticator`` gets it and decides who, if anyone, it stands for:
///
///     "reportKey": { credential in
///         guard credential.apiKey == expectedKey else { return nil }
///         return Principal(name: "reporter", scopes: ["reports:read"])
///     },
///     "shelterToken": { credential in
///         guard let token = credential.bearerToken else { return nil }
///         return tokens[token]
///     },
///
/// A struct, not an enum: a kind of credential a later version reads (a new security scheme) is a
/// new factory and accessor here, and breaks no `switch` of yours. Compare it with `==` against
/// the factories (`credential == .apiKey("k1")`; in a `switch`, `case .bearer("t"):`), or read the
/// accessor of the kind you expect, which is `nil` for any other. Its `description` names the
/// kind only, never the secret, so logging one by mistake leaks nothing.
public struct Credential: Sendable, Equatable, CustomStringConvertible {
    private enum Value: Sendable, Equatable {
        case bearer(String)
        case basic(user: String, password: String)
        case apiKey(String)
        case clientCertificate(ClientCertificate)
    }

    private let value: Value

    /// `http` `bearer` (and `oauth2`, `openIdConnect`): the token after `Authorization: Bearer`.
    public static func bearer(_ token: String) -> Credential { Credential(value: .bearer(token)) }
    /// `http` `basic`: the user and password of `Authorization: Basic`.
    public static func basic(user: String, password: String) -> Credential { Credential(value: .basic(user: user, password: password)) }
    /// `apiKey`: the key from the header, query parameter or cookie the scheme names.
    public static func apiKey(_ key: String) -> Credential { Credential(value: .apiKey(key)) }
    /// `mutualTLS`: the client certificate the TLS handshake verified against the configured CAs.
    public static func clientCertificate(_ certificate: ClientCertificate) -> Credential { Credential(value: .clientCertificate(certificate)) }

    /// The bearer token, for a ``bearer(_:)`` credential; `nil` for any other.
    public var bearerToken: String? {
        if case .bearer(let token) = value { token } else { nil }
    }

    /// The user and password, for a ``basic(user:password:)`` credential; `nil` for any other.
    public var basic: (user: String, password: String)? {
        if case .basic(let user, let password) = value { (user, password) } else { nil }
    }

    /// The key, for an ``apiKey(_:)`` credential; `nil` for any other.
    public var apiKey: String? {
        if case .apiKey(let key) = value { key } else { nil }
    }

    /// The verified client certificate, for a ``clientCertificate(_:)`` credential; `nil` for any other.
    public var clientCertificate: ClientCertificate? {
        if case .clientCertificate(let certificate) = value { certificate } else { nil }
    }

    /// The kind of credential (`bearer token`, `basic credentials`, `API key`, `client
    /// certificate`): never a token, user, password or key.
    public var description: String {
        switch value {
        case .bearer: "bearer token"
        case .basic: "basic credentials"
        case .apiKey: "API key"
        case .clientCertificate: "client certificate"
        }
    }
}

extension Principal {
    /// The principal of the request being handled (`RequestContext.current?.principal`): set
    /// for operations with security requirements, `nil` elsewhere.
    public static var current: Principal? { RequestContext.current?.principal }
}

/// Checks one security scheme's credential: the principal it stands for, or `nil` to refuse it
/// (401). Throwing fails the request (500, logged without the credential).
///
///     let authenticators: [String: Authenticator] = [
///         "apiKey": { credential in
///             guard credential.apiKey == expected else { return nil }
///             return Principal(name: "reporter", scopes: ["reports:read"])
///         },
///     ]
public typealias Authenticator = @Sendable (Credential) async throws -> Principal?
