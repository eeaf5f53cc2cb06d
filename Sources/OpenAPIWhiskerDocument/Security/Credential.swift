public import WhiskerCore
public import WhiskerSockets

/// What a request presents for one of the document's security schemes, as the scheme says where
/// to find it. An ``Authenticator`` gets it and decides who, if anyone, it stands for.
public enum Credential: Sendable, Equatable {
    /// `http` `bearer` (and `oauth2`, `openIdConnect`): the token after `Authorization: Bearer`.
    case bearer(String)
    /// `http` `basic`: the user and password of `Authorization: Basic`.
    case basic(user: String, password: String)
    /// `apiKey`: the key from the header, query parameter or cookie the scheme names.
    case apiKey(String)
    /// `mutualTLS`: the client certificate the TLS handshake verified against the configured CAs.
    case clientCertificate(ClientCertificate)
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
///             guard case .apiKey(let key) = credential, key == expected else { return nil }
///             return Principal(name: "reporter", scopes: ["reports:read"])
///         },
///     ]
public typealias Authenticator = @Sendable (Credential) async throws -> Principal?
