import HTTPTypes
import Testing
import WhiskerCore
import WhiskerTesting

/// `InMemoryConnection`: a server's routes served over an in-memory stream by the real connection
/// code, the server never run (what the allocation budget in Benchmarks/Allocations measures with).
@Suite(.timeLimit(.minutes(1))) struct InMemoryConnectionTests {
    private static let get = Array("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n".utf8)

    @Test func servesTheRoutes_OnePersistentConnection_EachExchangeItsOwnResponse() async throws {
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        let connection = try InMemoryConnection(to: server)
        defer { connection.close() }
        for _ in 0..<3 {
            let response = await connection.exchange(Self.get) { $0.suffix(5).elementsEqual("hello".utf8) }
            let text = String(decoding: response, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"), "only this exchange's response: \(text)")
            #expect(text.hasSuffix("\r\n\r\nhello"))
        }
    }

    @Test func routesAreFrozen_OnceAConnectionIsOpen_AsWhenTheServerRuns() throws {
        let server = makeTestServer()
        try registerBasicRoutes(on: server)
        let connection = try InMemoryConnection(to: server)
        defer { connection.close() }
        #expect(throws: RouteError.self) {
            try server.register(method: .get, path: "/late") { _ in Response(status: .ok) }
        }
    }
}
