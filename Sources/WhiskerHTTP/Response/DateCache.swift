#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The `Date` header line (RFC 9110 section 5.6.7, IMF-fixdate), formatted once per second.
package final class DateCache: Sendable {
    package static let shared = DateCache()

    private let cache = Mutex<(second: Int, line: [UInt8], value: String)>((-1, [], ""))

    /// `Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n` for the current second.
    package func headerLine() -> [UInt8] { current.line }

    /// The IMF-fixdate alone (`Sun, 06 Nov 1994 08:49:37 GMT`), for HTTP/2's `date` field.
    package func value() -> String { current.value }

    /// Both forms for the current second, made once a second.
    private var current: (line: [UInt8], value: String) {
        let now = time(nil)
        return cache.withLock { cache in
            if cache.second != now {
                let value = Self.format(now)
                cache = (now, Array("Date: \(value)\r\n".utf8), value)
            }
            return (cache.line, cache.value)
        }
    }

    package static func format(_ seconds: Int) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
