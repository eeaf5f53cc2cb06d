import HTTPTypes
import OpenAPIRuntime
import Synchronization

/// One HTTP/1.1 request and its response over a ``ClientPipe`` of its own: the request body is
/// sent (by `Content-Length`, or chunked when its length is unknown) while the response is read,
/// and the response body is an `HTTPBody` that reads from the pipe as it is iterated. The pipe
/// closes when the body has been read to its end, or when nothing holds it any more.
enum HTTP1ClientExchange {
    static func send(_ request: HTTPRequest, body: HTTPBody?, over pipe: any ClientPipe) async throws -> (HTTPResponse, HTTPBody?) {
        var fields = request.headerFields
        var bodyLength: Int64?
        if let body {
            fields[.transferEncoding] = nil
            if case .known(let length) = body.length {
                bodyLength = length
            } else if let declared = fields[.contentLength].flatMap({ Int64($0) }) {
                bodyLength = declared
            }
            if let bodyLength { fields[.contentLength] = String(bodyLength) } else { fields[.transferEncoding] = "chunked" }
        }
        var head = "\(request.method.rawValue) \(request.path ?? "/") HTTP/1.1\r\n"
        head += "Host: \(request.authority ?? "localhost")\r\n"
        for field in fields { head += "\(field.name.rawName): \(field.value)\r\n" }
        head += "\r\n"

        let reader = HTTP1ResponseReader(pipe: pipe)
        let headBytes = Array(head.utf8)
        // The body goes out while the response is read: a server may answer before it has read
        // all of it (a 413), and a streamed one is read by the handler as it arrives.
        let upload = Task {
            // A send that fails is the server closing the connection: what it answered first
            // (a 413, say) is still read. A body that fails cannot be finished: the server sees
            // the client leave.
            guard (try? await pipe.send(headBytes)) != nil, let body else { return }
            let chunked = bodyLength == nil
            do {
                for try await chunk in body where !chunk.isEmpty {
                    let framed = chunked ? Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + [13, 10] : Array(chunk)
                    guard (try? await pipe.send(framed)) != nil else { return }
                }
            } catch {
                pipe.disconnect()
                throw error
            }
            if chunked { _ = try? await pipe.send(Array("0\r\n\r\n".utf8)) }
        }
        reader.upload = upload
        do {
            let (response, framing) = try await reader.readHead(isHEAD: request.method == .head)
            guard let framing else {
                reader.finish()
                return (response, nil)
            }
            let length: HTTPBody.Length = if case .length(let count) = framing { .known(Int64(count)) } else { .unknown }
            return (response, HTTPBody(HTTP1ResponseBody(reader: reader), length: length, iterationBehavior: .single))
        } catch {
            reader.finish()
            // The upload's own failure says more than the closed connection it caused.
            if case .failure(let uploadError) = await upload.result { throw uploadError }
            throw error
        }
    }
}

/// How a response body is delimited.
enum HTTP1BodyFraming {
    case length(Int)
    case chunked
    case untilClose
}

/// Reads one response from a pipe: its head, then its body as it arrives. One task reads at a
/// time (`HTTPBody` iterates once); its `deinit` closes the pipe when the body is dropped unread.
final class HTTP1ResponseReader: @unchecked Sendable {
    // `@unchecked Sendable`: its buffer and framing are touched by the one task that reads the
    // response at a time (the head's reader, then the body's single iteration).
    private let pipe: any ClientPipe
    private var buffer: [UInt8] = []
    private var framing: HTTP1BodyFraming = .length(0)
    /// Body bytes left: of the `Content-Length`, or of the current chunk.
    private var remaining = 0
    private var isDone = false
    var upload: Task<Void, any Error>?

    init(pipe: any ClientPipe) { self.pipe = pipe }

    deinit { finish() }

    /// The response is complete (or abandoned): the connection closes, an unfinished upload stops.
    func finish() {
        isDone = true
        upload?.cancel()
        pipe.disconnect()
    }

