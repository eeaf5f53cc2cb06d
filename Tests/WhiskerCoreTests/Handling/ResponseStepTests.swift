import HTTPTypes
import Testing
import WhiskerCore
import WhiskerTesting

/// `configuration.responseSteps`: steps of your own on every response, a handler's and the server's
/// own, in order of phase and then as added.
@Suite struct ResponseStepTests {
    /// Appends its name to `X-Steps`, so the order the steps ran in shows.
    struct Mark: ResponseStep {
        let name: String
        var phase: ResponseStepPhase = .application
        func apply(to response: inout Response, for request: HTTPRequest, requestID: String?) {
            let before = response.head.headerFields[HTTPField.Name("X-Steps")!].map { $0 + "," } ?? ""
            response.head.headerFields[HTTPField.Name("X-Steps")!] = before + name
        }
    }

    @Test func ownSteps_RunOnEveryResponse_InPhaseOrder_ThenAsAdded() async throws {
        let server = makeTestServer {
            $0.requestIDs = true
            $0.responseSteps = [Mark(name: "second"), Mark(name: "first", phase: .identity), Mark(name: "third")]
        }
        try registerBasicRoutes(on: server)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            for path in ["/hello", "/nothere"] {
                try await client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                let response = try await client.readResponse()
                #expect(response.header("X-Steps") == "first,second,third", "\(path): \(response.status)")
                #expect(response.header("X-Request-ID") != nil, "the built-in steps run too")
            }
        }
    }

    @Test func phases_AreOrdered() {
        #expect(ResponseStepPhase.identity < .content && ResponseStepPhase.content < .access)
        #expect(ResponseStepPhase.access < .application && ResponseStepPhase.application < .coding)
        #expect(Plain().phase == .application, "a step's phase is application unless it says")
    }

    struct Plain: ResponseStep {
        func apply(to response: inout Response, for request: HTTPRequest, requestID: String?) {}
    }
}
