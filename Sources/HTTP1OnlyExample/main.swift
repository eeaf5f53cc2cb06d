// An HTTP/1.1-only server: Whisker without its default traits (TLS, HTTP2, Compression), as a
// package gets it with `.package(url: ..., from: ..., traits: [])`. Built so, it links neither
// OpenSSL nor libnghttp2 nor zlib nor Brotli (Scripts/check-layers.sh checks with ldd), which is
// what a service behind a proxy that ends TLS and speaks HTTP/1.1 upstream needs.
//
//     swift run --disable-default-traits HTTP1OnlyExample 8080   # then: curl http://127.0.0.1:8080/hello/world
//
// A generated server would call `registerHandlers(on: transport, serverURL:)`; this one registers
// one operation by hand, as the generated code does. SIGTERM and SIGINT shut it down gracefully
// (WhiskerLifecycle does the same for a swift-service-lifecycle `ServiceGroup`).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import HTTPTypes
import OpenAPIRuntime
import Whisker

let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 8080
let server = WhiskerServer(configuration: .init(host: "127.0.0.1", port: port))
let transport = WhiskerTransport(server)
try transport.register({ _, _, metadata in
    let name = metadata.pathParameters["name"].map(String.init) ?? ""
    return (HTTPResponse(status: .ok, headerFields: [.contentType: "text/plain"]), HTTPBody("hello \(name)\n"))
}, method: .get, path: "/hello/{name}")

let signals = shutdownOnSignals(server)
try await server.run { addresses in
    print("listening on \(addresses[0])")
    fflush(nil)
}
withExtendedLifetime(signals) {}
