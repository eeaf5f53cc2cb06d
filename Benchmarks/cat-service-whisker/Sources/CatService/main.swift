// cat-service-whisker PORT: the CatService on Whisker, on 127.0.0.1:PORT.
import Logging
import OpenAPIRuntime
import OpenAPIWhisker
import WhiskerCore

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
let server = WhiskerServer(configuration: configuration)
try CatHandler.forBenchmark().registerHandlers(
    on: WhiskerTransport(server),
    serverURL: try Servers.Server1.url(),
    middlewares: [EmojiCountErrorMiddleware()]
)
try await server.run(onListening: { addresses in
    print("cat-service-whisker listening on http://\(addresses.first.map { "\($0)" } ?? "?")")
})
