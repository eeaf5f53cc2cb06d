import HTTPTypes
import Testing
import WhiskerCore
import WhiskerTesting

/// Keep-alive, pipelining, HTTP/1.0, HEAD, chunked bodies both ways and handler errors, over
/// real sockets.
@Suite struct ConnectionBehaviourTests {
    @Test func pipelinedRequests_AreAnsweredInOrder() async throws {
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send(
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\none"
                    + "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nthree\r\n0\r\n\r\n"
                    + "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            #expect(try await client.readResponse().text == "one")
            #expect(try await client.readResponse().text == "hello")
            #expect(try await client.readResponse().text == "three")
            #expect(try await client.readResponse().status == 404)
        }
    }

    @Test func connectionClose_ClosesAfterTheResponse() async throws {
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.text == "hello")
            #expect(response.header("connection") == "close")
            #expect(try await client.isClosedByServer())
        }
    }

    @Test func http10_ClosesByDefault_KeepsAliveWhenAsked() async throws {
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hello HTTP/1.0\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "hello")
            #expect(try await client.isClosedByServer())

            let keepAlive = try await TestClient.connect(to: address)
            for _ in 0..<2 {
                try await keepAlive.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                let response = try await keepAlive.readResponse()
                #expect(response.text == "hello")
                #expect(response.header("connection") == "keep-alive")
            }
        }
    }

    @Test func head_ForAGetRoute_SendsGetHeadersWithoutBody() async throws {
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try await client.readResponse(isHEAD: true)
            #expect(head.status == 200)
            #expect(head.header("content-length") == "5")
            #expect(head.header("content-type") == "text/plain")
            // The next response must start right away: had a body been sent, this would read it as a status line.
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().text == "hello")
        }
    }

    @Test func streamedResponseOfUnknownLength_IsChunked_AndCloseDelimitedForHTTP10() async throws {
        let server = makeTestServer()
        try server.register(method: .get, path: "/stream") { _ in
            Response(status: .ok, body: ResponseBody(length: nil) { writer in
                for word in ["alpha", "beta", "gamma"] { try await writer.write(Array(word.utf8)) }
            })
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.header("transfer-encoding") == "chunked")
            #expect(response.header("content-length") == nil)
            #expect(response.text == "alphabetagamma")
            #expect(response.chunkCount == 3)

            let old = try await TestClient.connect(to: address)
            try await old.send("GET /stream HTTP/1.0\r\n\r\n")
            let closeDelimited = try await old.readResponse()
            #expect(closeDelimited.header("transfer-encoding") == nil)
            #expect(closeDelimited.header("connection") == "close")
            #expect(closeDelimited.text == "alphabetagamma")
        }
    }

    @Test func handlerSetContentLength_IsSentOnce() async throws {
        let server = makeTestServer()
        try server.register(method: .get, path: "/dup") { _ in
            Response(status: .ok, headerFields: [.contentLength: "2", .connection: "keep-alive"], body: .init(string: "ok"))
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /dup HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.headers("content-length") == ["2"])
            #expect(response.headers("connection").isEmpty)
            #expect(response.headers("date").count == 1)
        }
    }

    @Test func statusFromABareCode_IsSentWithItsStandardReasonPhrase() async throws {
        let server = makeTestServer()
        try server.register(method: .get, path: "/bare") { _ in Response(status: .init(code: 201)) }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /bare HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 201)
            #expect(response.reason == "Created")
        }
    }

    @Test func expectContinue_SendsContinueWhenTheHandlerReads() async throws {
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
            let interim = try await client.readResponse()
            #expect(interim.status == 100)
            try await client.send("data")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "data")
            // Still keep-alive.
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().text == "hello")
        }
    }

    @Test func expectContinue_HandlerThatNeverReads_GetsNoContinueAndTheConnectionCloses() async throws {
        let server = makeTestServer()
        try server.register(method: .post, path: "/ignore") { _ in Response(status: .accepted) }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("POST /ignore HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 100000\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 202)
            #expect(response.header("connection") == "close")
        }
    }

    @Test func unreadSmallBody_IsDrained_AndTheConnectionServesTheNextRequest() async throws {
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        try server.register(method: .post, path: "/ignore") { _ in Response(status: .accepted) }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("POST /ignore HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 202)
            #expect(try await client.readResponse().text == "hello")
        }
    }

    @Test func handlerError_Becomes500_AndTheConnectionStaysUsable() async throws {
        struct Boom: Error {}
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        try server.register(method: .get, path: "/boom") { _ in throw Boom() }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /boom HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 500)
            #expect(!response.text.contains("Boom"), "internal errors are logged, not sent")
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().text == "hello")
        }
    }

    @Test func streamThatFailsAfterTheHead_EndsTheConnection() async throws {
        struct Boom: Error {}
        let server = makeTestServer()
        try server.register(method: .get, path: "/broken") { _ in
            Response(status: .ok, body: ResponseBody(length: 100) { writer in
                try await writer.write(Array("partial".utf8))
                throw Boom()
            })
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /broken HTTP/1.1\r\nHost: x\r\n\r\n")
            await #expect(throws: TestClientError.self) { try await client.readResponse() }
        }
    }

    @Test func pathParametersAndQuery_ReachTheHandlerRaw() async throws {
        let server = makeTestServer()
        try server.register(method: .get, path: "/files/{name}.zip") { request in
            Response(status: .ok, body: .init(string: "\(request.pathParameters["name"] ?? "-")|\(request.head.path ?? "")|\(request.head.authority ?? "")"))
        }
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /files/a%2Fb.c.zip?x=1&y=%20 HTTP/1.1\r\nHost: example.com:8080\r\n\r\n")
            #expect(try await client.readResponse().text == "a%2Fb.c|/files/a%2Fb.c.zip?x=1&y=%20|example.com:8080")
        }
    }
}
