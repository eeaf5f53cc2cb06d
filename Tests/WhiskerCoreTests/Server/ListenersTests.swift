#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes
import Logging
import Testing
import WhiskerCore
import WhiskerSockets
import WhiskerTesting

/// `configuration.listeners`: TCP and Unix domain sockets side by side, per-listener options,
/// settings that cannot work named at start, and the older settings as conveniences over the list.
@Suite struct ListenersTests {
    private static func get(_ path: String, fields: String = "") -> String { "GET \(path) HTTP/1.1\r\nHost: x\r\n\(fields)\r\n" }

    @Test func tcpAndAUnixDomainSocket_ServeTheSameRoutes_AndTheFileGoesAtStop() async throws {
        let path = try temporarySocketPath()
        let lines = LoggedLines()
        let server = makeTestServer {
            $0.listeners = [.tcp(port: 0), .unixDomainSocket(path, permissions: 0o600)]
            $0.accessLog = .capturing(lines, label: "access")
        }
        try registerBasicRoutes(on: server)
        try registerContextRoute(on: server)
        try await server.withRunningAddresses { addresses in
            #expect(addresses.count == 2)
            #expect(addresses.last?.description == "unix:\(path)")
            var info = stat()
            #expect(lstat(path, &info) == 0 && info.st_mode & 0o777 == 0o600, "the file has the listener's mode")
            for address in addresses {
                let client = try await TestClient.connect(to: address)
                try await client.send(Self.get("/hello"))
                #expect(try await client.readResponse().text == "hello", "\(address)")
            }
            let local = try await TestClient.connect(to: try #require(addresses.last))
            try await local.send(Self.get("/context"))
            #expect(try await local.readResponse().text == "HTTP/1.1 | cleartext | no id | unix:", "a Unix peer is unnamed")
            #expect(await lines.wait(forCount: 3))
        }
        #expect(lines.all.last?.1["peer"] == "unix:")
        var info = stat()
        #expect(lstat(path, &info) != 0, "the socket file is removed when the server stops")
    }

    @Test(arguments: [
        ([WhiskerServer.Listener.tcp(port: 0).with(Unservable())], "the listener tcp", "asks for what this server does not do"),
        ([], "nothing to listen on", "configuration.listeners is empty"),
        ([.unixDomainSocket("/nonexistent-whisker-directory/cats.sock")], "cannot listen on unix:/nonexistent-whisker-directory/cats.sock", "bind"),
        ([.tcp(host: "cats.example", port: 0)], "cannot listen on cats.example", "not a numeric"),
    ] as [([WhiskerServer.Listener], String, String)])
    func listenersThatCannotWork_AreStartupErrors_SayingWhy(listeners: [WhiskerServer.Listener], what: String, why: String) async throws {
        let server = makeTestServer { $0.listeners = listeners }
        let error = await #expect(throws: WhiskerServerError.self) { try await server.run() }
        #expect(error?.description.contains(what) == true, "\(String(describing: error))")
        #expect(error?.description.contains(why) == true, "\(String(describing: error))")
    }

    /// An option whose feature is off: the server refuses to start, naming the listener.
    struct Unservable: ListenerOption {
        var logField: (name: String, value: String) { ("unservable", "true") }
        func validate(_ listener: WhiskerServer.Listener, in configuration: WhiskerServer.Configuration) throws(WhiskerServerError) {
            throw WhiskerServerError("the listener \(listener.address) asks for what this server does not do")
        }
    }

    @Test func theListIsTheOnlyVocabulary_AndTheAddressesComeInItsOrder() async throws {
        #expect(WhiskerServer.Configuration().listeners.map(\.address) == [.tcp(host: "127.0.0.1", port: 8080)])
        #expect(WhiskerServer.Configuration(host: "0.0.0.0", port: 9000).listeners.map(\.address) == [.tcp(host: "0.0.0.0", port: 9000)])
        let path = "/tmp/whisker-order-\(getpid()).sock"
        let server = makeTestServer { $0.listeners = [.tcp(port: 0), .unixDomainSocket(path), .tcp(host: "::1", port: 0)] }
        try await server.withRunningAddresses { addresses in
            #expect(addresses.count == 3)
            #expect(addresses[0].host == "127.0.0.1" && addresses[0].unixPath == nil)
            #expect(addresses[1].unixPath == path)
            #expect(addresses[2].host == "::1")
        }
    }

}
