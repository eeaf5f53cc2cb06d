import HTTPTypes
import OpenAPIRuntime
import WhiskerCore

extension Response {
    /// An answer a middleware makes itself (problem details: a refusal), as the runtime's
    /// response and body. Its body is in memory, never a stream.
    var openAPI: (HTTPResponse, HTTPBody?) {
        let bytes = localBody
        return (head, bytes.isEmpty ? nil : HTTPBody(bytes))
    }
}
