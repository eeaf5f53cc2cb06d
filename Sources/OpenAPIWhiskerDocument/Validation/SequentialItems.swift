/// A sequential media type (OpenAPI 3.2): a body that is a sequence of items, each of which a
/// media type's `itemSchema` describes. Its items are read from the bytes as they pass, chunk by
/// chunk, so that each is checked when it is complete rather than when the stream ends.
enum SequentialMediaType: Sendable {
    /// `text/event-stream`: each event, modeled as OpenAPI 3.2 and the HTML standard say, as an
    /// object of its fields: `data` (its `data:` lines joined by a line feed), `event`
    /// (`message` when the event names none), `id` (the last event ID, which stays until an `id:`
    /// line changes it) and `retry` (an integer, when the event has a valid `retry:` line). An
    /// event without a `data:` line is not dispatched to a client, and not an item; neither are
    /// comments.
    case eventStream
    /// `application/jsonl` (and `application/x-ndjson`): each non-empty line is one JSON value.
    case jsonLines
    /// `application/json-seq` (RFC 7464): each record, after its record separator (0x1E), is one
    /// JSON value, complete at the line feed after its text (or, for a text that is not JSON, at
    /// the next separator).
    case jsonSequence

    init?(essence: String) {
        switch essence {
        case "text/event-stream": self = .eventStream
        case "application/jsonl", "application/x-ndjson", "application/jsonlines": self = .jsonLines
        case "application/json-seq": self = .jsonSequence
        default: return nil
        }
    }

    /// What an item is called in a message: "event 3", "line 3", "record 3".
    var itemName: String {
        switch self {
        case .eventStream: "event"
        case .jsonLines: "line"
        case .jsonSequence: "record"
        }
    }
}

/// Reads the items of a sequential body from its bytes as they come, in chunks cut anywhere
/// (between a CR and its LF, inside a UTF-8 character). An item larger than `limit` bytes is
/// skipped, not held.
struct SequentialItemReader {
    /// One complete item: its value, or why its text is not JSON.
    enum Item {
        case value(JSONValue)
        case notJSON(JSONSyntaxError)
        case tooLarge
    }

    let type: SequentialMediaType
    let limit: Int
    /// The bytes of the line (an event stream's, a JSON Lines body's) or record not yet complete.
    private var pending: [UInt8] = []
    private var pendingTooLarge = false
    /// The last byte was a CR: an LF right after it ends no other line.
    private var afterCR = false
    private var atStart = true
    // Where a JSON text sequence's record is: whether its JSON text is whole at a line feed.
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var hasText = false
    // An event stream's event being read.
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType: [UInt8]?
    private var retry: Int64?
    private var lastEventID: [UInt8] = []
    private var eventTooLarge = false

    init(type: SequentialMediaType, limit: Int) {
        self.type = type
        self.limit = limit
    }

    /// Reads `chunk` and hands each item it completes to `body`, in order.
    mutating func read(_ chunk: some Collection<UInt8>, _ body: (Item) -> Void) {
        for byte in chunk {
            switch type {
            case .jsonSequence:
                if byte == 0x1E {
                    finishRecord(body)
                } else if byte == 0x0A, hasText, depth <= 0, !inString {
                    finishRecord(body)
                } else {
                    track(byte)
                    append(byte)
                }
            case .eventStream, .jsonLines:
                if byte == 0x0A, afterCR {
                    afterCR = false
                    continue
                }
                afterCR = byte == 0x0D
                if byte == 0x0A || byte == 0x0D {
                    finishLine(body)
                } else {
                    append(byte)
                }
            }
        }
    }

    /// Hands on what the end of the body completes: a last JSON line or record without its
    /// terminator. An event stream's unfinished event is discarded, as a client discards it.
    mutating func finish(_ body: (Item) -> Void) {
        switch type {
        case .jsonLines: finishLine(body)
        case .jsonSequence: finishRecord(body)
        case .eventStream: break
        }
    }

    private mutating func append(_ byte: UInt8) {
        // Past the limit the rest is dropped: an event stream's line keeps its field name.
        if pending.count == limit {
            pendingTooLarge = true
        } else {
            pending.append(byte)
        }
    }

