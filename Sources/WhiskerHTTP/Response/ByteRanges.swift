package import HTTPTypes
import Synchronization

/// One range of a `Range: bytes=…` request header (RFC 9110 §14.1.2), before the representation's
/// length is known.
enum ByteRangeSpec: Equatable, Sendable {
    /// `first-last`: bytes `first` through `last`, inclusive.
    case closed(first: Int64, last: Int64)
    /// `first-`: from `first` to the end.
    case from(first: Int64)
    /// `-count`: the last `count` bytes.
    case suffix(count: Int64)

    /// The header value's ranges, or `nil` when it is not a well-formed `bytes` range set (a
    /// server ignores such a header and answers the whole representation).
    static func parse(_ value: some StringProtocol) -> [ByteRangeSpec]? {
        let value = value.trimmingOWS()
        guard value.count > 6, value.prefix(6).lowercased() == "bytes=" else { return nil }
        var specs: [ByteRangeSpec] = []
        for element in value.dropFirst(6).split(separator: ",", omittingEmptySubsequences: false) {
            let element = element.trimmingOWS()
            // RFC 9110 §5.6.1: a list may have empty elements; a recipient ignores them.
            if element.isEmpty { continue }
            guard let dash = element.firstIndex(of: "-") else { return nil }
            let firstText = element[..<dash], lastText = element[element.index(after: dash)...]
            if firstText.isEmpty {
                guard let count = digits(lastText) else { return nil }
                specs.append(.suffix(count: count))
            } else {
                guard let first = digits(firstText) else { return nil }
                if lastText.isEmpty {
                    specs.append(.from(first: first))
                } else {
                    guard let last = digits(lastText), last >= first else { return nil }
                    specs.append(.closed(first: first, last: last))
                }
            }
        }
        return specs.isEmpty ? nil : specs
    }

    /// `1*DIGIT` as a non-negative number; `nil` for anything else (signs, spaces, overflow).
    private static func digits(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy(\.isDigit) else { return nil }
        return Int64(text)
    }

    /// The bytes this range selects of a representation of `length` bytes, clamped to its end, or
    /// `nil` when it selects none (unsatisfiable: it starts past the end, or asks for 0 bytes).
    func resolve(length: Int64) -> ClosedRange<Int64>? {
        switch self {
        case .closed(let first, let last):
            guard first < length else { return nil }
            return first...min(last, length - 1)
        case .from(let first):
            guard first < length else { return nil }
            return first...(length - 1)
        case .suffix(let count):
            guard count > 0, length > 0 else { return nil }
            return max(0, length - count)...(length - 1)
        }
    }
}

/// How a response answers a request's `Range` header (RFC 9110 §14), decided once the handler's
/// response is known.
package enum RangeAnswer: Equatable, Sendable {
    /// The response goes out as it is; with `advertises`, it gains `Accept-Ranges: bytes`.
    case whole(advertises: Bool)
    /// 206 with these bytes of the representation.
    case partial(ClosedRange<Int64>, of: Int64)
    /// 416: the one range asked for selects no byte of a representation this long.
    case unsatisfiable(length: Int64)

    /// The answer for `response` (whose body is `length` bytes, if known) to `request`. Ranges
    /// apply to a 200 to GET (and to HEAD, whose head mirrors GET's) with a known length and no
    /// `Content-Encoding`, unless the handler answered ranges itself (`Content-Range`) or said
    /// `Accept-Ranges: none`. One range is served; several, or a malformed header, get the whole
    /// representation (RFC 9110 allows ignoring `Range`; browsers and media players ask for one).
    /// An `If-Range` that does not match the response's `ETag` (strongly) or `Last-Modified`
    /// (exactly) also gets the whole representation.
    /// - Parameter codedContent: Whether ranges also apply to a coded representation (a file's
    ///   precompressed sibling, whose ranges are of the bytes sent; not a response that a step
    ///   compresses on the way out).
    package static func decide(_ request: HTTPRequest, _ response: HTTPResponse, length: Int64?, asksRange: Bool = true, codedContent: Bool = false) -> RangeAnswer {
        guard request.method == .get || request.method == .head else { return .whole(advertises: false) }
        return decide(request, response, status: response.status, length: length, asksRange: asksRange, codedContent: codedContent)
    }

    /// ``decide(_:_:length:asksRange:codedContent:)`` for a GET or a HEAD, whose response's status
    /// the caller read already.
    package static func decide(
        _ request: HTTPRequest, _ response: HTTPResponse, status: HTTPResponse.Status, length: Int64?, asksRange: Bool = true, codedContent: Bool = false
    ) -> RangeAnswer {
        let fields = response.headerFields
        guard status == .ok, let length,
              codedContent || fields.firstValue(.contentEncoding) == nil, fields.firstValue(.contentRange) == nil,
              fields.firstValue(.acceptRanges) == nil || fields[.acceptRanges]?.lowercased() != "none"
        else { return .whole(advertises: false) }
        guard asksRange else { return .whole(advertises: true) }
        let ranges = request.headerFields[values: .range]
        guard ranges.count == 1, let specs = ByteRangeSpec.parse(ranges[0]), specs.count == 1,
              ifRangeMatches(request.headerFields[.ifRange], response: fields)
        else { return .whole(advertises: true) }
        guard let range = specs[0].resolve(length: length) else { return .unsatisfiable(length: length) }
        return .partial(range, of: length)
    }

    /// `If-Range` absent, or naming this representation: a strong entity tag equal to `ETag`, or
    /// a date equal to `Last-Modified`.
    private static func ifRangeMatches(_ validator: String?, response fields: HTTPFields) -> Bool {
        guard let validator = validator?.trimmingOWS() else { return true }
        if validator.hasPrefix("\"") || validator.hasPrefix("W/") {
            guard !validator.hasPrefix("W/"), let etag = fields[.eTag]?.trimmingOWS(), !etag.hasPrefix("W/") else { return false }
            return etag == validator
        }
        return fields[.lastModified]?.trimmingOWS() == validator
    }
}

