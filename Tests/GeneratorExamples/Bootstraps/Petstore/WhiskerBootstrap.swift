// Ours: the petstore's stubs on Whisker, and the generated Client (URLSession transport) sending a
// request per operation to them in the same process. With EXAMPLE_VALIDATE=1 the transport
// validates every request against petstore.yaml: each one the generated Client sends must be
// admitted. Prints "ok OPERATION: what" or "FAIL OPERATION: why" per request; exits 1 on a failure.
// With PETSTORE_SERVE=1 it only serves the stubs (until SIGTERM), for check.py's requests that the
// document does not allow.
import ExampleSupport
import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession
import Synchronization
import Whisker

@main struct PetstoreCheck {
    static func main() async throws {
        let received = Received()
        if ProcessInfo.processInfo.environment["PETSTORE_SERVE"] == "1" {
            try await WhiskerExample.serve(document: { .embedded }) { transport, _ in
                try PetstoreStubs(received: received).registerHandlers(on: transport, serverURL: try Servers.Server2.url())
            }
            return
        }
        var failures = 0
        try await WhiskerExample.withServer(document: { .embedded }) { transport, _ in
            try PetstoreStubs(received: received).registerHandlers(on: transport, serverURL: try Servers.Server2.url())
        } body: { port in
            let refusal = LastRefusal()
            let client = Client(serverURL: URL(string: "http://127.0.0.1:\(port)/api")!, transport: URLSessionTransport(), middlewares: [refusal])
            for request in PetstoreRequests.all {
                refusal.clear()
                do {
                    let what = try await request.send(client, received)
                    print("ok \(request.operation): \(what)")
                } catch {
                    failures += 1
                    // The server's refusal says what it refused; the Client's error only that it could not decode it.
                    print("FAIL \(request.operation) [validation \(WhiskerExample.validates ? "on" : "off")]: \(refusal.text ?? "\(error)")")
                }
            }
        }
        print("petstore: \(PetstoreRequests.all.count - failures) of \(PetstoreRequests.all.count) requests as documented")
        if failures > 0 { exit(1) }
    }
}

/// The last 4xx or 5xx answer's status and body (problem details), so that a failure names what
/// the server refused rather than the Client's "unexpected content type".
final class LastRefusal: ClientMiddleware, Sendable {
    private let value = Mutex<String?>(nil)
    var text: String? { value.withLock { $0 } }
    func clear() { value.withLock { $0 = nil } }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.code >= 400 else { return (response, responseBody) }
        var bytes: [UInt8] = []
        if let responseBody { bytes = try await [UInt8](collecting: responseBody, upTo: 64 * 1024) }
        value.withLock { $0 = "\(response.status.code) \(String(decoding: bytes, as: UTF8.self))" }
        return (response, HTTPBody(bytes))
    }
}
