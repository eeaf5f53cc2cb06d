import HTTPTypes
import Testing
import WhiskerCore
@testable import WhiskerHTTP2
import WhiskerSockets

@Suite struct HTTP2UpgradeTests {
    /// curl's `HTTP2-Settings` for MAX_CONCURRENT_STREAMS 100, INITIAL_WINDOW_SIZE 33554432, ENABLE_PUSH 0.
    static let curlSettings = "AAMAAABkAAQCAAAAAAIAAAAA"

    @Test func base64URL_DecodesSettingsEntries_AndRefusesOtherAlphabets() {
        #expect(HTTP2Upgrade.base64URLDecoded(Self.curlSettings) == [0, 3, 0, 0, 0, 100, 0, 4, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0])
        #expect(HTTP2Upgrade.base64URLDecoded("") == [])
        #expect(HTTP2Upgrade.base64URLDecoded("AAMAAABk+A") == nil, "'+' is base64, not base64url")
        #expect(HTTP2Upgrade.base64URLDecoded("AAMA") == nil, "3 bytes is not a whole settings entry")
    }

    /// (A request with a body, or an HTTP/1.0 one, is never asked about: the core's rule.)
    @Test func upgrade_NeedsUpgradeH2c_ConnectionTokens_AndOneSettingsField() {
        let good = head(["Upgrade": "h2c", "Connection": "Upgrade, HTTP2-Settings", "HTTP2-Settings": Self.curlSettings])
        #expect(HTTP2Upgrade.settingsPayload(good)?.count == 18)
        #expect(HTTP2Upgrade.settingsPayload(head(["Upgrade": "h2c", "Connection": "Upgrade", "HTTP2-Settings": Self.curlSettings])) == nil,
                "HTTP2-Settings must be a connection option")
        #expect(HTTP2Upgrade.settingsPayload(head(["Upgrade": "websocket", "Connection": "Upgrade, HTTP2-Settings", "HTTP2-Settings": Self.curlSettings])) == nil)
        #expect(HTTP2Upgrade.settingsPayload(head(["Upgrade": "h2c", "Connection": "Upgrade, HTTP2-Settings"])) == nil)
    }

    private func head(_ fields: [String: String]) -> HTTPRequest {
        var wire = "GET / HTTP/1.1\r\nHost: x\r\n"
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { wire += "\(name): \(value)\r\n" }
        var parser = HTTP1RequestParser(limits: .init())
        var buffer = ReadBuffer(Array((wire + "\r\n").utf8))
        guard case .head(let head)? = try? parser.next(&buffer) else { fatalError("the test's request did not parse") }
        return head.request
    }
}