extension Response {
    /// This response as it answers `request`'s `Range` header: unchanged, with `Accept-Ranges`,
    /// as a 206 of the selected bytes (a streamed body is cut as it flows, never collected), or as
    /// a 416.
    /// - Parameter asksRange: Whether the request has a `Range` field (a plain request only gets
    ///   `Accept-Ranges`).
    func answeringRange(of request: HTTPRequest, asksRange: Bool = true) -> Response {
        var response = self
        response.answerRange(of: request, asksRange: asksRange)
        return response
    }

    /// Makes this response answer `request`'s `Range` header, in place (see
    /// ``answeringRange(of:asksRange:)``): the fields of the usual answer (the whole body with
    /// `Accept-Ranges`) are added without copying the response's fields first.
    package mutating func answerRange(of request: HTTPRequest, asksRange: Bool = true) {
        guard request.method == .get || request.method == .head else { return }
        answerRange(of: request, status: head.status, asksRange: asksRange)
    }

    /// ``answerRange(of:asksRange:)`` for a GET or a HEAD, whose response's status the caller read
    /// already.
    package mutating func answerRange(of request: HTTPRequest, status: HTTPResponse.Status, asksRange: Bool) {
        let length: Int64? = switch body.storage {
        case .empty, .switchingProtocols: 0
        case .bytes(let bytes): Int64(bytes.count)
        case .stream(let length, _): length ?? head.headerFields[.contentLength].flatMap { Int64($0) }
        }
        switch RangeAnswer.decide(request, head, status: status, length: length, asksRange: asksRange) {
        case .whole(let advertises):
            guard advertises, head.headerFields.firstValue(.acceptRanges) == nil else { return }
            head.headerFields.append(HTTPField(name: .acceptRanges, value: "bytes"))
        case .unsatisfiable(let length):
            self = Response(
                status: .rangeNotSatisfiable,
                headerFields: [.contentRange: "bytes */\(length)", .acceptRanges: "bytes", .contentType: "text/plain; charset=utf-8"],
                body: .init(string: "range not satisfiable: the representation has \(length) bytes\n"))
        case .partial(let range, let length):
            head.status = .partialContent
            head.headerFields[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(length)"
            head.headerFields[.acceptRanges] = "bytes"
            head.headerFields[.contentLength] = nil
            switch body.storage {
            case .empty, .switchingProtocols:
                break
            case .bytes(let bytes):
                let start = bytes.startIndex + Int(range.lowerBound)
                body = ResponseBody(storage: .bytes(bytes[start...(bytes.startIndex + Int(range.upperBound))]))
            case .stream(_, let write):
                body = ResponseBody(storage: .stream(length: range.upperBound - range.lowerBound + 1) { writer in
                    try await write(ResponseBodyWriter(sink: RangeSink(writer.sink, range: range)))
                })
            }
        }
    }
}

/// Passes on only the bytes of a streamed body that fall in `range`; the rest are dropped, and
/// once the range is written, the body's remaining writes return at once.
private final class RangeSink: ResponseBodySink {
    private let next: any ResponseBodySink
    private let range: ClosedRange<Int64>
    /// Where in the whole body the next chunk starts.
    private let position = Mutex<Int64>(0)

    init(_ next: any ResponseBodySink, range: ClosedRange<Int64>) {
        self.next = next
        self.range = range
    }

    func writeBodyChunk(_ bytes: ArraySlice<UInt8>) async throws {
        let start = position.withLock { position in
            defer { position += Int64(bytes.count) }
            return position
        }
        let end = start + Int64(bytes.count)  // exclusive
        let from = max(start, range.lowerBound), to = min(end, range.upperBound + 1)
        guard from < to else { return }
        let base = bytes.startIndex
        try await next.writeBodyChunk(bytes[(base + Int(from - start))..<(base + Int(to - start))])
    }
}
