import HTTPTypes
import Testing
import WhiskerCore
import WhiskerSockets

/// ``ProblemDetails``: the JSON document and which form a client's `Accept` gets.
@Suite struct ProblemDetailsTests {
    private func request(accept: String?) -> HTTPRequest {
        var fields: HTTPFields = [:]
        if let accept { fields[.accept] = accept }
        return HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/", headerFields: fields)
    }

    @Test(arguments: [
        (nil, false), ("*/*", false), ("application/json", false), ("application/problem+json", false),
        ("application/*", false), ("text/plain", true), ("text/*", true), ("text/plain, application/json", false),
        ("text/plain, application/json;q=0.5", true), ("application/json;q=0.2, text/*;q=0.5", true),
        ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", false), ("image/png", false),
        ("text/plain;q=0, */*", false), ("text/plain; q=0.9, */*; q=0.1", true), ("garbage;;;", false),
    ] as [(String?, Bool)])
    func accept_DecidesBetweenJSONAndText(accept: String?, text: Bool) {
        let response = ProblemDetails(status: .notFound, detail: "no route for /x", requestID: nil).response(to: request(accept: accept))
        #expect(response.head.headerFields[.contentType] == (text ? "text/plain; charset=utf-8" : "application/problem+json"))
    }

    @Test func json_HasTheRFCsMembersInOrder_TheRequestIDLast_AndEscapesStrings() {
        let problem = ProblemDetails(status: .badRequest, detail: "a \"quoted\" \\ name\nwith\u{1}control", requestID: "abc")
        #expect(problem.json == #"{"type":"about:blank","title":"Bad Request","status":400,"detail":"a \"quoted\" \\ name\nwith\u0001control","requestId":"abc"}"#)
        let typed = ProblemDetails(status: .conflict, detail: "taken", type: "https://cats.example/problems/taken", title: "Name taken", requestID: nil)
        #expect(typed.json == #"{"type":"https://cats.example/problems/taken","title":"Name taken","status":409,"detail":"taken"}"#)
    }

    @Test func text_IsTheTitleAndDetailOnOneLine_AndFieldsAreKept() throws {
        let response = ProblemDetails(status: .methodNotAllowed, detail: "POST is not allowed here", requestID: "abc")
            .response(to: request(accept: "text/plain"), fields: [.allow: "GET, HEAD"])
        #expect(response.head.status == .methodNotAllowed)
        #expect(response.head.headerFields[.allow] == "GET, HEAD")
        #expect(String(decoding: response.localBody, as: UTF8.self) == "Method Not Allowed: POST is not allowed here\n")
    }

    @Test func theRequestID_DefaultsToTheCurrentRequests() throws {
        let context = RequestContext(peer: try SocketAddress(host: "127.0.0.1", port: 1), httpVersion: .http1_1, tls: nil, requestID: "from-context")
        let problem = RequestContext.$current.withValue(context) { ProblemDetails(status: .badRequest, detail: "x") }
        #expect(problem.requestID == "from-context")
        #expect(ProblemDetails(status: .badRequest, detail: "x").requestID == nil)
    }
}
