#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import WhiskerHTTP

/// The cached IMF-fixdate `Date` line (RFC 9110 section 5.6.7).
@Suite struct DateCacheTests {
    @Test func formatOfZero_IsTheUnixEpoch() {
        #expect(DateCache.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test(arguments: [
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),  // the example in RFC 9110 section 5.6.7
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),  // a leap day
        (1_700_000_000, "Tue, 14 Nov 2023 22:13:20 GMT"),
        (4_102_444_799, "Thu, 31 Dec 2099 23:59:59 GMT"),
    ])
    func formatOfKnownTimestamp_IsIMFFixdate(seconds: Int, expected: String) {
        #expect(DateCache.format(seconds) == expected)
    }

    @Test func headerLine_IsTheCurrentDateAsAFieldLine() {
        let before = time(nil)
        let line = String(decoding: DateCache.shared.headerLine(), as: UTF8.self)
        let after = time(nil)
        let candidates = Set((before...after).map { "Date: \(DateCache.format($0))\r\n" })
        #expect(candidates.contains(line))
        #expect(line.utf8.count == 37)
    }
}
