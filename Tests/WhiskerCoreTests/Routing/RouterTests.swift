import HTTPTypes
import Testing
@testable import WhiskerCore

/// The router: OpenAPI path templates (static, `{param}`, mixed segments) matched against raw
/// request paths, with the precedence rules and errors the runtime contract asks for.
@Suite struct RouterTests {
    @Test func staticRoute_MatchesOnlyItsExactPath() throws {
        let router = try makeRouter(("pets", .get, "/pets"), ("root", .get, "/"))
        #expect(router.found(.get, "/pets")?.value == "pets")
        #expect(router.found(.get, "/pets")?.parameters.count == 0)
        #expect(router.found(.get, "/")?.value == "root")
        #expect(router.isNotFound(.get, "/pets/1"))
        #expect(router.isNotFound(.get, "/pet"))
        #expect(router.isNotFound(.get, "/Pets"))
        #expect(router.isNotFound(.get, ""))
        #expect(router.isNotFound(.get, "pets"))
    }

    @Test func parameterSegment_CapturesTheWholeSegment() throws {
        let router = try makeRouter(("show", .get, "/pets/{petId}"))
        let match = try #require(router.found(.get, "/pets/7"))
        #expect(match.value == "show")
        #expect(match.parameters["petId"] == "7")
        #expect(match.parameters.count == 1)
        #expect(router.isNotFound(.get, "/pets/7/toys"))
        #expect(router.isNotFound(.get, "/pets"))
    }

    @Test func mixedSegment_CapturesTheShortestValueBeforeTheSuffix() throws {
        let router = try makeRouter(("zip", .get, "/file/{name}.zip"))
        #expect(router.found(.get, "/file/a.b.zip")?.parameters["name"] == "a.b")
        #expect(router.found(.get, "/file/archive.zip")?.parameters["name"] == "archive")
        #expect(router.found(.get, "/file/a.zip.zip")?.parameters["name"] == "a.zip")
        #expect(router.isNotFound(.get, "/file/.zip"))  // a capture is never empty
        #expect(router.isNotFound(.get, "/file/a.zi"))
        #expect(router.isNotFound(.get, "/file/a.zipx"))
    }

    @Test func twoCapturesInOneSegment_SplitAtTheFirstSeparator() throws {
        let router = try makeRouter(("range", .get, "/{a}-{b}"))
        let match = try #require(router.found(.get, "/x-y"))
        #expect(match.parameters["a"] == "x")
        #expect(match.parameters["b"] == "y")
        let longer = try #require(router.found(.get, "/x-y-z"))
        #expect(longer.parameters["a"] == "x")
        #expect(longer.parameters["b"] == "y-z")
        #expect(router.isNotFound(.get, "/xy"))
        #expect(router.isNotFound(.get, "/x-"))
        #expect(router.isNotFound(.get, "/-y"))
    }

    @Test func multipleParameters_AreReturnedInTemplateOrder() throws {
        let router = try makeRouter(("toy", .get, "/users/{userId}/pets/{petId}/toys/{toyId}.{format}"))
        let match = try #require(router.found(.get, "/users/u1/pets/p2/toys/t3.json"))
        #expect(match.parameters.map { $0.name } == ["userId", "petId", "toyId", "format"])
        #expect(match.parameters.map { String($0.value) } == ["u1", "p2", "t3", "json"])
    }

    @Test func staticSegment_BeatsTemplatedSegmentAtTheSameLevel() throws {
        // The templated route is registered first, so order of registration is not what decides.
        let router = try makeRouter(("byId", .get, "/pets/{petId}"), ("mine", .get, "/pets/mine"))
        #expect(router.found(.get, "/pets/mine")?.value == "mine")
        #expect(router.found(.get, "/pets/mine")?.parameters.count == 0)
        #expect(router.found(.get, "/pets/7")?.value == "byId")
    }

    @Test func staticBranchThatFailsDeeper_BacktracksToTheTemplatedBranch() throws {
        let router = try makeRouter(
            ("mineToys", .get, "/pets/mine/toys"),
            ("photos", .get, "/pets/{petId}/photos")
        )
        let match = try #require(router.found(.get, "/pets/mine/photos"))
        #expect(match.value == "photos")
        #expect(match.parameters["petId"] == "mine")  // no capture left over from the failed branch
        #expect(match.parameters.count == 1)
        #expect(router.found(.get, "/pets/mine/toys")?.value == "mineToys")
    }

