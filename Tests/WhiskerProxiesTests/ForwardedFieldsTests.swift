import HTTPTypes
import Testing
@testable import WhiskerProxies
import WhiskerCore
import WhiskerSockets

/// Who the client is behind trusted proxies, from fields alone.
@Suite struct ForwardedFieldsTests {
    private let proxies = try! WhiskerServer.ReverseProxies(trusting: ["10.0.0.0/8", "::1"])

    private func client(peer: String = "10.0.0.1", scheme: String = "http", setting field: WhiskerServer.ForwardingField = .xForwardedFor,
                        _ fields: [(String, String)]) throws -> String {
        var proxies = proxies
        proxies.forwardingField = field
        return try client(peer: peer, scheme: scheme, behind: proxies, fields)
    }

    private func client(peer: String = "10.0.0.1", scheme: String = "http", behind proxies: WhiskerServer.ReverseProxies, _ fields: [(String, String)]) throws -> String {
        var headerFields = HTTPFields()
        for (name, value) in fields { headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        let (address, scheme) = ForwardedFields.client(
            peer: try SocketAddress(host: peer, port: 5000), scheme: scheme, fields: headerFields, field: proxies.forwardingField(of:))
        return "\(address) \(scheme)"
    }

    @Test func xForwardedFor_TheRightmostUntrustedAddress() throws {
        #expect(try client([("X-Forwarded-For", "203.0.113.7")]) == "203.0.113.7:0 http")
        #expect(try client([("X-Forwarded-For", "198.51.100.1, 203.0.113.7, 10.0.0.9")]) == "203.0.113.7:0 http",
                "10.0.0.9 is a trusted proxy; 203.0.113.7 is not, so 198.51.100.1 (written by it) is not believed")
        #expect(try client([("X-Forwarded-For", "198.51.100.1"), ("X-Forwarded-For", "203.0.113.7")]) == "203.0.113.7:0 http",
                "several fields are one list")
        #expect(try client([("X-Forwarded-For", "10.0.0.3, 10.0.0.2")]) == "10.0.0.3:0 http", "all trusted: the leftmost")
        #expect(try client([("X-Forwarded-For", "203.0.113.7:4711")]) == "203.0.113.7:4711 http")
        #expect(try client([("X-Forwarded-For", "2001:db8::7")]) == "[2001:db8::7]:0 http")
        #expect(try client([("X-Forwarded-For", "[2001:db8::7]:443")]) == "[2001:db8::7]:443 http")
    }

    @Test func untrustedPeer_IsTheClient_WhateverItSays() throws {
        #expect(try client(peer: "192.0.2.1", [("X-Forwarded-For", "203.0.113.7"), ("X-Forwarded-Proto", "https")]) == "192.0.2.1:5000 http")
        #expect(try client(peer: "192.0.2.1", setting: .forwarded, [("Forwarded", "for=203.0.113.7")]) == "192.0.2.1:5000 http")
    }

    @Test func unusableHops_StopAtTheProxyThatWroteThem() throws {
        #expect(try client([("X-Forwarded-For", "203.0.113.7, unknown")]) == "10.0.0.1:5000 http")
        #expect(try client([("X-Forwarded-For", "example.com")]) == "10.0.0.1:5000 http")
        #expect(try client([("X-Forwarded-For", "")]) == "10.0.0.1:5000 http")
        #expect(try client(setting: .forwarded, [("Forwarded", "for=_hidden")]) == "10.0.0.1:5000 http")
        #expect(try client(setting: .forwarded, [("Forwarded", "for=unknown;proto=https")]) == "10.0.0.1:5000 http")
    }

    @Test func xForwardedProto_OnlyForABelievedHop() throws {
        #expect(try client([("X-Forwarded-For", "203.0.113.7"), ("X-Forwarded-Proto", "https")]) == "203.0.113.7:0 https")
        #expect(try client([("X-Forwarded-For", "203.0.113.7"), ("X-Forwarded-Proto", "HTTPS")]) == "203.0.113.7:0 https")
        #expect(try client([("X-Forwarded-For", "203.0.113.7"), ("X-Forwarded-Proto", "gopher")]) == "203.0.113.7:0 http", "only http and https")
        #expect(try client(scheme: "https", [("X-Forwarded-Proto", "http")]) == "10.0.0.1:5000 https", "no address, no hop")
        #expect(try client([("X-Forwarded-For", "203.0.113.7, 10.0.0.9"), ("X-Forwarded-Proto", "https, http")]) == "203.0.113.7:0 https",
                "one proto per address: the believed client's")
    }

    @Test func forwarded_RFC7239() throws {
        #expect(try client(setting: .forwarded, [("Forwarded", "for=192.0.2.60;proto=https;by=203.0.113.43")]) == "192.0.2.60:0 https")
        #expect(try client(setting: .forwarded, [("Forwarded", #"for="[2001:db8:cafe::17]:4711""#)]) == "[2001:db8:cafe::17]:4711 http")
        #expect(try client(setting: .forwarded, [("Forwarded", #"For="192.0.2.43:47011", for=10.0.0.5;proto=https"#)]) == "192.0.2.43:47011 https",
                "names are case-insensitive; a hop that says no proto keeps the nearer one's")
        #expect(try client(setting: .forwarded, [("Forwarded", #"for=192.0.2.1;host="a,b;c", for=198.51.100.2"#)]) == "198.51.100.2:0 http",
                "commas and semicolons inside quotes do not split")
        #expect(try client(setting: .forwarded, [("Forwarded", "for=198.51.100.2"), ("X-Forwarded-For", "203.0.113.7")]) == "198.51.100.2:0 http",
                "from a proxy that sets Forwarded, X-Forwarded-For is the client's own")
    }

    /// Issue 38: nginx (the demo's configuration) appends X-Forwarded-For and passes the client's
    /// own `Forwarded` through untouched; believing it let a client choose its address.
    @Test func aFieldTheProxyDoesNotSet_IsNeverBelieved() throws {
        #expect(try client([("Forwarded", "for=203.0.113.77"), ("X-Forwarded-For", "127.0.0.3")]) == "127.0.0.3:0 http",
                "the client's Forwarded through an X-Forwarded-For proxy")
        #expect(try client([("Forwarded", "for=203.0.113.77")]) == "10.0.0.1:5000 http", "Forwarded alone: the proxy is the client")
        #expect(try client(setting: .forwarded, [("X-Forwarded-For", "203.0.113.77"), ("Forwarded", "for=127.0.0.3")]) == "127.0.0.3:0 http",
                "the client's X-Forwarded-For through a Forwarded proxy")
        #expect(try client(setting: .none, [("X-Forwarded-For", "203.0.113.77"), ("Forwarded", "for=203.0.113.78")]) == "10.0.0.1:5000 http",
                "a proxy that sets neither: neither is read")
        // The legitimate shape: the client's own spoofed entry, then the one nginx appended.
        #expect(try client([("X-Forwarded-For", "203.0.113.77, 127.0.0.3")]) == "127.0.0.3:0 http")
    }

    /// Each proxy's entry comes from its own field: a CDN (192.0.2.0/24, trusted, appends
    /// `Forwarded`) in front of nginx (10.0.0.1, appends `X-Forwarded-For`).
    @Test func eachProxy_ItsOwnField_ReadFromTheRight() throws {
        var proxies = proxies
        proxies.forwardingFields = [.init(try IPAddressRange("192.0.2.0/24"), field: .forwarded)]
        let fields = [("Forwarded", "for=203.0.113.77"), ("Forwarded", "for=198.51.100.9;proto=https"), ("X-Forwarded-For", "203.0.113.78, 192.0.2.10")]
        #expect(try client(behind: proxies, fields) == "198.51.100.9:0 https",
                "nginx's entry names the CDN, the CDN's (the rightmost Forwarded) the client; the leftmost of each is the client's own")
        #expect(proxies.trusts(try SocketAddress(host: "192.0.2.10", port: 0)), "a range with its own field is trusted")
        #expect(proxies.forwardingField(of: try SocketAddress(host: "203.0.113.1", port: 0)) == nil)
        #expect(WhiskerServer.ForwardingField("x-forwarded-for") == .xForwardedFor && WhiskerServer.ForwardingField("FORWARDED") == .forwarded)
        #expect(WhiskerServer.ForwardingField("X-Real-IP") == nil)
    }

    @Test func nodes() {
        #expect(ForwardedFields.node("192.0.2.1")?.description == "192.0.2.1:0")
        #expect(ForwardedFields.node("192.0.2.1:_port")?.description == "192.0.2.1:0")
        #expect(ForwardedFields.node("192.0.2.1:99999") == nil)
        #expect(ForwardedFields.node("[::1") == nil)
        #expect(ForwardedFields.node("[::1]x") == nil)
        #expect(ForwardedFields.node("localhost") == nil)
        #expect(ForwardedFields.node("::ffff:192.0.2.1")?.host == "::ffff:192.0.2.1")
    }
}
