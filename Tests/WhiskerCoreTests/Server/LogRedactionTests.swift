import Testing
import WhiskerCore

/// ``LogRedaction/scrub(_:)`` on the shapes in which a request's credentials appear in text: a
/// header field as HTTPTypes and the OpenAPI runtime describe one, a query, a cookie list.
@Suite struct LogRedactionTests {
    @Test(arguments: [
        ("GET /a [authorization: Bearer abc.def; content-type: application/json]", "GET /a [authorization: <redacted>; content-type: application/json]"),
        ("[\"Authorization: Basic dXNlcg==\", \"Accept: */*\"]", "[\"Authorization: <redacted>\", \"Accept: */*\"]"),
        ("proxy-authorization: Basic x, host: a", "proxy-authorization: <redacted>, host: a"),
        ("cookie: a=1; session=s3; theme=dark]", "cookie: <redacted>]"),
        ("set-cookie: id=7; Path=/; HttpOnly\nnext", "set-cookie: <redacted>\nnext"),
        ("X-API-Key: k123, X-Auth-Token: t456", "X-API-Key: <redacted>, X-Auth-Token: <redacted>"),
        ("/api/emoji?count=3&api_key=k1&access_token=t2", "/api/emoji?count=3&api_key=<redacted>&access_token=<redacted>"),
        ("password=hunter2", "password=<redacted>"),
        ("nothing to hide: here, count=3", "nothing to hide: here, count=3"),
        ("authorizationless: x", "authorizationless: x"),
        ("author: Jane", "author: Jane"),
    ])
    func scrub_ReplacesCredentialValues(input: String, expected: String) {
        #expect(LogRedaction.scrub(input) == expected)
    }

    @Test func target_LeavesAPathWithoutAQueryAlone() {
        #expect(LogRedaction.target("/api/token/abc") == "/api/token/abc")
        #expect(LogRedaction.target("/api/x?token=abc") == "/api/x?token=<redacted>")
    }

    @Test func addSensitiveNames_RedactsADocumentsOwnKeyNames() {
        #expect(LogRedaction.target("/a?zq_code=1") == "/a?zq_code=1")
        LogRedaction.addSensitiveNames(["ZQ_Code"])
        #expect(LogRedaction.target("/a?zq_code=1&n=2") == "/a?zq_code=<redacted>&n=2")
        #expect(LogRedaction.scrub("zq_code: 1") == "zq_code: <redacted>")
    }
}
