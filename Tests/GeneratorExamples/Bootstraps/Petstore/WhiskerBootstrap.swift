// Ours: the petstore's stubs on Whisker, and the generated Client (URLSession transport) sending a
// request per operation to them in the same process. With EXAMPLE_VALIDATE=1 the transport
// validates every request against petstore.yaml: each one the generated Client sends must be
// admitted. Prints "ok OPERATION: what" or "FAIL OPERATION: why" per request; exits 1 on a failure.
import ExampleSupport
import Foundation
import OpenAPIRuntime
import OpenAPIURLSession
import Whisker

@main struct PetstoreCheck {
    static func main() async throws {
        let received = Received()
        var failures = 0
        try await WhiskerExample.withServer(document: { try .exampleDocument }) { transport, _ in
            try PetstoreStubs(received: received).registerHandlers(on: transport, serverURL: try Servers.Server2.url())
        } body: { port in
            let client = Client(serverURL: URL(string: "http://127.0.0.1:\(port)/api")!, transport: URLSessionTransport())
            for request in PetstoreRequests.all {
                do {
                    let what = try await request.send(client, received)
                    print("ok \(request.operation): \(what)")
                } catch {
                    failures += 1
                    print("FAIL \(request.operation) [validation \(WhiskerExample.validates ? "on" : "off")]: \(error)")
                }
            }
        }
        print("petstore: \(PetstoreRequests.all.count - failures) of \(PetstoreRequests.all.count) requests as documented")
        if failures > 0 { exit(1) }
    }
}
