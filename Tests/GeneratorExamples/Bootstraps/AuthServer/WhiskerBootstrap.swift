// Ours: the authors' `@main` (Vapor's Application and VaporTransport) replaced by Whisker's,
// registering the same handler at the same server URL with the same middleware and the same
// (illustrative) token check. The rest of the target is the authors' files, extracted at test time.
import AuthenticationServerMiddleware
import ExampleSupport
import Foundation
import Whisker

@main struct HelloWorldVaporServer {
    static func main() async throws {
        try await WhiskerExample.serve(document: { .embedded }) { transport, _ in
            let handler = Handler()
            try handler.registerHandlers(
                on: transport,
                serverURL: URL(string: "/api")!,
                middlewares: [
                    AuthenticationServerMiddleware(authenticate: { stringValue in
                        switch stringValue {
                        case "token_for_Frank": return .init(name: "Frank")
                        default: return nil
                        }
                    })
                ]
            )
        }
    }
}
