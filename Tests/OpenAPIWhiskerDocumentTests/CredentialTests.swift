import OpenAPIWhiskerDocument
import Testing

/// A credential is a struct (issue 39): each kind read through its accessor, `nil` for the
/// others, compared with the factories, and described without its secret.
@Suite struct CredentialTests {
    @Test func eachAccessor_ReadsItsKindOnly() {
        let bearer = Credential.bearer("t0k3n"), basic = Credential.basic(user: "u", password: "p"), key = Credential.apiKey("k1")
        #expect(bearer.bearerToken == "t0k3n" && bearer.apiKey == nil && bearer.basic == nil && bearer.clientCertificate == nil)
        #expect(basic.basic?.user == "u" && basic.basic?.password == "p" && basic.bearerToken == nil && basic.apiKey == nil)
        #expect(key.apiKey == "k1" && key.bearerToken == nil && key.basic == nil)
        #expect(Credential.apiKey("t0k3n").bearerToken == nil, "the same text as another kind is not that kind")
    }

    @Test func comparedWithTheFactories_InASwitchToo() {
        #expect(Credential.apiKey("k1") == .apiKey("k1") && Credential.apiKey("k1") != .apiKey("k2"))
        #expect(Credential.bearer("k1") != .apiKey("k1"))
        let found: String = switch Credential.bearer("weak") {
        case .bearer("strong"): "strong"
        case .bearer("weak"): "weak"
        default: "none"
        }
        #expect(found == "weak")
    }

    @Test func itsDescription_NamesTheKind_NeverTheSecret() {
        let credentials = [Credential.bearer("t0k3n"), .basic(user: "alice", password: "pa55"), .apiKey("k3y")]
        let described = credentials.map { "\($0)" } + credentials.map { String(reflecting: $0) }
        for text in described {
            #expect(!text.contains("t0k3n") && !text.contains("pa55") && !text.contains("k3y") && !text.contains("alice"), "\(text)")
        }
        #expect(credentials.map(\.description) == ["bearer token", "basic credentials", "API key"])
    }
}
