// cat-service-hummingbird PORT: the CatService on Hummingbird 2, on 127.0.0.1:PORT.
//
// By default it serves HTTP/1.1 in clear text (Hummingbird's `.http1()` server). Optional
// environment variables, read at start-up, select HTTP/2 instead (for h2load comparisons):
//
//   CAT_H2C=1                   h2c with prior knowledge on the cleartext port
//                               (`HTTPServerBuilder.plaintextHTTP2()` from HummingbirdHTTP2). This
//                               port then speaks HTTP/2 only: Hummingbird 2.28.1 has no server that
//                               accepts both HTTP/1.1 and h2c prior knowledge on one cleartext port,
//                               and no `Upgrade: h2c`.
//   CAT_TLS_CERT=cert.pem       TLS on the port, with ALPN h2 and http/1.1
//   CAT_TLS_KEY=key.pem         (`HTTPServerBuilder.http2Upgrade(tlsConfiguration:)`): h2 when the
//                               client offers it, HTTP/1.1 over TLS otherwise. Both must be set; the
//                               certificate file may hold a chain (PEM).
//
// CAT_H2C and CAT_TLS_* are exclusive. An empty variable, or CAT_H2C=0, counts as unset.
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import OpenAPIHummingbird
import OpenAPIRuntime

let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 8080
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .warning
    return handler
}
var logger = Logger(label: "cat-service-hummingbird")
logger.logLevel = .warning

func environment(_ name: String) -> String? {
    guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
    return value
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("cat-service-hummingbird: \(message)\n".utf8))
    exit(2)
}

let h2c = environment("CAT_H2C").map { $0 != "0" } ?? false
let tlsCert = environment("CAT_TLS_CERT")
let tlsKey = environment("CAT_TLS_KEY")
if (tlsCert == nil) != (tlsKey == nil) { fail("CAT_TLS_CERT and CAT_TLS_KEY must be set together") }
if h2c && tlsCert != nil { fail("CAT_H2C and CAT_TLS_CERT/CAT_TLS_KEY are exclusive") }

let server: HTTPServerBuilder
let scheme: String
let protocols: String
if let tlsCert, let tlsKey {
    let tlsConfiguration: TLSConfiguration
    do {
        let chain = try NIOSSLCertificate.fromPEMFile(tlsCert)
        let key = try NIOSSLPrivateKey(file: tlsKey, format: .pem)
        tlsConfiguration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) },
            privateKey: .privateKey(key)
        )
    } catch {
        fail("cannot load CAT_TLS_CERT=\(tlsCert) / CAT_TLS_KEY=\(tlsKey): \(error)")
    }
    // http2Upgrade sets the ALPN protocols itself (NIOHTTP2SupportedALPNProtocols: h2, http/1.1).
    server = try .http2Upgrade(tlsConfiguration: tlsConfiguration)
    scheme = "https"
    protocols = " (TLS, ALPN h2/http1.1)"
} else if h2c {
    server = .plaintextHTTP2()
    scheme = "http"
    protocols = " (h2c prior knowledge only)"
} else {
    server = .http1()
    scheme = "http"
    protocols = ""
}

let router = Router()
try CatHandler.forBenchmark().registerHandlers(
    on: router,
    serverURL: try Servers.Server1.url()
)
let app = Application(
    router: router,
    server: server,
    configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: nil),
    logger: logger
)
print("cat-service-hummingbird listening on \(scheme)://127.0.0.1:\(port)\(protocols)")
try await app.runService()
