// cat-service-hummingbird PORT: the CatService on Hummingbird 2, on 127.0.0.1:PORT.
import Hummingbird
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

let router = Router()
try CatHandler.forBenchmark().registerHandlers(
    on: router,
    serverURL: try Servers.Server1.url(),
    middlewares: [EmojiCountErrorMiddleware()]
)
let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: nil),
    logger: logger
)
print("cat-service-hummingbird listening on http://127.0.0.1:\(port)")
try await app.runService()
