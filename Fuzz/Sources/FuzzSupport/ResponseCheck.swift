/// Checks bytes the server would write as one HTTP/1.1 response: a status line and fields with no
/// CR or LF but as CRLF line ends, a blank line, and exactly `Content-Length` bytes of body. A
/// break here is response splitting (a client would read a second response, or a field the server
/// did not mean to send).
public func checkHTTP1Response(_ bytes: [UInt8]) {
    guard let end = bytes.indices.dropLast(3).first(where: {
        bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
    }) else { fuzzFailure("response without the blank line") }
    let head = bytes[..<(end + 2)]
    var lines: [ArraySlice<UInt8>] = []
    var start = head.startIndex
    var index = head.startIndex
    while index < head.endIndex {
        let byte = head[index]
        if byte == 13 {
            guard index + 1 < head.endIndex, head[index + 1] == 10 else { fuzzFailure("bare CR in a response head") }
            lines.append(head[start..<index])
            index += 2
            start = index
            continue
        }
        guard byte != 10 else { fuzzFailure("bare LF in a response head") }
        guard byte == 9 || (byte >= 0x20 && byte != 0x7F) else { fuzzFailure("control byte \(byte) in a response head") }
        index += 1
    }
    guard let status = lines.first, status.starts(with: Array("HTTP/1.1 ".utf8)), status.count >= 12 else {
        fuzzFailure("malformed status line")
    }
    var contentLength: Int?
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { fuzzFailure("field line without a name") }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        guard name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }) else { fuzzFailure("bad field name \(name)") }
        if name == "content-length" {
            guard contentLength == nil else { fuzzFailure("two Content-Length fields") }
            contentLength = Int(String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: " "))
        }
    }
    let bodyCount = bytes.count - (end + 4)
    if let contentLength, contentLength != bodyCount {
        fuzzFailure("Content-Length \(contentLength) but \(bodyCount) body bytes")
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var slice = self[...]
        while slice.first == set { slice = slice.dropFirst() }
        while slice.last == set { slice = slice.dropLast() }
        return String(slice)
    }
}
