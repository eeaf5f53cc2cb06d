@testable import OpenAPIWhiskerDocument
import Testing

/// The one table of which credential each kind of security scheme presents: what the transport
/// finds credentials by and the docs page is given (issue 39: no second copy in the page).
@Suite struct SecuritySchemeRuleTests {
    /// The scheme `json` (a Security Scheme Object) as the document reader reads it.
    func scheme(_ json: String) throws(DocumentError) -> SecurityScheme {
        let value: JSONValue
        do { value = try JSONReader.read(Array(json.utf8)) } catch { throw DocumentError("\(error)") }
        return try SecurityScheme(name: "s", value)
    }

    @Test func everyKindTheDocsPageFixtureHas_ReadByTheTable() throws {
        #expect(try scheme(#"{"type":"http","scheme":"bearer"}"#).kind == .bearer)
        #expect(try scheme(#"{"type":"http","scheme":"Basic"}"#).kind == .basic, "the http scheme in any case")
        #expect(try scheme(#"{"type":"oauth2","flows":{}}"#).kind == .bearer)
        #expect(try scheme(#"{"type":"openIdConnect","openIdConnectUrl":"/x"}"#).kind == .bearer)
        #expect(try scheme(#"{"type":"apiKey","in":"header","name":"X-Key"}"#).kind == .apiKey(in: "header", name: "X-Key"))
        #expect(try scheme(#"{"type":"apiKey","in":"query","name":"api_key"}"#).kind == .apiKey(in: "query", name: "api_key"))
        #expect(try scheme(#"{"type":"apiKey","in":"cookie","name":"session"}"#).kind == .apiKey(in: "cookie", name: "session"))
        #expect(try scheme(#"{"type":"mutualTLS"}"#).kind == .mutualTLS)
    }

    @Test func whatTheTableDoesNotHave_IsRefused_NamingWhy() {
        #expect(throws: DocumentError.self) { try scheme(#"{"type":"http","scheme":"digest"}"#) }
        #expect(SecuritySchemeRule.matching(type: "http", scheme: "digest", in: nil) == nil, "the page: 'cannot send this scheme'")
        #expect(SecuritySchemeRule.matching(type: "apiKey", scheme: nil, in: "body") == nil)
        do {
            _ = try scheme(#"{"type":"apiKey","in":"header"}"#)
            Issue.record("an apiKey without a name was read")
        } catch {
            #expect(error.description == "security scheme s: an apiKey needs `in` (header, query or cookie) and `name`")
        }
        do {
            _ = try scheme(#"{"type":"carrierPigeon"}"#)
            Issue.record("an unknown type was read")
        } catch {
            #expect(error.description == "security scheme s: type carrierPigeon is not one Whisker reads")
        }
    }

    @Test func theTableAsJSON_ForThePage() {
        #expect(SecuritySchemeRule.json.hasPrefix(#"[{"type":"http","scheme":"bearer","credential":"bearer"},{"type":"http","scheme":"basic","credential":"basic"},"#))
        #expect(SecuritySchemeRule.json.contains(#"{"type":"apiKey","in":"cookie","credential":"cookie"}"#))
        #expect(SecuritySchemeRule.json.hasSuffix(#"{"type":"mutualTLS","credential":"clientCertificate"}]"#))
    }
}