    /// Reads the final response's head (interim 1xx responses are skipped), and how its body is
    /// delimited (`nil`: it has none).
    func readHead(isHEAD: Bool) async throws -> (HTTPResponse, HTTP1BodyFraming?) {
        while true {
            let statusLine = try await readLine()
            let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]), (100...999).contains(code) else {
                throw WhiskerTestTransportError("malformed status line \"\(statusLine)\"")
            }
            var fields = HTTPFields()
            while true {
                let line = try await readLine()
                if line.isEmpty { break }
                guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else {
                    throw WhiskerTestTransportError("malformed header line \"\(line)\"")
                }
                fields.append(HTTPField(name: name, value: String(line[line.index(after: colon)...]).trimmingSpaces()))
            }
            if (100...199).contains(code) && code != 101 { continue }
            let response = HTTPResponse(status: .init(code: code, reasonPhrase: parts.count > 2 ? String(parts[2]) : ""), headerFields: fields)
            if isHEAD || code == 204 || code == 304 { return (response, nil) }
            if fields[.transferEncoding]?.lowercased().contains("chunked") == true {
                framing = .chunked
                remaining = 0
            } else if let value = fields[.contentLength] {
                guard let length = Int(value), length >= 0 else { throw WhiskerTestTransportError("bad Content-Length \"\(value)\"") }
                framing = .length(length)
                remaining = length
            } else {
                framing = .untilClose
            }
            return (response, framing)
        }
    }

    /// The next piece of the body, as much as has arrived (without waiting for more); `nil` at its end.
    func nextBodyChunk() async throws -> ArraySlice<UInt8>? {
        guard !isDone else { return nil }
        do {
            switch framing {
            case .length:
                guard remaining > 0 else { return end() }
                if buffer.isEmpty { guard try await fill() else { throw WhiskerTestTransportError("connection closed with \(remaining) body bytes missing") } }
                return take(min(remaining, buffer.count))
            case .untilClose:
                if buffer.isEmpty, !(try await fill()) { return end() }
                let chunk = buffer[...]
                buffer = []
                return chunk
            case .chunked:
                if remaining == 0 {
                    let sizeLine = try await readLine()
                    guard let size = Int(sizeLine.split(separator: ";")[0].trimmingSpaces(), radix: 16), size >= 0 else {
                        throw WhiskerTestTransportError("bad chunk size \"\(sizeLine)\"")
                    }
                    if size == 0 {
                        while try await !readLine().isEmpty {}
                        return end()
                    }
                    remaining = size
                }
                if buffer.isEmpty { guard try await fill() else { throw WhiskerTestTransportError("connection closed in the middle of a chunk") } }
                let chunk = take(min(remaining, buffer.count))
                if remaining == 0 {
                    guard try await readLine().isEmpty else { throw WhiskerTestTransportError("chunk not followed by CRLF") }
                }
                return chunk
            }
        } catch {
            finish()
            throw error
        }
    }

    private func end() -> ArraySlice<UInt8>? {
        finish()
        return nil
    }

    private func take(_ count: Int) -> ArraySlice<UInt8> {
        let chunk = buffer[..<count]
        buffer.removeFirst(count)
        remaining -= count
        return chunk
    }

    /// Receives more; false at the end of the stream.
    private func fill() async throws -> Bool {
        let bytes = try await pipe.receive()
        buffer += bytes
        return !bytes.isEmpty
    }

    private func readLine() async throws -> String {
        while true {
            if let lf = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<lf], as: UTF8.self)
                buffer.removeSubrange(...lf)
                return line.hasSuffix("\r") ? String(line.dropLast()) : line
            }
            guard try await fill() else { throw WhiskerTestTransportError("connection closed before the response was complete") }
        }
    }
}

/// A response body as the pieces ``HTTP1ResponseReader`` reads.
struct HTTP1ResponseBody: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let reader: HTTP1ResponseReader

    func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

    struct Iterator: AsyncIteratorProtocol {
        let reader: HTTP1ResponseReader
        mutating func next() async throws -> ArraySlice<UInt8>? { try await reader.nextBodyChunk() }
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
