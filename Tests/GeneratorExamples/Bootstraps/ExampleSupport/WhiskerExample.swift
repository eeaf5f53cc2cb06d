// Ours, not the generator's: the server every example's bootstrap starts, so that the bootstraps
// differ only in what the authors' differ in (the handler, its middlewares, its extra routes).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Whisker

/// Starts the examples' Whisker server from the environment the checks give it:
///
/// - `EXAMPLE_PORT`: the port on 127.0.0.1 (0, the default, picks a free one);
/// - `EXAMPLE_VALIDATE=1`: the transport validates every request against the example's document
///   (`WhiskerTransport(server, validatingAgainst:)`); otherwise `WhiskerTransport(server)`, as the
///   README's first snippet.
///
/// HTTP/2 is on (h2c with prior knowledge beside HTTP/1.1 on the one port); every other setting is
/// Whisker's default, the minimum request-body rate among them. Prints `listening on HOST:PORT`
/// once the server accepts connections, and `validation: on|off`; SIGTERM or SIGINT drains it.
public enum WhiskerExample {
    /// Serves what `register` registers until SIGTERM or SIGINT.
    /// - Parameters:
    ///   - document: The example's document, read only when `EXAMPLE_VALIDATE=1`.
    ///   - register: Registers the example's handlers on the transport (and anything else on the server).
    public static func serve(
        document: () throws -> OpenAPIDocument,
        register: (WhiskerTransport, WhiskerServer) throws -> Void
    ) async throws {
        let (server, transport, validate) = try make(document: document)
        try register(transport, server)
        let signals = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { Task { await server.shutdown() } }
            source.resume()
            return source
        }
        try await server.run { addresses in
            print("validation: \(validate ? "on" : "off")")
            print("listening on \(addresses[0].host):\(addresses[0].port)")
        }
        withExtendedLifetime(signals) {}
    }
}

extension WhiskerExample {
    /// Whether this run validates (`EXAMPLE_VALIDATE=1`).
    public static var validates: Bool { ProcessInfoLite.environment["EXAMPLE_VALIDATE"] == "1" }

    /// Runs `body` with the port of a server serving what `register` registers, then drains it:
    /// for a check that is its own client (the petstore's).
    /// - Parameters:
    ///   - document: The document, read only when `EXAMPLE_VALIDATE=1`.
    ///   - register: Registers the handlers on the transport.
    ///   - body: What to do with the running server's port.
    public static func withServer(
        document: () throws -> OpenAPIDocument,
        register: (WhiskerTransport, WhiskerServer) throws -> Void,
        body: (Int) async throws -> Void
    ) async throws {
        let (server, transport, validate) = try make(document: document)
        try register(transport, server)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let running = Task {
            try await server.run { addresses in
                print("validation: \(validate ? "on" : "off")")
                print("listening on \(addresses[0].host):\(addresses[0].port)")
                continuation.yield(addresses[0].port)
                continuation.finish()
            }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await running.value
            return
        }
        do {
            try await body(port)
        } catch {
            await server.shutdown()
            try await running.value
            throw error
        }
        await server.shutdown()
        try await running.value
    }

    /// The server and transport from the environment.
    static func make(document: () throws -> OpenAPIDocument) throws -> (WhiskerServer, WhiskerTransport, Bool) {
        // The examples print what they receive; the checks read it as it happens.
        setvbuf(stdout, nil, _IOLBF, 0)
        let environment = ProcessInfoLite.environment
        let port = environment["EXAMPLE_PORT"].flatMap { Int($0) } ?? 0
        let validate = environment["EXAMPLE_VALIDATE"] == "1"
        var configuration = WhiskerServer.Configuration(host: "127.0.0.1", port: port)
        configuration.http2 = HTTP2Settings()
        let server = WhiskerServer(configuration: configuration)
        let transport = validate ? try WhiskerTransport(server, validatingAgainst: try document()) : WhiskerTransport(server)
        return (server, transport, validate)
    }
}

/// The process's environment without Foundation.
enum ProcessInfoLite {
    static var environment: [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }
}