    @Test func backtrackingAcrossPatterns_DropsCapturesOfTheFailedPattern() throws {
        let router = try makeRouter(
            ("zipInfo", .get, "/file/{name}.zip/info"),
            ("raw", .get, "/file/{id}/raw")
        )
        let match = try #require(router.found(.get, "/file/a.zip/raw"))
        #expect(match.value == "raw")
        #expect(match.parameters.map { $0.name } == ["id"])
        #expect(match.parameters["id"] == "a.zip")
    }

    @Test func moreLiteralText_BeatsLessLiteralText() throws {
        let router = try makeRouter(
            ("any", .get, "/files/{name}"),
            ("gz", .get, "/files/{name}.gz"),
            ("tarGz", .get, "/files/{name}.tar.gz")
        )
        #expect(router.found(.get, "/files/x.tar.gz")?.value == "tarGz")
        #expect(router.found(.get, "/files/x.tar.gz")?.parameters["name"] == "x")
        #expect(router.found(.get, "/files/x.gz")?.value == "gz")
        #expect(router.found(.get, "/files/x.txt")?.value == "any")
        #expect(router.found(.get, "/files/x.txt")?.parameters["name"] == "x.txt")
    }

    @Test func trailingSlash_MattersAsRegistered() throws {
        let both = try makeRouter(("noSlash", .get, "/pets"), ("slash", .get, "/pets/"))
        #expect(both.found(.get, "/pets")?.value == "noSlash")
        #expect(both.found(.get, "/pets/")?.value == "slash")

        let withoutSlash = try makeRouter(("noSlash", .get, "/pets"))
        #expect(withoutSlash.isNotFound(.get, "/pets/"))
        let withSlash = try makeRouter(("slash", .get, "/pets/"))
        #expect(withSlash.isNotFound(.get, "/pets"))
    }

    /// RFC 3986 §6.2.2: `%65` and `e` are the same URI, hex digits compare without case; a
    /// reserved character stays encoded, and a malformed triplet is left as it is.
    @Test func percentEncodedUnreserved_IsTheCharacter_HexCaseIgnored() throws {
        let router = try makeRouter(("emoji", .get, "/api/emoji"), ("file", .get, "/files/{name}"), ("tilde", .get, "/~me"))
        #expect(router.found(.get, "/api/%65moji")?.value == "emoji")
        #expect(router.found(.get, "/%61%70%69/%45moji") == nil, "%45 is E, and paths are case-sensitive")
        #expect(router.found(.get, "/%7Eme")?.value == "tilde")
        #expect(router.found(.get, "/%7eme")?.value == "tilde")
        #expect(router.found(.get, "/files/caf%c3%a9")?.parameters["name"] == "caf%C3%A9")
        #expect(router.found(.get, "/files/%41b%2fc")?.parameters["name"] == "Ab%2Fc")
        #expect(router.isNotFound(.get, "/api%2Femoji"))
        #expect(router.found(.get, "/files/100%")?.parameters["name"] == "100%")
        #expect(router.found(.get, "/files/%zz%41")?.parameters["name"] == "%zz%41", "a malformed % leaves the whole path alone")
    }

    /// Found by FuzzRouter: Swift's `String` equality is Unicode canonical equivalence, so the
    /// Kelvin sign (U+212A) matched a route's `K`, and a combining mark after `/` hid the slash.
    /// Requests carry ASCII only: any other path never matches, and a template's non-ASCII
    /// characters are percent-encoded as a URI carries them.
    @Test func nonASCIIPath_NeverMatches_NonASCIITemplate_MatchesItsPercentEncoding() throws {
        let router = try makeRouter(("key", .get, "/Key"), ("any", .get, "/{x}"), ("cafe", .get, "/café"))
        #expect(router.isNotFound(.get, "/\u{212A}ey"))
        #expect(router.isNotFound(.get, "/\u{35B}-y"))
        #expect(router.found(.get, "/Key")?.value == "key")
        #expect(router.found(.get, "/caf%C3%A9")?.value == "cafe")
        #expect(router.found(.get, "/caf%c3%a9")?.value == "cafe")
        #expect(router.isNotFound(.get, "/café"))
    }

