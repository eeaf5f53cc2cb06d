import Testing
@testable import WhiskerWebSocket

/// permessage-deflate's negotiation (RFC 7692 sections 5 and 7), I/O-free: the offers clients
/// make, the answer, and the offers declined (each beside an offer of the same shape accepted).
@Suite("permessage-deflate negotiation (RFC 7692 5, 7)")
struct PerMessageDeflateNegotiationTests {
    private func negotiate(_ lines: [String], _ settings: WebSocketCompression = .default) -> PerMessageDeflate? {
        PerMessageDeflate.negotiate(lines, settings: settings)
    }

    private func answer(_ line: String, _ settings: WebSocketCompression = .default) -> String? {
        negotiate([line], settings)?.responseValue
    }

    @Test func chromiumsAndPythonsOffer_IsAccepted_WithTheClientsWindowChosen() throws {
        // Chromium and `websockets` both offer this.
        let agreement = try #require(negotiate(["permessage-deflate; client_max_window_bits"]))
        #expect(agreement.responseValue == "permessage-deflate; client_max_window_bits=12")
        #expect(agreement.clientWindowBits == 12)
        #expect(agreement.serverWindowBits == 12)
        #expect(!agreement.serverNoContextTakeover && !agreement.clientNoContextTakeover)
    }

    @Test func anOfferWithoutClientMaxWindowBits_IsAnsweredWithoutIt_AndTheInflaterTakes32KiB() throws {
        let agreement = try #require(negotiate(["permessage-deflate"]))
        #expect(agreement.responseValue == "permessage-deflate")
        #expect(agreement.clientWindowBits == 15)
    }

    @Test func theClientsLimits_AreHonoured() throws {
        let limited = try #require(negotiate(["permessage-deflate; server_max_window_bits=10; client_max_window_bits=9"]))
        #expect(limited.responseValue == "permessage-deflate; server_max_window_bits=10; client_max_window_bits=9")
        #expect(limited.serverWindowBits == 10 && limited.clientWindowBits == 9)
        // A larger window offered than the settings take: the settings' (never more than offered).
        let larger = try #require(negotiate(["permessage-deflate; server_max_window_bits=15; client_max_window_bits=15"]))
        #expect(larger.responseValue == "permessage-deflate; server_max_window_bits=12; client_max_window_bits=12")
        // A quoted value is the same value (RFC 7692 7.1.2.1).
        #expect(answer(#"permessage-deflate; client_max_window_bits="10""#) == "permessage-deflate; client_max_window_bits=10")
    }

    @Test func contextTakeover_AskedByEitherSide_IsAnnounced() throws {
        #expect(answer("permessage-deflate; server_no_context_takeover; client_no_context_takeover")
            == "permessage-deflate; server_no_context_takeover; client_no_context_takeover")
        let settings = WebSocketCompression(serverNoContextTakeover: true, clientNoContextTakeover: true)
        let agreement = try #require(negotiate(["permessage-deflate"], settings))
        #expect(agreement.responseValue == "permessage-deflate; server_no_context_takeover; client_no_context_takeover")
        #expect(agreement.serverNoContextTakeover && agreement.clientNoContextTakeover)
    }

    @Test(arguments: [
        "permessage-deflate; server_max_window_bits=8",  // zlib cannot deflate with 256 bytes
        "permessage-deflate; server_max_window_bits",  // the value is required
        "permessage-deflate; server_max_window_bits=16",
        "permessage-deflate; client_max_window_bits=7",
        "permessage-deflate; client_max_window_bits=010",  // no leading zero
        "permessage-deflate; client_max_window_bits=1a",
        "permessage-deflate; server_no_context_takeover=true",  // a flag takes no value
        "permessage-deflate; client_no_context_takeover; client_no_context_takeover",  // twice
        "permessage-deflate; client_max_window_bits=10; client_max_window_bits=11",
        "permessage-deflate; mystery_parameter",  // not defined for an offer
        "x-webkit-deflate-frame",  // another extension: not ours
    ])
    func anOfferThatCannotBeHonoured_IsDeclined_AndTheNextOneAccepted(offer: String) {
        #expect(negotiate([offer]) == nil)
        // The same offer followed by a plain one: the fallback is taken (in one line, or in two).
        #expect(answer("\(offer), permessage-deflate") == "permessage-deflate")
        #expect(negotiate([offer, "permessage-deflate; client_max_window_bits"])?.responseValue == "permessage-deflate; client_max_window_bits=12")
    }

    @Test(arguments: [
        "permessage-deflate; ; client_max_window_bits",
        "permessage-deflate client_max_window_bits",
        "permessage-deflate; client_max_window_bits=\"10",
        "permessage-deflate; client_max_window_bits=",
        "permessage-deflate; =10",
    ])
    func aHeaderThatDoesNotParse_DeclinesEveryOffer(line: String) {
        #expect(negotiate([line]) == nil)
        #expect(negotiate(["permessage-deflate", line]) == nil, "no offer is taken from a field that does not parse")
    }

    @Test func namesAndParametersAreCaseInsensitive_AndSpacesOptional() {
        #expect(answer("Permessage-Deflate;Client_Max_Window_Bits") == "permessage-deflate; client_max_window_bits=12")
        #expect(answer(" permessage-deflate ;\tserver_max_window_bits = 11 ,") == "permessage-deflate; server_max_window_bits=11")
    }

    @Test func settingsAreClampedToWhatZlibTakes() {
        let settings = WebSocketCompression(serverWindowBits: 3, clientWindowBits: 40, memoryLevel: 0, level: 12, minimumSize: -1)
        #expect(settings == WebSocketCompression(serverWindowBits: 9, clientWindowBits: 15, memoryLevel: 1, level: 9, minimumSize: 0))
    }
}
