import WhiskerCore
import WhiskerTesting

/// The protocol a wire test speaks.
enum Wire: String, CaseIterable, Sendable { case http1, http2 }

/// One response as a wire test reads it: status, fields (names lowercased) and body.
struct WireResponse: Sendable {
    var status: Int
    var fields: [(String, String)]
    var bytes: [UInt8]

    /// The body as UTF-8 text.
    var body: String { String(decoding: bytes, as: UTF8.self) }

    /// Every value of the field `name` (lowercase).
    func values(_ name: String) -> [String] { fields.filter { $0.0 == name }.map(\.1) }
}

/// Sends one request over a new connection to `address` in `wire`'s protocol and reads its answer.
func exchange(
    _ wire: Wire, with address: SocketAddress, _ path: String, method: String = "GET", fields: [(String, String)] = [], body: String? = nil
) async throws -> WireResponse {
    let socket = try await TestClient.connect(to: address)
    switch wire {
    case .http1:
        let length = body.map { "Content-Length: \($0.utf8.count)\r\n" } ?? ""
        try await socket.send("\(method) \(path) HTTP/1.1\r\nHost: x\r\n" + fields.map { "\($0.0): \($0.1)\r\n" }.joined() + length + "\r\n" + (body ?? ""))
        let response = try await socket.readResponse()
        return WireResponse(status: response.status, fields: response.headers.map { ($0.name.lowercased(), $0.value) }, bytes: response.body)
    case .http2:
        let h2 = HTTP2TestClient()
        let stream = h2.request(method: method, path: path, headers: fields, body: body.map { Array($0.utf8) })
        try await h2.exchange(over: socket) { $0.closed[stream] != nil }
        return WireResponse(status: Int(h2.status(stream) ?? "") ?? 0, fields: h2.headers[stream] ?? [], bytes: h2.bodies[stream] ?? [])
    }
}
