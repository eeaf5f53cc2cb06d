import Testing
@testable import WhiskerCompression
import WhiskerHTTP

/// `Accept-Encoding` negotiation (RFC 9110 §12.5.3) against the server's order `[br, gzip]`.
@Suite struct AcceptEncodingTests {
    private func chosen(_ values: String...) -> ContentCoding? {
        AcceptEncoding(values).preferred(among: [.brotli, .gzip])
    }

    @Test func theClientsWeightsDecide_TiesGoToTheServersOrder() {
        #expect(chosen("gzip") == .gzip)
        #expect(chosen("gzip, br") == .brotli)
        #expect(chosen("gzip, deflate, br, zstd") == .brotli)
        #expect(chosen("br;q=0.5, gzip") == .gzip)
        #expect(chosen("br;q=0.8, gzip;q=0.9") == .gzip)
        #expect(chosen("GZIP;Q=1.0") == .gzip)
        #expect(chosen("x-gzip") == .gzip)
    }

    @Test func zeroWeightsAndUnlistedCodings_AreRefused() {
        #expect(chosen("br;q=0, gzip;q=0") == nil)
        #expect(chosen("identity") == nil)
        #expect(chosen("deflate, zstd") == nil)
        #expect(chosen("") == nil)
        #expect(AcceptEncoding([String]()).preferred(among: [.brotli, .gzip]) == nil, "no field: identity")
        #expect(chosen("*;q=0, gzip") == .gzip)
        #expect(chosen("br;q=0, *") == .gzip, "a listed q=0 beats the wildcard")
    }

    @Test func theWildcard_WeighsWhatIsNotListed() {
        #expect(chosen("*") == .brotli)
        #expect(chosen("*;q=0.1, gzip;q=0.5") == .gzip)
        #expect(chosen("gzip;q=0.1, *;q=0.5") == .brotli)
    }

    @Test func anyCodingIsWeighedByItsToken() {
        // What a module that adds a coding relies on: the parser knows no list of codings.
        let field = AcceptEncoding(["dcb;q=0.9, Zstd, br;q=0.5"])
        #expect(field.preferred(among: ["br", "dcb", "zstd"]) { $0 } == "zstd")
        #expect(field.preferred(among: ["br", "dcb"]) { $0 } == "dcb")
        #expect(field.preferred(among: ["compress"]) { $0 } == nil)
        #expect(AcceptEncoding(["x-gzip;q=0.4, br;q=0.3"]).preferred(among: ["br", "gzip"]) { $0 } == "gzip")
    }

    @Test func zstd_ByWeight_AndByTheServersOrder() {
        // What Chrome 123+ sends: all at 1, so the server's order decides.
        let browser = AcceptEncoding(["gzip, deflate, br, zstd"])
        #expect(browser.preferred(among: [.zstd, .brotli, .gzip]) == .zstd)
        #expect(browser.preferred(among: [.brotli, .zstd, .gzip]) == .brotli)
        #expect(AcceptEncoding(["br;q=0.9, zstd;q=0.8"]).preferred(among: [.zstd, .brotli, .gzip]) == .brotli)
        #expect(AcceptEncoding(["zstd;q=0, br"]).preferred(among: [.zstd, .brotli, .gzip]) == .brotli)
        #expect(AcceptEncoding(["zstd"]).preferred(among: [.brotli, .gzip]) == nil, "not offered by the server")
        #expect(AcceptEncoding(["ZSTD"]).preferred(among: [.zstd]) == .zstd)
    }

    @Test func severalFields_AreOneList() {
        #expect(chosen("gzip;q=0.2", "br;q=0.1") == .gzip)
        #expect(chosen("deflate", "br") == .brotli)
    }

    @Test func malformedWeights_AreIgnored_AsIfTheElementWereAbsent() {
        #expect(chosen("gzip;q=1.5") == nil)
        #expect(chosen("gzip;q=abc, br;q=0.3") == .brotli)
        #expect(chosen("gzip;q=") == nil)
        #expect(chosen("gzip;q=0.1234") == nil)
        #expect(chosen("gzip ;Q=0.5 , br; q=0.4") == .gzip, "optional whitespace around the separators")
    }

    @Test func qvalues_AreThousandths() {
        #expect(AcceptEncoding.qvalue("0".utf8) == 0)
        #expect(AcceptEncoding.qvalue("0.001".utf8) == 1)
        #expect(AcceptEncoding.qvalue("0.5".utf8) == 500)
        #expect(AcceptEncoding.qvalue("1".utf8) == 1000)
        #expect(AcceptEncoding.qvalue("1.000".utf8) == 1000)
        #expect(AcceptEncoding.qvalue("1.001".utf8) == nil)
        #expect(AcceptEncoding.qvalue(".5".utf8) == nil)
        #expect(AcceptEncoding.qvalue("0.".utf8) == 0)
        #expect(AcceptEncoding.qvalue("2".utf8) == nil)
        #expect(AcceptEncoding.qvalue("0.5x".utf8) == nil)
        #expect(AcceptEncoding.qvalue("".utf8) == nil)
    }
}
