// Range requests: `ByteRangeSpec.parse` on a `Range` value, `resolve(length:)`, and
// `RangeAnswer.decide` with `Response.answeringRange`, as a GET or HEAD would be answered.
//
// Input: text lines. Line 1 is the representation's length in decimal (any Int64, negative too:
// a handler's own Content-Length can say anything; unparsable is 0); line 2 the `Range` value;
// further `Name: value` lines go to the request (Range, If-Range, and `:method`) or the
// response (ETag, Last-Modified, Accept-Ranges, Content-Encoding, Content-Range, `:status`).
//
// Checked: the parse equals a byte-wise reference parse; what it yields prints back to a value
// that parses to the same; a resolved range lies inside the representation and is what RFC 9110
// §14.1.2 says; a 206 carries exactly the selected bytes with a matching Content-Range.

import FuzzSupport
import HTTPTypes
@testable import WhiskerCore
@testable import WhiskerHTTP

// MARK: Reference

private func isOWS(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

private func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    var slice = bytes
    while let first = slice.first, isOWS(first) { slice = slice.dropFirst() }
    while let last = slice.last, isOWS(last) { slice = slice.dropLast() }
    return slice
}

private func number(_ bytes: ArraySlice<UInt8>) -> Int64? {
    guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
    var value: Int64 = 0
    for byte in bytes {
        let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
        let (plus, overflow2) = times.addingReportingOverflow(Int64(byte - 0x30))
        if overflow1 || overflow2 { return nil }
        value = plus
    }
    return value
}

private func refParse(_ value: [UInt8]) -> [ByteRangeSpec]? {
    let value = trimmed(value[...])
    let unit = Array("bytes=".utf8)
    guard value.count > unit.count, zip(value.prefix(6), unit).allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0) == $1 }) else { return nil }
    var specs: [ByteRangeSpec] = []
    for element in value.dropFirst(6).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
        let element = trimmed(element)
        if element.isEmpty { continue }
        guard let dash = element.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        let first = element[..<dash], last = element[(dash + 1)...]
        if first.isEmpty {
            guard let count = number(last) else { return nil }
            specs.append(.suffix(count: count))
        } else {
            guard let start = number(first) else { return nil }
            if last.isEmpty {
                specs.append(.from(first: start))
            } else {
                guard let end = number(last), end >= start else { return nil }
                specs.append(.closed(first: start, last: end))
            }
        }
    }
    return specs.isEmpty ? nil : specs
}

private func printed(_ specs: [ByteRangeSpec]) -> String {
    "bytes=" + specs.map { spec in
        switch spec {
        case .closed(let first, let last): "\(first)-\(last)"
        case .from(let first): "\(first)-"
        case .suffix(let count): "-\(count)"
        }
    }.joined(separator: ",")
}

/// RFC 9110 §14.1.2, written out.
private func expected(_ spec: ByteRangeSpec, length: Int64) -> ClosedRange<Int64>? {
    guard length > 0 else { return nil }
    switch spec {
    case .closed(let first, let last): return first < length ? first...Swift.min(last, length - 1) : nil
    case .from(let first): return first < length ? first...(length - 1) : nil
    case .suffix(let count): return count == 0 ? nil : (count >= length ? 0 : length - count)...(length - 1)
    }
}

