#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import WhiskerCore
import WhiskerSockets
import WhiskerTesting

/// Readiness notification without libsystemd, against a fake notify socket.
@Suite struct SystemdNotifyTests {
    @Test func notifier_SendsOneDatagram_ToAPathOrAnAbstractName() throws {
        let fake = try FakeNotifySocket()
        #expect(fake.notifier.notify("READY=1\nSTATUS=hello"))
        #expect(try fake.receive() == "READY=1\nSTATUS=hello")
        #expect(!SystemdNotifier(socketPath: "/tmp/" + String(repeating: "x", count: 200)).notify("READY=1"), "a path longer than sun_path")
        #expect(!SystemdNotifier(socketPath: "/tmp/no-such-notify-socket").notify("READY=1"), "nobody listening")
    }

    @Test func fromEnvironment_ReadsNOTIFY_SOCKET() {
        // Other tests' servers may see it meanwhile; sending to an abstract name nobody bound fails quietly.
        setenv("NOTIFY_SOCKET", "@whisker-test-\(getpid())", 1)
        #expect(SystemdNotifier.fromEnvironment() == SystemdNotifier(socketPath: "@whisker-test-\(getpid())"))
        unsetenv("NOTIFY_SOCKET")
        #expect(SystemdNotifier.fromEnvironment() == nil)
    }

    @Test func server_SaysReady_OnceListening_AndStopping_WhenItDrains() async throws {
        let fake = try FakeNotifySocket()
        let server = makeTestServer { $0.systemdNotifier = fake.notifier }
        try registerBasicRoutes(on: server)
        let (addresses, continuation) = AsyncStream.makeStream(of: SocketAddress.self)
        let run = Task { try await server.run { continuation.yield($0[0]) } }
        var iterator = addresses.makeAsyncIterator()
        let address = try #require(await iterator.next())
        let ready = try fake.receive()
        #expect(ready.hasPrefix("READY=1\n"))
        #expect(ready.contains("STATUS=listening on \(address)"))
        await server.shutdown()
        try await run.value
        let stopping = try fake.receive()
        #expect(stopping.hasPrefix("STOPPING=1\n"))
    }
}
