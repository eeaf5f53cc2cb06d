import HTTPTypes
import Testing
@testable import WhiskerProxies
import WhiskerCore
import WhiskerSockets

/// Who the client is behind trusted proxies, from fields alone.
@Suite struct ForwardedFieldsTests {
    private let proxies = try! WhiskerServer.ReverseProxies(trusting: ["10.0.0.0/8", "::1"])

    private func client(peer: String = "10.0.0.1", scheme: String = "http", _ fields: [(String, String)]) throws -> String {
        var headerFields = HTTPFields()
        for (name, value) in fields { headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        let (address, scheme) = ForwardedFields.client(
            peer: try SocketAddress(host: peer, port: 5000), scheme: scheme, fields: headerFields, trusts: proxies.trusts)
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
        #expect(try client(peer: "192.0.2.1", [("Forwarded", "for=203.0.113.7")]) == "192.0.2.1:5000 http")
    }

    @Test func unusableHops_StopAtTheProxyThatWroteThem() throws {
        #expect(try client([("X-Forwarded-For", "203.0.113.7, unknown")]) == "10.0.0.1:5000 http")
        #expect(try client([("X-Forwarded-For", "example.com")]) == "10.0.0.1:5000 http")
        #expect(try client([("X-Forwarded-For", "")]) == "10.0.0.1:5000 http")
        #expect(try client([("Forwarded", "for=_hidden")]) == "10.0.0.1:5000 http")
        #expect(try client([("Forwarded", "for=unknown;proto=https")]) == "10.0.0.1:5000 http")
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
        #expect(try client([("Forwarded", "for=192.0.2.60;proto=https;by=203.0.113.43")]) == "192.0.2.60:0 https")
        #expect(try client([("Forwarded", #"for="[2001:db8:cafe::17]:4711""#)]) == "[2001:db8:cafe::17]:4711 http")
        #expect(try client([("Forwarded", #"For="192.0.2.43:47011", for=10.0.0.5;proto=https"#)]) == "192.0.2.43:47011 https",
                "names are case-insensitive; a hop that says no proto keeps the nearer one's")
        #expect(try client([("Forwarded", #"for=192.0.2.1;host="a,b;c", for=198.51.100.2"#)]) == "198.51.100.2:0 http",
                "commas and semicolons inside quotes do not split")
        #expect(try client([("Forwarded", "for=198.51.100.2"), ("X-Forwarded-For", "203.0.113.7")]) == "198.51.100.2:0 http",
                "Forwarded wins over X-Forwarded-For")
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
