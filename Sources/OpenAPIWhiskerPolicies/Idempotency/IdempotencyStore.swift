public import HTTPTypes

/// Where the records of idempotency keys live: by default in the server's memory
/// (``InMemoryIdempotencyStore``), or in a store that instances behind a load balancer share
/// (`RedisStore`, with the package's `Redis` trait), so that a retry reaching another instance is
/// still recognised.
///
/// A record is a key's state: claimed by a request still running (with the request's
/// fingerprint), or completed (with the fingerprint and the response to replay). The three
/// operations are each atomic across everyone who shares the store:
///
/// - ``claim(_:fingerprint:lease:)``: the first request with a key claims it, for `lease` (should
///   its server die, the key is free again then); a later one is told the record;
/// - ``complete(_:fingerprint:response:keepFor:)``: the response replaces the claim, kept for
///   `keepFor`;
/// - ``release(_:fingerprint:)``: the claim is dropped (the request failed: a retry runs again).
///
/// A store that cannot answer throws; ``IdempotencyKeys/whenStoreFails`` says what the request gets.
public protocol IdempotencyStore: AnyObject, Sendable {
    /// Claims `key` for a request whose fingerprint is `fingerprint`, unless it has a record.
    /// - Returns: `nil` when this request claimed the key (it runs); else the key's record.
    func claim(_ key: String, fingerprint: String, lease: Duration) async throws -> IdempotencyRecord?
    /// Stores `response` as `key`'s record, in place of the claim made with `fingerprint`.
    func complete(_ key: String, fingerprint: String, response: IdempotentResponse, keepFor: Duration) async throws
    /// Drops the claim made with `fingerprint` on `key`, if it is still there.
    func release(_ key: String, fingerprint: String) async throws
}

/// What an ``IdempotencyStore`` holds for a key.
public enum IdempotencyRecord: Sendable, Equatable {
    /// A request with this fingerprint claimed the key and has not answered yet.
    case inFlight(fingerprint: String)
    /// A request with this fingerprint was answered with this response.
    case completed(fingerprint: String, response: IdempotentResponse)

    /// The fingerprint of the request that claimed the key.
    public var fingerprint: String {
        switch self {
        case .inFlight(let fingerprint), .completed(let fingerprint, _): fingerprint
        }
    }
}

/// A response kept for an idempotency key: its status, its fields and its body.
public struct IdempotentResponse: Sendable, Equatable {
    /// The status the first request was answered with.
    public var status: HTTPResponse.Status
    /// Its fields, as the handler (and the middlewares after the idempotency one) set them.
    public var headerFields: HTTPFields
    /// Its body, whole.
    public var body: [UInt8]

    /// A response to keep.
    public init(status: HTTPResponse.Status, headerFields: HTTPFields, body: [UInt8]) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }

    /// The response as bytes, for a store that keeps bytes: the status code, the fields as
    /// `name: value` lines, an empty line, then the body (a field value never holds a line break).
    public func encoded() -> [UInt8] {
        var bytes = Array("\(status.code)\n".utf8)
        for field in headerFields { bytes += Array("\(field.name.rawName): \(field.value)\n".utf8) }
        bytes.append(UInt8(ascii: "\n"))
        return bytes + body
    }

    /// The response ``encoded()`` made, or `nil` for bytes it did not make.
    public init?<Bytes: Collection<UInt8>>(encoded: Bytes) {
        var lines: [String] = []
        var rest = encoded[...]
        while true {
            guard let end = rest.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            let line = String(decoding: rest[..<end], as: UTF8.self)
            rest = rest[rest.index(after: end)...]
            if line.isEmpty { break }
            lines.append(line)
        }
        guard let code = lines.first.flatMap({ Int($0) }), (100...599).contains(code) else { return nil }
        var fields = HTTPFields()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { return nil }
            let value = line.index(colon, offsetBy: 2, limitedBy: line.endIndex) ?? line.endIndex
            fields.append(HTTPField(name: name, value: String(line[value...])))
        }
        self.init(status: HTTPResponse.Status(code: code), headerFields: fields, body: Array(rest))
    }
}
