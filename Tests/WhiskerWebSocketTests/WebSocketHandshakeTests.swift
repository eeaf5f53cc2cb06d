import HTTPTypes
import Testing
@testable import WhiskerWebSocket

@Suite("The opening handshake (RFC 6455 4.2)")
struct WebSocketHandshakeTests {
    private func request(_ fields: HTTPFields, method: HTTPRequest.Method = .get) -> HTTPRequest {
        HTTPRequest(method: method, scheme: nil, authority: "localhost", path: "/ws", headerFields: fields)
    }

    private let valid: HTTPFields = [
        .upgrade: "websocket", .connection: "Upgrade", .secWebSocketVersion: "13", .secWebSocketKey: "dGhlIHNhbXBsZSBub25jZQ==",
    ]

    private func status(_ verdict: WebSocketHandshake.Verdict) -> HTTPResponse.Status? {
        if case .reject(let status, _, _) = verdict { return status }
        return nil
    }

    @Test func aBrowsersHandshakeIsAcceptedWithTheRFCsAcceptValue() {
        let verdict = WebSocketHandshake.verdict(for: request(valid))
        #expect(verdict == .accept([.upgrade: "websocket", .connection: "Upgrade", .secWebSocketAccept: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="]))
    }

    // Firefox sends `Connection: keep-alive, Upgrade`; tokens are case-insensitive.
    @Test func connectionIsATokenListInAnyCase() {
        var fields = valid
        fields[.connection] = "keep-alive, UPGRADE"
        fields[.upgrade] = "WebSocket"
        #expect(status(WebSocketHandshake.verdict(for: request(fields))) == nil)
        fields[.connection] = "keep-alive, upgraded"
        #expect(status(WebSocketHandshake.verdict(for: request(fields))) == .badRequest)
    }

    @Test func aRequestWithoutUpgradeIsTold426() {
        var fields = valid
        fields[.upgrade] = nil
        guard case .reject(.upgradeRequired, let answer, _) = WebSocketHandshake.verdict(for: request(fields)) else {
            Issue.record("expected 426"); return
        }
        #expect(answer[.upgrade] == "websocket")
        fields[.upgrade] = "h2c"
        #expect(status(WebSocketHandshake.verdict(for: request(fields))) == .upgradeRequired)
    }

    @Test func anotherVersionIsTold426NamingThirteen() {
        var fields = valid
        fields[.secWebSocketVersion] = "8"
        guard case .reject(.upgradeRequired, let answer, _) = WebSocketHandshake.verdict(for: request(fields)) else {
            Issue.record("expected 426"); return
        }
        #expect(answer[.secWebSocketVersion] == "13")
        fields[.secWebSocketVersion] = nil
        #expect(status(WebSocketHandshake.verdict(for: request(fields))) == .upgradeRequired)
    }

    // 16 bytes: 24 characters ending in `==`; 15 or 17 bytes, or not base64 at all, are 400.
    @Test(arguments: ["AAAAAAAAAAAAAAAAAAAAAA==", "x3JJHMbDL1EzLkh9GBhXDw=="])
    func aKeyOfSixteenBytesPasses(key: String) {
        var fields = valid
        fields[.secWebSocketKey] = key
        #expect(status(WebSocketHandshake.verdict(for: request(fields))) == nil)
    }

    @Test(arguments: ["AAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAA=", "AAAAAAAAAAAAAAAAAAAAAAAA", "not base64 at all!!!!!==", ""])
    func aKeyThatIsNotSixteenBytesIs400(key: String) {
        var fields = valid
        fields[.secWebSocketKey] = key
        #expect(status(WebSocketHandshake.verdict(for: request(fields))) == .badRequest)
    }

    @Test func aMissingOrRepeatedKeyIs400() {
        var fields = valid
        fields[.secWebSocketKey] = nil
        #expect(status(WebSocketHandshake.verdict(for: request(fields))) == .badRequest)
        fields = valid
        fields.append(HTTPField(name: .secWebSocketKey, value: "AAAAAAAAAAAAAAAAAAAAAA=="))
        #expect(status(WebSocketHandshake.verdict(for: request(fields))) == .badRequest)
    }

    @Test func onlyGETUpgrades() {
        #expect(status(WebSocketHandshake.verdict(for: request(valid, method: .post))) == .methodNotAllowed)
    }

    @Test func theOriginHookRefusesWith403AndLetsItsOwnOriginIn() {
        var fields = valid
        fields[.origin] = "https://evil.example"
        let hook: (String?) -> Bool = { $0 == "https://cats.example" }
        #expect(status(WebSocketHandshake.verdict(for: request(fields), allowsOrigin: hook)) == .forbidden)
        fields[.origin] = "https://cats.example"
        #expect(status(WebSocketHandshake.verdict(for: request(fields), allowsOrigin: hook)) == nil)
    }
}
