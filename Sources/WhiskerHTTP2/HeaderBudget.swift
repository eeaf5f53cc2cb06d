/// How much work a header block that breaks the header list limit may cost, and how many a
/// connection may send (HPACK amplification: a 16 KB HEADERS frame of one-byte references to a
/// 4 KB dynamic-table entry decodes to 65 MB, and nghttp2 validates every byte of every field it
/// hands over, 22 ms of CPU a frame, before the session even sees the field).
///
/// - A block is counted as it is decoded, in HPACK's accounting (name + value + 32 bytes a field,
///   every cookie crumb a field): past ``HTTP2Settings/maxHeaderListSize`` or the field-count
///   limit it is refused and its fields are no longer kept; a request's then gets 431.
/// - Past the limit by more than ``slack`` it is not decoded any further and the connection ends
///   with GOAWAY(ENHANCE_YOUR_CALM), as nginx ends one at its first oversized header list. The
///   work a block costs is so bounded by the limit, whatever it expands to. (Resetting only the
///   stream would leave nghttp2 to inflate the rest of the block to keep the HPACK table in step:
///   for 16,000 references 0.25 ms in a release build, twice a plain 16 KB frame or more.)
/// - Every refused block within the slack (a near miss, answered 431) is counted against
///   ``refusals`` per connection; past that the connection ends the same way.
enum HeaderBudget {
    /// Refused header blocks a connection may send at once, refilled at ``refusalsRefillPerSecond``.
    /// A client whose headers are too large (a cookie grown past the limit) sends them on every
    /// request and gets 431 for each: four tell it as much as forty do, and a browser's page load
    /// reconnects to be told again. An attacker pays a connection for every four blocks.
    static let refusals: Double = 4
    /// One refused block forgiven every ten seconds, so that a long-lived connection with an
    /// occasional oversized request (a huge `Referer`, say) is not ended for it.
    static let refusalsRefillPerSecond: Double = 0.1
    /// How far past the limit a refused block is still decoded, as a fraction of the limit: a
    /// near miss (a big cookie a little over) still gets its readable 431; beyond, the block is
    /// abuse or a client gone wrong, and decoding it would only cost CPU.
    static let slack = 0.25

    /// Whether a refused block of `size` bytes and `fields` regular fields is past the slack.
    static func isPastSlack(size: Int, fields: Int, maxSize: Int, maxFields: Int) -> Bool {
        Double(size) > Double(maxSize) * (1 + slack) || Double(fields) > Double(maxFields) * (1 + slack)
    }

    /// What an abandoned block's log line adds to its reason.
    static func stopNote(_ isRequest: Bool) -> String {
        isRequest ? "; decoding stopped \(Int(slack * 100)) % past the limit" : " (trailers)"
    }
}
