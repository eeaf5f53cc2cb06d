/// The `format` values request validation checks (issue 40), each as the generated code reads
/// the value and as the standard the OpenAPI specification names defines it. Any other format
/// (`binary`, `password`, `float`, a format of the user's own) is an annotation, not checked.
///
/// - `date-time`: RFC 3339's `date-time` (`2024-05-01T12:00:00Z`, `...T12:00:00.250+02:00`): the
///   runtime's `Date` transcoder writes it, without a fraction by default; a fraction, lower-case
///   `t`/`z` and a leap second (`:60`) are RFC 3339's too.
/// - `date`: RFC 3339's `full-date` (`2024-02-29`), the day checked against its month and year.
/// - `uuid`: RFC 9562's form, 8-4-4-4-12 hexadecimal digits in either case.
/// - `email`: RFC 5321's `Mailbox`: a dot-atom or quoted local part of at most 64 bytes, `@`, and a
///   domain of letter-digit-hyphen labels or an address literal (`[192.0.2.1]`), at most 254 in all.
/// - `uri`: RFC 3986's absolute URI: a scheme, `:`, then only the characters a URI may hold, each
///   `%` followed by two hexadecimal digits.
/// - `byte`: RFC 4648's base64, the standard alphabet, padded to a multiple of four or unpadded.
/// - `int32`, `int64`: an integer within the signed 32- or 64-bit range (the generated code's
///   `Int32` and `Int64`).
enum SchemaFormat: String, Sendable {
    case dateTime = "date-time"
    case date
    case uuid
    case email
    case uri
    case byte
    case int32
    case int64

    /// Why `text` is not of this format, or `nil` if it is (or the format is not a string format).
    func problem(with text: String) -> String? {
        let bytes = Array(text.utf8)
        let valid: Bool
        switch self {
        case .dateTime: valid = Self.isDateTime(bytes[...])
        case .date: valid = Self.isFullDate(bytes[...])
        case .uuid: valid = Self.isUUID(bytes)
        case .email: valid = Self.isEmail(bytes)
        case .uri: valid = Self.isURI(bytes)
        case .byte: valid = Self.isBase64(bytes)
        case .int32, .int64: return nil
        }
        return valid ? nil : "must be \(example), got \(SchemaSet.shown(.string(text)))"
    }

    /// Why the number `value` is not of this format, or `nil`.
    func problem(with value: JSONValue) -> String? {
        let fits: Bool
        switch (self, value) {
        case (.int32, .integer(let integer)): fits = Int32(exactly: integer) != nil
        case (.int64, .integer): fits = true
        // -2^(n-1) ..< 2^(n-1), bounds a Double holds exactly. A number that is an int64 is read
        // as an integer, unless written with a fraction or an exponent (`1e3`): one read as a number
        // at -2^63 is an integer text past Int64.min, rounded to it, and does not fit.
        case (.int32, .number(let number)): fits = number >= -0x1p31 && number < 0x1p31
        case (.int64, .number(let number)): fits = number > -0x1p63 && number < 0x1p63
        default: fits = true
        }
        return fits ? nil : "must be \(example), got \(value.jsonText)"
    }

    /// What a value of this format looks like, for messages.
    private var example: String {
        switch self {
        case .dateTime: "a date-time (RFC 3339, as 2024-05-01T12:00:00Z)"
        case .date: "a date (RFC 3339, as 2024-05-01)"
        case .uuid: "a UUID (as 123e4567-e89b-12d3-a456-426614174000)"
        case .email: "an email address (RFC 5321)"
        case .uri: "an absolute URI (RFC 3986)"
        case .byte: "base64 (RFC 4648)"
        case .int32: "an int32 (-2147483648...2147483647)"
        case .int64: "an int64 (-9223372036854775808...9223372036854775807)"
        }
    }

    // MARK: RFC 3339