    /// Follows a JSON text sequence's record, byte by byte, to tell when its JSON text is whole:
    /// outside a string, every bracket closed.
    private mutating func track(_ byte: UInt8) {
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
            return
        }
        switch byte {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
        case 0x20, 0x09, 0x0D: return
        default: break
        }
        hasText = true
    }

    /// Takes the pending bytes (and whether they were cut short) for a new line or record.
    private mutating func takePending() -> (bytes: [UInt8], tooLarge: Bool) {
        defer {
            pending.removeAll(keepingCapacity: true)
            pendingTooLarge = false
            depth = 0
            inString = false
            escaped = false
            hasText = false
        }
        return (pending, pendingTooLarge)
    }

    private mutating func finishRecord(_ body: (Item) -> Void) {
        let (record, tooLarge) = takePending()
        if tooLarge { return body(.tooLarge) }
        // RFC 7464: a record is its JSON text and an LF; whitespace around it is allowed.
        guard record.contains(where: { !Self.isSpace($0) }) else { return }
        body(Self.parsed(record))
    }

    private mutating func finishLine(_ body: (Item) -> Void) {
        var (line, tooLarge) = takePending()
        switch type {
        case .jsonLines:
            if tooLarge { return body(.tooLarge) }
            guard line.contains(where: { !Self.isSpace($0) }) else { return }
            body(Self.parsed(line))
        case .eventStream:
            if atStart {
                atStart = false
                if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
            }
            if tooLarge { eventTooLarge = true }
            eventLine(line, body)
        case .jsonSequence:
            break
        }
    }

    /// One line of an event stream (HTML, "Interpreting an event stream").
    private mutating func eventLine(_ line: [UInt8], _ body: (Item) -> Void) {
        guard !line.isEmpty else { return dispatch(body) }
        if line.first == UInt8(ascii: ":") { return }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = line[..<(colon ?? line.endIndex)]
        var value = colon.map { line[($0 + 1)...] } ?? []
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        switch String(decoding: name, as: UTF8.self) {
        case "data":
            hasData = true
            if data.count + value.count + 1 > limit {
                eventTooLarge = true
            } else if !eventTooLarge {
                data += value
                data.append(0x0A)
            }
        case "event": eventType = Array(value)
        case "id": if !value.contains(0) { lastEventID = Array(value) }
        case "retry":
            if !value.isEmpty, value.count < 16, value.allSatisfy({ (0x30...0x39).contains($0) }) {
                retry = Int64(String(decoding: value, as: UTF8.self))
            }
        default: break
        }
    }

    /// The end of an event (a blank line): an item if it had data.
    private mutating func dispatch(_ body: (Item) -> Void) {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = nil
            retry = nil
            eventTooLarge = false
        }
        guard hasData else { return }
        if eventTooLarge { return body(.tooLarge) }
        var members: [(key: String, value: JSONValue)] = [
            ("data", .string(String(decoding: data.dropLast(), as: UTF8.self))),
            ("event", .string(eventType.flatMap { $0.isEmpty ? nil : String(decoding: $0, as: UTF8.self) } ?? "message")),
        ]
        if !lastEventID.isEmpty { members.append(("id", .string(String(decoding: lastEventID, as: UTF8.self)))) }
        if let retry { members.append(("retry", .integer(retry))) }
        body(.value(.object(members)))
    }

    private static func parsed(_ bytes: [UInt8]) -> Item {
        do {
            return .value(try JSONReader.read(bytes))
        } catch {
            return .notJSON(error)
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
}

extension SchemaSet {
    /// What `item`, the `number`th of its body (an item called `name`: "event"), does that the
    /// schema at `schema` does not allow: "event 3 /data: must be one of ...". Nothing for an item
    /// too large to be read.
    func problems(of item: SequentialItemReader.Item, number: Int, name: String, against schema: Int) -> [String] {
        switch item {
        case .value(let value):
            var violations: [(pointer: String, detail: String)] = []
            check(value, against: schema, pointer: "", into: &violations)
            return violations.map { "\(name) \(number) \($0.pointer.isEmpty ? "/" : $0.pointer): \($0.detail)" }
        case .notJSON(let error):
            return ["\(name) \(number): \(error)"]
        case .tooLarge:
            return []
        }
    }
}