// MARK: Target

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzByteRanges(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let lines = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 16, omittingEmptySubsequences: false)
    let lengthText = String(decoding: lines.first ?? [], as: UTF8.self)
    let length = Int64(lengthText.trimmingOWS()) ?? 0
    let rangeBytes = lines.count > 1 ? Array(lines[1]) : []
    let rangeValue = String(decoding: rangeBytes, as: UTF8.self)

    // Parsing, against the reference and against its own printing.
    let specs = ByteRangeSpec.parse(rangeValue)
    // The reference reads bytes; a value that is not UTF-8 reaches the parser with U+FFFD.
    let reference = refParse(Array(rangeValue.utf8))
    guard specs == reference else {
        fuzzFailure("parse(\(rangeValue.debugDescription)) = \(String(describing: specs)), the reference says \(String(describing: reference))")
    }
    if let specs {
        guard ByteRangeSpec.parse(printed(specs)) == specs else { fuzzFailure("\(printed(specs)) does not parse back") }
        for spec in specs {
            switch spec {
            case .closed(let first, let last): guard first >= 0, last >= first else { fuzzFailure("bad \(spec)") }
            case .from(let first): guard first >= 0 else { fuzzFailure("bad \(spec)") }
            case .suffix(let count): guard count >= 0 else { fuzzFailure("bad \(spec)") }
            }
            let resolved = spec.resolve(length: length)
            if length >= 0 || resolved != nil {
                guard resolved == expected(spec, length: length) else {
                    fuzzFailure("\(spec) of \(length) bytes resolves to \(String(describing: resolved)), not \(String(describing: expected(spec, length: length)))")
                }
            }
            if let resolved, resolved.lowerBound < 0 || resolved.upperBound >= length { fuzzFailure("\(resolved) outside \(length) bytes") }
        }
    }

    // The answer to a request, with the fields from the remaining lines.
    var requestFields: HTTPFields = [:]
    var responseFields: HTTPFields = [:]
    var method = HTTPRequest.Method.get
    var status = HTTPResponse.Status.ok
    if lines.count > 1 { requestFields.append(HTTPField(name: .range, value: rangeValue)) }
    for line in lines.dropFirst(2) {
        let text = String(decoding: line, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":"), colon > text.startIndex || text.hasPrefix(":") else { continue }
        let split = text.hasPrefix(":") ? text.dropFirst().firstIndex(of: ":") ?? text.endIndex : colon
        let name = text[..<split].lowercased()
        let value = String((split < text.endIndex ? text[text.index(after: split)...] : "").trimmingOWS())
        switch name {
        case ":method": method = HTTPRequest.Method(value) ?? .get
        case ":status": status = HTTPResponse.Status(code: Int(value).map { Swift.max(100, Swift.min(999, $0)) } ?? 200)
        case "range": requestFields.append(HTTPField(name: .range, value: value))
        case "if-range": requestFields.append(HTTPField(name: .ifRange, value: value))
        default:
            if let fieldName = HTTPField.Name(name) { responseFields.append(HTTPField(name: fieldName, value: value)) }
        }
    }
    let request = HTTPRequest(method: method, scheme: "http", authority: "x", path: "/clip", headerFields: requestFields)
    let head = HTTPResponse(status: status, headerFields: responseFields)
    let answer = RangeAnswer.decide(request, head, length: length)
    switch answer {
    case .partial(let range, let of):
        guard of == length, range.lowerBound >= 0, range.upperBound < length else { fuzzFailure("206 of \(range) for \(length) bytes") }
    case .unsatisfiable(let of):
        guard of == length else { fuzzFailure("416 for another length") }
    case .whole:
        break
    }
    // A body in memory as long as the length says (when small enough to make one).
    if length >= 0 && length <= 4096 {
        let body = (0..<Int(length)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let response = Response(head: head, body: ResponseBody(bytes: body)).answeringRange(of: request)
        let sent: ArraySlice<UInt8> = if case .bytes(let sent) = response.body.storage { sent } else { [] }
        switch answer {
        case .partial(let range, _):
            guard response.head.status == .partialContent,
                  sent.elementsEqual(body[Int(range.lowerBound)...Int(range.upperBound)]),
                  response.head.headerFields[.contentRange] == "bytes \(range.lowerBound)-\(range.upperBound)/\(length)"
            else { fuzzFailure("206 for \(range) sends \(sent.count) bytes, Content-Range \(response.head.headerFields[.contentRange] ?? "-")") }
        case .unsatisfiable:
            guard response.head.status == .rangeNotSatisfiable, response.head.headerFields[.contentRange] == "bytes */\(length)" else {
                fuzzFailure("416 malformed")
            }
        case .whole:
            guard response.head.status == status, sent.elementsEqual(body) else { fuzzFailure("the whole response changed") }
        }
    }
    return 0
}
