import HTTPTypes
import Testing
@testable import WhiskerHTTP

/// Validators and preconditions (RFC 9110 §8.8, §13): the ETag made for an in-memory body, entity
/// tag comparison, and the 304 and 412 answers.
@Suite struct ConditionalRequestsTests {
    private func get(_ fields: HTTPFields = [:], method: HTTPRequest.Method = .get) -> HTTPRequest {
        HTTPRequest(method: method, scheme: "http", authority: "x", path: "/", headerFields: fields)
    }

    private let hello = Response(status: .ok, headerFields: [.contentType: "text/plain", .cacheControl: "max-age=60"], body: .init(string: "hello"))

    @Test func generatedETag_DependsOnTheBytes_AndAHandlersOwnWins() {
        let tag = hello.withGeneratedETag(for: get()).head.headerFields[.eTag]
        #expect(tag?.utf8.count == 13 && tag?.hasPrefix("\"") == true && tag?.hasSuffix("\"") == true, "\(tag ?? "none")")
        #expect(Response(status: .ok, body: .init(string: "hellp")).withGeneratedETag(for: get()).head.headerFields[.eTag] != tag)
        #expect(hello.withGeneratedETag(for: get()).head.headerFields[.eTag] == tag, "the same bytes, the same tag")
        var own = hello
        own.head.headerFields[.eTag] = "\"mine\""
        #expect(own.withGeneratedETag(for: get()).head.headerFields[.eTag] == "\"mine\"")
        #expect(hello.withGeneratedETag(for: get(method: .post)).head.headerFields[.eTag] == nil, "only GET and HEAD")
        let streamed = Response(status: .ok, body: ResponseBody(length: 1) { try await $0.write([1]) })
        #expect(streamed.withGeneratedETag(for: get()).head.headerFields[.eTag] == nil, "a stream's bytes are not known in advance")
    }

    @Test(arguments: [
        ("\"a\"", "\"a\"", true, true), ("\"a\"", "W/\"a\"", false, true), ("W/\"a\"", "W/\"a\"", false, true),
        ("\"a\"", "\"b\"", false, false), ("\"b\", \"a\"", "\"a\"", true, true), ("*", "\"a\"", true, true),
    ])
    func entityTags_CompareStronglyOrWeakly(list: String, etag: String, strong: Bool, weak: Bool) {
        #expect(EntityTag.list(list, matches: etag, weak: false) == strong)
        #expect(EntityTag.list(list, matches: etag, weak: true) == weak)
    }

    @Test func ifNoneMatch_Matching_Is304WithValidatorsAndNoBody() {
        let tagged = hello.withGeneratedETag(for: get())
        let tag = tagged.head.headerFields[.eTag]!
        let answer = tagged.answeringPreconditions(of: get([.ifNoneMatch: tag]))
        #expect(answer.head.status == .notModified)
        #expect(answer.head.headerFields[.eTag] == tag && answer.head.headerFields[.cacheControl] == "max-age=60")
        #expect(answer.head.headerFields[.contentType] == nil)
        guard case .empty = answer.body.storage else { Issue.record("a 304 has no body"); return }
        #expect(tagged.answeringPreconditions(of: get([.ifNoneMatch: "\"other\""])).head.status == .ok)
        #expect(tagged.answeringPreconditions(of: get([.ifNoneMatch: "*"])).head.status == .notModified)
    }

    @Test func ifMatch_Failing_Is412_AndNon2xxResponsesAreLeftAlone() {
        let tagged = hello.withGeneratedETag(for: get())
        #expect(tagged.answeringPreconditions(of: get([.ifMatch: "\"other\""])).head.status == .preconditionFailed)
        #expect(tagged.answeringPreconditions(of: get([.ifMatch: tagged.head.headerFields[.eTag]!])).head.status == .ok)
        let missing = Response(status: .notFound, headerFields: [.eTag: "\"x\""])
        #expect(missing.answeringPreconditions(of: get([.ifNoneMatch: "\"x\""])).head.status == .notFound)
    }

    @Test func ifModifiedSince_EqualToLastModified_Is304_UnlessIfNoneMatchIsThere() {
        let date = "Sun, 22 Nov 2026 10:00:00 GMT"
        let dated = Response(status: .ok, headerFields: [.lastModified: date, .eTag: "\"v\""], body: .init(string: "x"))
        #expect(dated.answeringPreconditions(of: get([.ifModifiedSince: date])).head.status == .notModified)
        #expect(dated.answeringPreconditions(of: get([.ifModifiedSince: "Sat, 21 Nov 2026 10:00:00 GMT"])).head.status == .ok)
        #expect(dated.answeringPreconditions(of: get([.ifModifiedSince: date, .ifNoneMatch: "\"w\""])).head.status == .ok,
                "If-None-Match, when present, decides (RFC 9110 §13.2.2)")
    }
}
