@testable import OpenAPIWhiskerDocument
import Testing

/// The items of a sequential body (OpenAPI 3.2's `itemSchema`), read from chunks cut anywhere:
/// server-sent events as the object of their fields, JSON lines, JSON text sequence records.
@Suite struct SequentialItemsTests {
    /// The items of `text` read in chunks of `size` bytes, each as JSON text (or a mark).
    func items(_ type: SequentialMediaType, _ text: String, chunk size: Int, limit: Int = 1 << 20) -> [String] {
        var reader = SequentialItemReader(type: type, limit: limit)
        var found: [String] = []
        func add(_ item: SequentialItemReader.Item) {
            switch item {
            case .value(let value): found.append(value.jsonText)
            case .notJSON: found.append("not JSON")
            case .tooLarge: found.append("too large")
            }
        }
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            reader.read(bytes[start..<min(start + size, bytes.count)], add)
            start += size
        }
        reader.finish(add)
        return found
    }

    @Test(arguments: [1, 2, 3, 1000])
    func events_TheirFieldsAsTheClientSeesThem(chunk: Int) {
        let stream = "\u{FEFF}: a comment, then an event\r\nid: 1\r\ndata: 😺\r\n\r\n" // CRLF, a byte-order mark
            + "data:first\rdata: second\r\revent: adopt\ndata\nretry: 3000\n\n" // CR alone; a field without colon
            + "id: 7\n\n" // no data: not an event, but the ID stays
            + ": keep-alive\n\n" // a comment alone: nothing
            + "data: 🙀\nretry: soon\n\n" // the ID of the last event still; an invalid retry left out
            + "data: never finished\n" // the end of the stream discards it
        #expect(items(.eventStream, stream, chunk: chunk) == [
            #"{"data":"😺","event":"message","id":"1"}"#,
            #"{"data":"first\nsecond","event":"message","id":"1"}"#,
            #"{"data":"","event":"adopt","id":"1","retry":3000}"#,
            #"{"data":"🙀","event":"message","id":"7"}"#,
        ])
    }

    @Test(arguments: [1, 5, 1000])
    func jsonLines_EachLineAValue_TheLastWithoutItsNewlineToo(chunk: Int) {
        let body = "{\"cat\":\"😺\"}\n\n[1,2]\r\n{not json}\n  \n\"last\""
        #expect(items(.jsonLines, body, chunk: chunk) == [#"{"cat":"😺"}"#, "[1,2]", "not JSON", #""last""#])
    }

    @Test(arguments: [1, 4, 1000])
    func jsonSequence_EachRecordAfterItsSeparator(chunk: Int) {
        let body = "\u{1E}{\"cat\":1}\n\u{1E}\n\u{1E}[true]\n\u{1E}nope\n\u{1E}2"
        #expect(items(.jsonSequence, body, chunk: chunk) == [#"{"cat":1}"#, "[true]", "not JSON", "2"])
    }

    @Test func anItemPastTheLimit_SkippedNotHeld_TheNextRead() {
        let long = String(repeating: "x", count: 100)
        #expect(items(.jsonLines, "\"\(long)\"\n[1]\n", chunk: 7, limit: 64) == ["too large", "[1]"])
        #expect(items(.eventStream, "data: \(long)\n\ndata: ok\n\n", chunk: 7, limit: 64) == ["too large", #"{"data":"ok","event":"message"}"#])
        #expect(items(.eventStream, "data: \(long.prefix(40))\ndata: \(long.prefix(40))\n\ndata: ok\n\n", chunk: 7, limit: 64)
            == ["too large", #"{"data":"ok","event":"message"}"#], "data lines that together pass the limit")
        #expect(items(.jsonSequence, "\u{1E}\"\(long)\"\n\u{1E}{}\n", chunk: 7, limit: 64) == ["too large", "{}"])
    }

    @Test func mediaTypes_TheSequentialOnes() {
        #expect(SequentialMediaType(essence: "text/event-stream") != nil)
        #expect(SequentialMediaType(essence: "application/jsonl") != nil && SequentialMediaType(essence: "application/x-ndjson") != nil)
        #expect(SequentialMediaType(essence: "application/json-seq") != nil)
        #expect(SequentialMediaType(essence: "application/json") == nil)
    }
}
