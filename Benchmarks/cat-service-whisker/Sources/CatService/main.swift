// cat-service-whisker PORT: the CatService on Whisker, on 127.0.0.1:PORT.
//
// HTTP/1.1 and h2c (prior knowledge) on PORT by default (CAT_H2C=1, which the Hummingbird
// server needs for h2c, changes nothing here). With CAT_TLS_CERT=PEM CAT_TLS_KEY=PEM it serves
// HTTPS only on PORT, ALPN h2 or http/1.1. With CAT_VALIDATION=1 it checks each request against
// the document (openapi.yaml beside this file) before the handler runs, as cat-service does by
// default: bench.sh's `whisker-validating`, to measure what that costs. With CAT_LAYER=plain it
// serves no OpenAPI at all: one closure route for GET /api/emoji on the same server configuration,
// answering a random cat as text/plain as the generated handler does (bench.sh's `whisker-plain`,
// the first Whisker row of the per-layer table: the server's own share without the transport, the
// generated code and the runtime).
import Foundation
import Logging
import OpenAPIRuntime
import HTTPTypes
import Whisker

let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 8080
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .warning
    return handler
}
var logger = Logger(label: "cat-service-whisker")
logger.logLevel = .warning

var configuration = WhiskerServer.Configuration(host: "127.0.0.1", port: port)
configuration.logger = logger
configuration.http2 = HTTP2Settings()
// As cat-service has it: br and gzip for text of 256 bytes and up, when the client asks.
configuration.compression = CompressionSettings()
let environment = ProcessInfo.processInfo.environment
// CAT_WORKERS=N: N I/O workers (instructions.sh counts with one, as it runs cat-service).
if let workers = environment["CAT_WORKERS"].flatMap({ Int($0) }) { configuration.io.workers = workers }
if let certificate = environment["CAT_TLS_CERT"], let key = environment["CAT_TLS_KEY"] {
    configuration.listeners = [.https(port: port, tls: TLSConfiguration(certificateChainPath: certificate, privateKeyPath: key))]
}
let server = WhiskerServer(configuration: configuration)
switch environment["CAT_LAYER"] {
case "plain":
    let fields: HTTPFields = [.contentType: "text/plain"]
    try server.register(method: .get, path: "/api/emoji") { _ in
        Response(status: .ok, headerFields: fields, body: ResponseBody(string: String(CatHandler.cats.randomElement()!)))
    }
case nil, "", "transport":
    let transport = if environment["CAT_VALIDATION"] == "1" {
        try WhiskerTransport(server, validatingAgainst: OpenAPIDocument(yaml: Array(try Data(contentsOf: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().appendingPathComponent("openapi.yaml")))))
    } else {
        WhiskerTransport(server)
    }
    try CatHandler.forBenchmark().registerHandlers(
        on: transport,
        serverURL: try Servers.Server1.url()
    )
case let layer?:
    logger.critical("CAT_LAYER=\(layer): unknown (plain, or transport, the default)")
    exit(2)
}
let scheme = configuration.listeners.contains(where: \.isTLS) ? "https" : "http"
try await server.run(onListening: { addresses in
    print("cat-service-whisker listening on \(scheme)://\(addresses.first.map { "\($0)" } ?? "?")")
})
