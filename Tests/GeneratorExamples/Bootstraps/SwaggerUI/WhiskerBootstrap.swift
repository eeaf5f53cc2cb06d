// Ours: the authors' `@main` (Vapor's Application, VaporTransport, FileMiddleware and a redirect
// route) replaced by Whisker's: the same handler at the same server URL, the Public folder served
// at `/` (`EXAMPLE_PUBLIC`, the extracted Public/), and `GET /openapi` redirected to openapi.html
// by one route, as the authors do. The rest of the target is the authors' file.
import ExampleSupport
import Foundation
import Whisker

@main struct SwaggerUIEndpointsServer {
    static func main() async throws {
        try await WhiskerExample.serve(document: { .embedded }) { transport, server in
            // Register the handlers generated from the OpenAPI document.
            let handler = Handler()
            try handler.registerHandlers(on: transport, serverURL: URL(string: "/api")!)

            // The Public folder (openapi.yaml and openapi.html) at `/`, beside the API.
            try server.serveFiles(from: ProcessInfo.processInfo.environment["EXAMPLE_PUBLIC"] ?? "Public", at: "/")

            // Redirect `GET /openapi` to `GET /openapi.html`, for convenience.
            try server.register(method: .get, path: "/openapi") { _ in
                Response(status: .movedPermanently, headerFields: [.location: "openapi.html"])
            }
        }
    }
}