    /// Found by FuzzRouter: `%%3741` decoded to `%741`, which a second pass decoded again, so a
    /// path and its normalisation could match differently. A malformed `%` now leaves the path as it is.
    @Test func normalisation_IsIdempotent_AMalformedPercentLeavesThePathAlone() {
        for path in ["/%%3741", "/%2%62", "/a%41%", "/%41%zz", "/%7e%41"] {
            let once = Router<Int>.normalizingPercentEncoding(path[...])
            #expect(Router<Int>.normalizingPercentEncoding(once) == once, "\(path)")
        }
        #expect(Router<Int>.normalizingPercentEncoding("/%2%62") == "/%2%62")
        #expect(Router<Int>.normalizingPercentEncoding("/%7e%41") == "/~A")
    }

    /// Templates are normalised as paths are: a template that spells `%7E` matches `~`.
    @Test func template_IsNormalisedAsPathsAre() throws {
        let router = try makeRouter(("tilde", .get, "/%7Eme"))
        #expect(router.found(.get, "/~me")?.value == "tilde")
        #expect(router.found(.get, "/%7eme")?.value == "tilde")
    }

    @Test func methods_AreEveryRegisteredMethod_AndHEADWithGET() throws {
        #expect(try makeRouter().methods.isEmpty)
        let router = try makeRouter(("a", .get, "/a"), ("b", .post, "/b"), ("c", .delete, "/a"))
        #expect(router.methods == [.get, .head, .post, .delete])
    }

    /// The runtime decodes path parameters itself, so they must arrive still percent-encoded,
    /// and an encoded slash is data, not a segment separator.
    @Test func percentEncodedValues_AreReturnedRawAndNotSplit() throws {
        let router = try makeRouter(("file", .get, "/files/{name}"), ("nested", .get, "/files/{dir}/{name}"))
        let match = try #require(router.found(.get, "/files/a%2Fb"))
        #expect(match.value == "file")
        #expect(match.parameters["name"] == "a%2Fb")
        #expect(router.found(.get, "/files/caf%C3%A9%20au%20lait")?.parameters["name"] == "caf%C3%A9%20au%20lait")
        #expect(router.found(.get, "/files/a/b")?.value == "nested")
    }

    @Test func emptySegment_NeverMatchesAParameter() throws {
        let router = try makeRouter(("show", .get, "/pets/{petId}"), ("toys", .get, "/users/{userId}/toys"))
        #expect(router.isNotFound(.get, "/pets/"))
        #expect(router.isNotFound(.get, "/users//toys"))
        #expect(router.found(.get, "/users/u/toys")?.parameters["userId"] == "u")
    }

    @Test func unknownPath_IsNotFound() throws {
        let router = try makeRouter(("list", .get, "/pets"))
        #expect(router.isNotFound(.post, "/cats"))
        #expect(router.isNotFound(.get, "/cats"))
    }

    @Test func knownPathWithOtherMethod_IsMethodNotAllowedWithAllowedMethods() throws {
        let router = try makeRouter(("list", .get, "/pets"), ("create", .post, "/pets"))
        // GET implies HEAD, which is answered from the GET route.
        #expect(router.allowed(.delete, "/pets") == ["GET", "HEAD", "POST"])
    }

    @Test func methodNotAllowed_WithoutGet_DoesNotListHead() throws {
        let router = try makeRouter(("create", .post, "/pets"), ("replace", .put, "/pets"))
        #expect(router.allowed(.get, "/pets") == ["POST", "PUT"])
        #expect(router.allowed(.head, "/pets") == ["POST", "PUT"])
    }

    @Test func methodNotAllowed_AllowedIsTheUnionOverAllMatchingRoutes() throws {
        let router = try makeRouter(
            ("replaceMine", .put, "/pets/mine"),
            ("delete", .delete, "/pets/{petId}"),
            ("get", .get, "/pets/{petId}")
        )
        #expect(router.allowed(.patch, "/pets/mine") == ["DELETE", "GET", "HEAD", "PUT"])
        #expect(router.allowed(.patch, "/pets/7") == ["DELETE", "GET", "HEAD"])
    }

    @Test func head_FallsBackToTheGetRoute() throws {
        let router = try makeRouter(("list", .get, "/pets/{petId}"))
        let match = try #require(router.found(.head, "/pets/3"))
        #expect(match.value == "list")
        #expect(match.parameters["petId"] == "3")
    }

    @Test func head_PrefersAnExplicitHeadRoute() throws {
        let router = try makeRouter(("get", .get, "/pets"), ("head", .head, "/pets"))
        #expect(router.found(.head, "/pets")?.value == "head")
        #expect(router.found(.get, "/pets")?.value == "get")
    }

