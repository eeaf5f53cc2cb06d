// cat-service-vapor PORT: the CatService on Vapor 4, on 127.0.0.1:PORT.
import Logging
import OpenAPIRuntime
import OpenAPIVapor
import Vapor

let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 8080
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .warning
    return handler
}

// The command line is ours (the port), so Vapor gets a fixed one: the default `serve` command.
let app = try await Application.make(Environment(name: "production", arguments: ["cat-service-vapor"]))
app.logger.logLevel = .warning
app.http.server.configuration.hostname = "127.0.0.1"
app.http.server.configuration.port = port
// Vapor's own response compression (gzip, deflate), for the compression scenarios; a client that
// sends no Accept-Encoding (every other scenario) gets the identity body, as before.
app.http.server.configuration.responseCompression = .enabled

try CatHandler.forBenchmark().registerHandlers(
    on: VaporTransport(routesBuilder: app),
    serverURL: try Servers.Server1.url()
)
print("cat-service-vapor listening on http://127.0.0.1:\(port)")
do {
    try await app.execute()
} catch {
    try? await app.asyncShutdown()
    throw error
}
try await app.asyncShutdown()