    /// `full-date "T" full-time`, where `full-time` is `HH:MM:SS[.frac]` and `Z` or `±HH:MM`.
    private static func isDateTime(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count >= 20 else { return false }
        let start = bytes.startIndex
        guard isFullDate(bytes[start..<start + 10]), bytes[start + 10] | 0x20 == UInt8(ascii: "t") else { return false }
        var time = bytes[(start + 11)...]
        guard let hour = number(&time, digits: 2), hour < 24, take(&time, ":"),
              let minute = number(&time, digits: 2), minute < 60, take(&time, ":"),
              let second = number(&time, digits: 2), second <= 60
        else { return false }
        if take(&time, ".") {
            let digits = time.prefix { isDigit($0) }.count
            guard digits > 0 else { return false }
            time = time.dropFirst(digits)
        }
        if time.count == 1, time.first! | 0x20 == UInt8(ascii: "z") { return true }
        guard let sign = time.popFirst(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
              let offsetHour = number(&time, digits: 2), offsetHour < 24, take(&time, ":"),
              let offsetMinute = number(&time, digits: 2), offsetMinute < 60
        else { return false }
        return time.isEmpty
    }

    /// `YYYY-MM-DD`, the day within its month (February 29 in leap years only).
    private static func isFullDate(_ bytes: ArraySlice<UInt8>) -> Bool {
        var date = bytes
        guard let year = number(&date, digits: 4), take(&date, "-"),
              let month = number(&date, digits: 2), take(&date, "-"),
              let day = number(&date, digits: 2), date.isEmpty,
              (1...12).contains(month), day >= 1
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days
    }

    // MARK: RFC 9562

    private static func isUUID(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 36 else { return false }
        return bytes.enumerated().allSatisfy { offset, byte in
            [8, 13, 18, 23].contains(offset) ? byte == UInt8(ascii: "-") : isHexDigit(byte)
        }
    }

    // MARK: RFC 5321

    private static func isEmail(_ bytes: [UInt8]) -> Bool {
        guard bytes.count <= 254, let at = bytes.lastIndex(of: UInt8(ascii: "@")) else { return false }
        let local = bytes[..<at]
        let domain = bytes[(at + 1)...]
        guard !local.isEmpty, local.count <= 64, !domain.isEmpty else { return false }
        let localValid: Bool
        if local.first == UInt8(ascii: "\""), local.count >= 2, local.last == UInt8(ascii: "\"") {
            // quoted-string: printable ASCII, `\` escaping one printable character.
            var inner = local.dropFirst().dropLast()
            var valid = true
            while let byte = inner.popFirst() {
                if byte == UInt8(ascii: "\\") {
                    guard let escaped = inner.popFirst(), (0x20...0x7E).contains(escaped) else { valid = false; break }
                } else if !(0x20...0x7E).contains(byte) || byte == UInt8(ascii: "\"") {
                    valid = false
                    break
                }
            }
            localValid = valid
        } else {
            // dot-atom: atoms of atext joined by single dots.
            let atext = Set("!#$%&'*+-/=?^_`{|}~".utf8)
            localValid = local.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).allSatisfy { atom in
                !atom.isEmpty && atom.allSatisfy { isLetterOrDigit($0) || atext.contains($0) }
            }
        }
        guard localValid else { return false }
        if domain.first == UInt8(ascii: "["), domain.last == UInt8(ascii: "]") {
            // An address literal: an IPv4 address, or `IPv6:` and hexadecimal groups.
            let literal = domain.dropFirst().dropLast()
            return !literal.isEmpty && literal.allSatisfy { isHexDigit($0) || isDigit($0) || ".:".utf8.contains($0) || isLetterOrDigit($0) }
        }
        return isHostname(domain)
    }

    /// Letter-digit-hyphen labels of 1 to 63 bytes, separated by dots, no hyphen at either end.
    private static func isHostname(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.count) && label.first != UInt8(ascii: "-") && label.last != UInt8(ascii: "-")
                && label.allSatisfy { isLetterOrDigit($0) || $0 == UInt8(ascii: "-") }
        }
    }

    // MARK: RFC 3986

    private static func isURI(_ bytes: [UInt8]) -> Bool {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, isLetter(bytes[0]),
              bytes[1..<colon].allSatisfy({ isLetterOrDigit($0) || "+-.".utf8.contains($0) })
        else { return false }
        // unreserved, gen-delims, sub-delims and `%` (each followed by two hexadecimal digits).
        let allowed = Set("-._~:/?#[]@!$&'()*+,;=".utf8)
        var rest = bytes[(colon + 1)...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard rest.count >= 2, isHexDigit(rest[rest.startIndex]), isHexDigit(rest[rest.startIndex + 1]) else { return false }
                rest = rest.dropFirst(2)
            } else if !(isLetterOrDigit(byte) || allowed.contains(byte)) {
                return false
            }
        }
        return true
    }

    // MARK: RFC 4648

    private static func isBase64(_ bytes: [UInt8]) -> Bool {
        let padding = bytes.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2 else { return false }
        let data = bytes.dropLast(padding)
        guard data.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") }) else { return false }
        // Padded: a multiple of four in all; unpadded: any length but one more than a multiple of four.
        return padding > 0 ? bytes.count % 4 == 0 : data.count % 4 != 1
    }

    // MARK: Bytes

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    private static func isLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) }
    private static func isLetterOrDigit(_ byte: UInt8) -> Bool { isLetter(byte) || isDigit(byte) }
    private static func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20) }

    /// The number of `digits` decimal digits at the start of `bytes`, consumed.
    private static func number(_ bytes: inout ArraySlice<UInt8>, digits: Int) -> Int? {
        guard bytes.count >= digits, bytes.prefix(digits).allSatisfy(isDigit) else { return nil }
        let value = bytes.prefix(digits).reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        bytes = bytes.dropFirst(digits)
        return value
    }

    /// Whether `bytes` starts with `character`, consumed if so.
    private static func take(_ bytes: inout ArraySlice<UInt8>, _ character: Unicode.Scalar) -> Bool {
        guard bytes.first == UInt8(ascii: character) else { return false }
        bytes = bytes.dropFirst()
        return true
    }
}