    @Test func duplicateRegistration_ThrowsAnErrorNamingBothTemplates() throws {
        var router = Router<String>()
        try router.register("first", method: .get, path: "/pets/{id}")
        let error = #expect(throws: RouteError.self) {
            try router.register("second", method: .get, path: "/pets/{petId}")
        }
        let description = try #require(error).description
        #expect(description.contains("/pets/{id}"))
        #expect(description.contains("/pets/{petId}"))
        #expect(description.contains("GET"))
        // The first registration is untouched: no silent override.
        #expect(router.found(.get, "/pets/1")?.value == "first")
        #expect(router.found(.get, "/pets/1")?.parameters["id"] == "1")
    }

    @Test func identicalStaticRegistration_Throws() throws {
        var router = Router<String>()
        try router.register("first", method: .post, path: "/api/emoji")
        #expect(throws: RouteError.self) { try router.register("second", method: .post, path: "/api/emoji") }
    }

    @Test func sameTemplateWithAnotherMethodOrShape_DoesNotThrow() throws {
        var router = Router<String>()
        try router.register("get", method: .get, path: "/pets/{id}")
        try router.register("put", method: .put, path: "/pets/{id}")
        try router.register("zip", method: .get, path: "/pets/{id}.zip")
        try router.register("prefixed", method: .get, path: "/v2/pets/{id}")
        #expect(router.found(.put, "/pets/1")?.value == "put")
        #expect(router.found(.get, "/pets/1.zip")?.value == "zip")
        #expect(router.found(.get, "/v2/pets/1")?.value == "prefixed")
    }

    @Test(arguments: ["/a/{", "/a/{}", "/{a}{b}", "a/b", "", "pets/{id}", "/a/}", "/a/b}c", "/a/{b{c}}", "/{id}/{id}"])
    func malformedTemplate_Throws(template: String) {
        var router = Router<String>()
        let error = #expect(throws: RouteError.self) { try router.register("x", method: .get, path: template) }
        #expect(error?.description.contains(template) == true)
    }

    /// Correctness at scale only: no timing assertions.
    @Test func routerWithTenThousandRoutes_StillMatchesEveryRouteCorrectly() throws {
        var router = Router<Int>()
        for index in 0..<9_800 {
            try router.register(index, method: .get, path: "/api/v\(index % 10)/resource\(index)/{id}")
        }
        // Two hundred mixed patterns under one node, all of different shapes.
        for index in 0..<200 {
            try router.register(10_000 + index, method: .get, path: "/m/{name}.ext\(index)")
        }
        for index in 0..<9_800 {
            let match = router.found(.get, "/api/v\(index % 10)/resource\(index)/item-\(index)")
            #expect(match?.value == index)
            #expect(match?.parameters["id"] == "item-\(index)"[...])
        }
        for index in 0..<200 {
            let match = router.found(.get, "/m/file.v\(index).ext\(index)")
            #expect(match?.value == 10_000 + index)
            #expect(match?.parameters["name"] == "file.v\(index)"[...])
        }
        #expect(router.isNotFound(.get, "/api/v1/resource2/x"))  // 2 lives under v2
        #expect(router.isNotFound(.get, "/m/file.ext200"))
        #expect(router.allowed(.post, "/api/v3/resource9793/x") == ["GET", "HEAD"])
    }
}

// MARK: Helpers

private func makeRouter(_ routes: (String, HTTPRequest.Method, String)...) throws -> Router<String> {
    var router = Router<String>()
    for (value, method, path) in routes { try router.register(value, method: method, path: path) }
    return router
}

extension Router {
    /// The value and parameters when the route matches, else `nil`.
    fileprivate func found(_ method: HTTPRequest.Method, _ path: String) -> (value: Value, parameters: PathParameters)? {
        if case .found(let value, let parameters) = match(method: method, path: path[...]) { return (value, parameters) }
        return nil
    }

    /// The allowed methods' names when the match is a 405, else `nil`.
    fileprivate func allowed(_ method: HTTPRequest.Method, _ path: String) -> [String]? {
        if case .methodNotAllowed(let allowed) = match(method: method, path: path[...]) { return allowed.map(\.rawValue) }
        return nil
    }

    fileprivate func isNotFound(_ method: HTTPRequest.Method, _ path: String) -> Bool {
        if case .notFound = match(method: method, path: path[...]) { return true }
        return false
    }
}
