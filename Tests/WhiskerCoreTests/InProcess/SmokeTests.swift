import Testing
import WhiskerCore
import WhiskerTesting

@Suite struct SmokeTests {
    @Test func getReturnsBodyAndKeepsConnectionOpen() async throws {
        let server = makeServer()
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            for _ in 0..<3 {
                try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                let response = try await client.readResponse()
                #expect(response.status == 200)
                #expect(response.text == "hello")
                #expect(response.header("date") != nil)
            }
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nabcde")
            let echo = try await client.readResponse()
            #expect(echo.text == "abcde")
        }
    }
}
