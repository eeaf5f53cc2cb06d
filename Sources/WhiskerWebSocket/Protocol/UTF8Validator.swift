/// Validates UTF-8 (RFC 3629) a piece at a time, so that a text message split across frames
/// (or across reads) is checked as its bytes arrive and fails on the first bad byte, not when
/// the whole message is in (RFC 6455 8.1: "fail the WebSocket connection" as soon as invalid).
///
/// Rejects overlong forms, surrogates (U+D800-DFFF) and code points past U+10FFFF, as the table
/// of RFC 3629 section 4 does. The state between pieces is the count of continuation bytes still
/// due and the range the next one must fall in.
struct UTF8Validator: Equatable {
    private var remaining = 0
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// True when the bytes so far end on a character boundary (a message may end here).
    var isComplete: Bool { remaining == 0 }

    /// Checks the next piece; false at the first byte that cannot be UTF-8 (the validator is then
    /// of no further use).
    mutating func validate(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if remaining == 0 {
                // ASCII runs are the common case: skip them without the table.
                if byte < 0x80 { index += 1; continue }
                switch byte {
                case 0xC2...0xDF: remaining = 1; lower = 0x80; upper = 0xBF
                case 0xE0: remaining = 2; lower = 0xA0; upper = 0xBF
                case 0xE1...0xEC, 0xEE...0xEF: remaining = 2; lower = 0x80; upper = 0xBF
                case 0xED: remaining = 2; lower = 0x80; upper = 0x9F
                case 0xF0: remaining = 3; lower = 0x90; upper = 0xBF
                case 0xF1...0xF3: remaining = 3; lower = 0x80; upper = 0xBF
                case 0xF4: remaining = 3; lower = 0x80; upper = 0x8F
                default: return false
                }
            } else {
                guard byte >= lower && byte <= upper else { return false }
                remaining -= 1
                lower = 0x80
                upper = 0xBF
            }
            index += 1
        }
        return true
    }

    /// Checks the next piece (an array).
    mutating func validate(_ bytes: some Collection<UInt8>) -> Bool {
        if let result = bytes.withContiguousStorageIfAvailable({ validate($0) }) { return result }
        return Array(bytes).withUnsafeBufferPointer { validate($0) }
    }

    /// Whether `bytes` are one whole UTF-8 string.
    static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        var validator = UTF8Validator()
        return validator.validate(bytes) && validator.isComplete
    }
}
