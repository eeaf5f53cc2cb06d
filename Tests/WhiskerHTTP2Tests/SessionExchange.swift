import WhiskerTesting
@testable import WhiskerHTTP2

/// Moves bytes both ways until neither side has anything to send; returns the server's events.
func exchange(_ client: HTTP2TestClient, _ server: HTTP2Session, rounds: Int = 50) throws -> [HTTP2Session.Event] {
    var events: [HTTP2Session.Event] = []
    for _ in 0..<rounds {
        let toServer = client.takeOutput()
        events += try toServer.withUnsafeBytes { try server.receive($0) }
        let toClient = try server.takeOutput() ?? []
        client.receive(toClient)
        if toServer.isEmpty && toClient.isEmpty { break }
    }
    return events
}
