import HTTPTypes
import Testing
import WhiskerCore
import WhiskerTesting

/// The fallback after routing (`registerFallback(under:)`): what answers a path no route has.
@Suite struct RouterFallbackTests {
    /// Routes win over the fallback; another method on a route's path is still 405; paths no
    /// route has, under the prefix, are the fallback's, for any method.
    @Test func routesWin_FallbackTakesTheRest() throws {
        var router = Router<String>()
        try router.register("emoji", method: .get, path: "/api/emoji")
        try router.register("cat", method: .get, path: "/api/cats/{id}")
        try router.registerFallback("files", under: "/")
        guard case .found("emoji", _) = router.match(method: .get, path: "/api/emoji") else { Issue.record("route"); return }
        guard case .found("cat", let parameters) = router.match(method: .get, path: "/api/cats/7") else { Issue.record("templated route"); return }
        #expect(parameters["id"] == "7")
        guard case .methodNotAllowed = router.match(method: .post, path: "/api/emoji") else { Issue.record("405 kept"); return }
        for path in ["/", "/index.html", "/api/nothing", "/a/b/c", "/caf\u{E9}"] {
            guard case .found("files", let parameters) = router.match(method: .delete, path: path[...]) else { Issue.record("\(path)"); continue }
            #expect(parameters.count == 0)
        }
    }

    /// A prefix takes itself and what is below its slash, never a longer name (`/static` is not
    /// `/staticky`); the longest prefix wins; without a fallback a miss stays a miss.
    @Test func prefix_EndsAtASlash_LongestWins() throws {
        var router = Router<String>()
        #expect(throws: RouteError.self) { try router.registerFallback("bad", under: "static") }
        try router.registerFallback("static", under: "/static")
        try router.registerFallback("assets", under: "/static/assets/")
        #expect(throws: RouteError.self) { try router.registerFallback("again", under: "/static") }
        for (path, expected) in [("/static", "static"), ("/static/a.css", "static"), ("/static/assets/x.js", "assets"), ("/static/assets", "static")] {
            guard case .found(let value, _) = router.match(method: .get, path: path[...]) else { Issue.record("\(path)"); continue }
            #expect(value == expected, "\(path)")
        }
        for path in ["/staticky", "/", "/other/static"] {
            guard case .notFound = router.match(method: .get, path: path[...]) else { Issue.record("\(path) matched"); continue }
        }
    }

    /// On a server: the fallback's handler answers what no route has, and a route its own.
    @Test func server_FallbackAnswersMisses() async throws {
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        try server.registerFallback(under: "/") { request in
            Response(status: .notFound, body: .init(string: "no cats at \(request.head.path ?? "")"))
        }
        try await server.withRunning { (address: SocketAddress) async throws in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /nowhere?q=1 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().text == "hello")
            #expect(try await client.readResponse().text == "no cats at /nowhere?q=1")
        }
    }
}
