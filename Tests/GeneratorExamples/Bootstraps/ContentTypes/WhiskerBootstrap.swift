// Ours: the authors' `@main` (Vapor's Application and VaporTransport) replaced by Whisker's, registering the same handler
// at the same server URL. The rest of the target is the authors' file, extracted at test time.
import ExampleSupport
import Foundation
import Whisker

@main struct ContentTypesServer {
    static func main() async throws {
        try await WhiskerExample.serve(document: { .embedded }) { transport, _ in
            let handler = Handler()
            try handler.registerHandlers(on: transport, serverURL: URL(string: "/api")!)
        }
    }
}
