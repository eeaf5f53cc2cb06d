package import HTTPTypes

/// Serializes response heads.
package enum ResponseHeadWriter {
    /// The bytes of a response head: status line, the handler's fields (minus the ones the server
    /// owns, ``ServerOwnedFields``), then `Date`, the framing headers and `Connection`, and the
    /// blank line.
    /// - Parameters:
    ///   - response: The status and fields.
    ///   - framing: The framing from ``ResponseFraming/decide(status:isHEAD:bodyLength:isHTTP11:keepAlive:)``.
    ///   - isHTTP11: Whether the request was HTTP/1.1 (an HTTP/1.0 keep-alive is confirmed with `Connection: keep-alive`).
    ///   - dateLine: The `Date: ...\r\n` line.
    package static func head(_ response: HTTPResponse, framing: ResponseFraming, isHTTP11: Bool, dateLine: [UInt8]) -> [UInt8] {
        head(response, status: response.status, framing: framing, isHTTP11: isHTTP11, dateLine: dateLine)
    }

    /// ``head(_:framing:isHTTP11:dateLine:)`` with the response's `status`, which the caller read
    /// already: each read of `HTTPResponse.status` parses the status pseudo-field again.
    package static func head(_ response: HTTPResponse, status: HTTPResponse.Status, framing: ResponseFraming, isHTTP11: Bool, dateLine: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        if status.code == 200 && (status.reasonPhrase.isEmpty || status.reasonPhrase == "OK") {
            bytes.append(contentsOf: Self.okStatusLine)
        } else {
            bytes.append(contentsOf: "HTTP/1.1 \(status.code) \(status.wireReasonPhrase)\r\n".utf8)
        }
        for field in response.headerFields where !ServerOwnedFields.contains(field.name, http2: false) {
            appendUTF8(field.name.rawName, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            bytes.append(UInt8(ascii: " "))
            appendUTF8(field.value, to: &bytes)
            bytes.append(UInt8(ascii: "\r"))
            bytes.append(UInt8(ascii: "\n"))
        }
        bytes.append(contentsOf: dateLine)
        if let length = framing.contentLength {
            appendStatic("Content-Length: ", to: &bytes)
            appendDecimal(length, to: &bytes)
            bytes.append(UInt8(ascii: "\r"))
            bytes.append(UInt8(ascii: "\n"))
        } else if framing.chunked {
            appendStatic("Transfer-Encoding: chunked\r\n", to: &bytes)
        }
        if !framing.keepAlive {
            appendStatic("Connection: close\r\n", to: &bytes)
        } else if !isHTTP11 {
            appendStatic("Connection: keep-alive\r\n", to: &bytes)
        }
        bytes.append(UInt8(ascii: "\r"))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Appends `string`'s UTF-8 as one copy of its contiguous bytes: `append(contentsOf: string.utf8)`
    /// walks the view through its iterator, retaining the string for it (15 retains a request at
    /// four fields, uprobes on the release `cat-service`).
    @inline(__always)
    private static func appendUTF8(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends a literal's bytes as one copy: a `String` literal's `.utf8` is appended through the
    /// view's iterator (168 instructions each, three a response, cachegrind on the release `cat-service`).
    @inline(__always)
    private static func appendStatic(_ literal: StaticString, to bytes: inout [UInt8]) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// The status line of almost every response, made once.
    private static let okStatusLine = Array("HTTP/1.1 200 OK\r\n".utf8)

    /// Appends the decimal digits of a non-negative number without making a `String`.
    private static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = UInt64(max(value, 0))
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            bytes.append(contentsOf: buffer[(20 - count)...])
        }
    }
}
