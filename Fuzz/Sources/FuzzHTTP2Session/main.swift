// The HTTP/2 session (nghttp2 behind HTTP2Session), driven as HTTP2Connection drives it.
//
// Input: byte 0 holds flags (bit 0: the session starts from `Upgrade: h2c`, stream 1 being the
// upgraded request; bit 1: that request is a HEAD; bit 2: a graceful shutdown starts part way;
// bits 3-4: one of four settings presets, small windows and limits among them); bytes 1-3 seed
// the choices made along the way. The rest is what the client sends after its preface and an
// empty SETTINGS (both sent by the target), cut into pieces of chosen sizes.
//
// After each piece: the events are handled (HTTP2RequestHead.parse and the router on each
// request, 404/405/431/413 answered by the server, handlers that answer at once, echo the body,
// stream their response in chunks, send more than a window, or abort), body bytes are consumed
// now or later, and output is taken until there is none, with the events it brings.
//
// Checked: a chunk's completion runs once, and only from takeOutput; no stream gets more DATA
// than its response declared; the server sends HEADERS and DATA only on streams the client
// opened, never PUSH_PROMISE; a callback failure leaves a GOAWAY to send; takeOutput never fails.

#if canImport(Glibc)
import Glibc
#endif
import FuzzSupport
import HTTPTypes
@testable import WhiskerCore
@testable import WhiskerHTTP
@testable import WhiskerHTTP2

private let clientPreface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
private let maxRequestBodySize = 4096
/// WHISKER_FUZZ_VERBOSE=1 prints the events and output sizes (for reading what a reproducer does).
private let verbose = getenv("WHISKER_FUZZ_VERBOSE") != nil
private let connectionSpecific: Set<HTTPField.Name> = [.connection, .transferEncoding, .upgrade, HTTPField.Name("Proxy-Connection")!, HTTPField.Name("Keep-Alive")!]

private let settingsPresets: [(settings: HTTP2Settings, maxHeaderFields: Int)] = {
    let defaults = HTTP2Settings()
    var small = HTTP2Settings()
    small.maxConcurrentStreams = 4
    small.initialStreamWindowSize = 1024
    small.connectionWindowSize = 65_535
    small.maxHeaderListSize = 1024
    small.maxContinuations = 2
    small.resetRateLimit = (10, 1)
    var tinyWindow = HTTP2Settings()
    tinyWindow.initialStreamWindowSize = 16
    tinyWindow.connectionWindowSize = Int32.max
    return [(defaults, 100), (small, 8), (tinyWindow, 100), (defaults, 4)]
}()

private enum Handler {
    /// Answers at once with a small body.
    case immediate
    /// Answers once the request body has ended, with its length.
    case echo
    /// Sends the head now and the body in chunks over the next pieces.
    case streamed(chunksLeft: Int)
    /// Answers with more than a stream window holds.
    case large
    /// Resets the stream after a piece or two.
    case abort(after: Int)
}

/// A stream as HTTP2Connection keeps one: its lifecycle is the server's own HTTP2StreamState.
private final class Stream {
    var handler: Handler
    var isHEAD: Bool
    var state: HTTP2StreamState
    var hasPendingChunk = false

    init(handler: Handler, isHEAD: Bool, isRequestComplete: Bool) {
        self.handler = handler
        self.isHEAD = isHEAD
        self.state = HTTP2StreamState(requestComplete: isRequestComplete, now: .now())
    }
}

private let limits: WhiskerServer.Limits = {
    var limits = WhiskerServer.Limits()
    limits.maxRequestBodySize = Int64(maxRequestBodySize)
    return limits
}()

private final class Harness {
    let session: HTTP2Session
    var random: FuzzRandom
    var streams: [Int32: Stream] = [:]
    /// As HTTP2Connection's: the last `:authority` found valid on this connection.
    var validAuthority: String?
    /// Streams the client opened (a request or a refused header block), for checking the output.
    var opened: Set<Int32> = []
    /// Declared response lengths and the DATA bytes sent so far, per stream.
    var declared: [Int32: Int] = [:]
    var dataSent: [Int32: Int] = [:]
    var insideTakeOutput = false
    var completionsRun: Set<Int> = []
    var nextCompletion = 0
    /// Bytes of the server's output not yet parsed as frames (a frame may span two takes).
    var outputCarry: [UInt8] = []

    init(session: HTTP2Session, seed: UInt64) {
        self.session = session
        self.random = FuzzRandom(seed: seed)
    }

    // MARK: Events

    func handle(_ event: HTTP2Session.Event) {
        if verbose { print("event: \(event)") }
        switch event {
        case .request(let id, let fields, let endStream):
            opened.insert(id)
            startStream(id, fields: fields, endStream: endStream)
        case .headersTooLarge(let id, let reason):
            opened.insert(id)
            let stream = open(id, isHEAD: false, isRequestComplete: false, handler: .immediate)
            reject(HTTPRejection(.requestHeaderFieldsTooLarge, reason), id: id, stream: stream)
        case .data(let id, let bytes):
            guard let stream = streams[id] else {
                session.consume(streamID: id, count: bytes.count)
                return
            }
            switch stream.state.dataReceived(bytes.count, now: .now(), limits: limits) {
            case .deliver:
                // The handler reads at once, or later (progress()).
                if random.oneIn(2) {
                    stream.state.handlerRead(bytes.count, now: .now())
                    session.consume(streamID: id, count: bytes.count)
                }
            case .drop:
                session.consume(streamID: id, count: bytes.count)
            case .dropAndStop:
                session.consume(streamID: id, count: bytes.count)
                session.stopRequestAfterResponse(streamID: id)
            case .reject(let rejection):
                session.consume(streamID: id, count: bytes.count)
                reject(rejection, id: id, stream: stream)
            }
        case .endStream(let id):
            guard let stream = streams[id] else { return }
            _ = stream.state.endStreamReceived()
            if case .echo = stream.handler, stream.state.mayStartResponse {
                writeResponse(status: 200, fields: [("content-type", "text/plain")], body: Array("\(stream.state.receivedBytes) bytes\n".utf8), id: id)
            }
        case .streamClosed(let id, _):
            guard let stream = streams.removeValue(forKey: id) else { return }
            session.consume(streamID: id, count: stream.state.ended().unread)
        case .shutdownNoticeAcknowledged:
            session.goAway()
        }
    }

    private func open(_ id: Int32, isHEAD: Bool, isRequestComplete: Bool, handler: Handler) -> Stream {
        let stream = Stream(handler: handler, isHEAD: isHEAD, isRequestComplete: isRequestComplete)
        streams[id] = stream
        return stream
    }

    func startStream(_ id: Int32, fields: HTTP2RequestFields, endStream: Bool) {
        let head: HTTPRequest
        do {
            guard let request = try HTTP2RequestHead.parse(fields, validAuthority: &validAuthority) else {
                session.reset(streamID: id, errorCode: 0x1)
                return
            }
            head = request
        } catch {
            reject(error, id: id, stream: open(id, isHEAD: false, isRequestComplete: endStream, handler: .immediate))
            return
        }
        let handler: Handler = switch random.below(8) {
        case 0, 1, 2: .immediate
        case 3, 4: .echo
        case 5: .streamed(chunksLeft: 1 + random.below(4))
        case 6: .large
        default: .abort(after: random.below(3))
        }
        let stream = open(id, isHEAD: head.method == .head, isRequestComplete: endStream, handler: handler)
        stream.state.readerAttached()
        let path = head.path ?? "/"
        let pathOnly = path[..<(path.firstIndex(of: "?") ?? path.endIndex)]
        switch FuzzRoutes.router.match(method: head.method, path: pathOnly) {
        case .found:
            if let length = head.headerFields[.contentLength].flatMap({ Int($0) }), length > maxRequestBodySize {
                reject(HTTPRejection(.contentTooLarge, "too large"), id: id, stream: stream)
                return
            }
            var fields: [(name: String, value: String)] = [("content-type", "text/plain")]
            // A handler that echoes a request field into its response.
            if let echo = head.headerFields[HTTPField.Name("x-echo")!] { fields.append(("x-echo", echo)) }
            switch handler {
            case .immediate: writeResponse(status: 200, fields: fields, body: Array("hello".utf8), id: id)
            case .echo: if endStream { writeResponse(status: 200, fields: fields, body: Array("0 bytes\n".utf8), id: id) }
            case .streamed: writeStreamHead(status: 200, fields: fields, id: id)
            case .large: writeResponse(status: 200, fields: fields, body: Array(repeating: UInt8(ascii: "x"), count: 70_000), id: id)
            case .abort: break
            }
        case .methodNotAllowed(let allowed):
            writeLocal(ResponseHeadWriter.routeMiss(method: head.method, path: pathOnly, allowed: allowed, serverMethods: FuzzRoutes.router.methods).response(to: head, requestID: nil), id: id)
        case .notFound:
            writeLocal(ResponseHeadWriter.routeMiss(method: head.method, path: pathOnly, allowed: [], serverMethods: FuzzRoutes.router.methods).response(to: head, requestID: nil), id: id)
        }
    }

    // MARK: Responses, as HTTP2Connection writes them

    func reject(_ rejection: HTTPRejection, id: Int32, stream: Stream) {
        switch stream.state.rejected() {
        case .reset:
            resetStream(id, stream, errorCode: 0x8)
        case .answer:
            writeLocal(LocalAnswer.rejection(rejection).response(to: nil, requestID: nil), id: id)
            stopRequest(id, stream)
        }
    }

    func stopRequest(_ id: Int32, _ stream: Stream) {
        if stream.state.stopRequested() { session.stopRequestAfterResponse(streamID: id) }
    }

    /// The response's last frame is queued: with the request still open, its unread bytes go
    /// back to the window and what still comes is drained (HTTP2Connection.responseCompleted).
    func responseCompleted(_ id: Int32, _ stream: Stream) {
        let unread = stream.state.responseCompleted(now: .now())
        if stream.state.request == .draining { session.consume(streamID: id, count: unread) }
    }

    func writeLocal(_ response: Response, id: Int32) {
        guard case .bytes(let bytes) = response.body.storage else { return }
        var fields: [(name: String, value: String)] = []
        for field in response.head.headerFields where !connectionSpecific.contains(field.name) && field.name != .contentLength {
            fields.append((field.name.canonicalName, field.value))
        }
        writeResponse(status: response.head.status.code, fields: fields, body: Array(bytes), id: id)
    }

    func writeResponse(status: Int, fields: [(name: String, value: String)], body: [UInt8], id: Int32) {
        guard let stream = streams[id], !stream.state.isResponseComplete else { return }
        let sendsBody = !body.isEmpty && !stream.isHEAD
        respond(status: status, fields: fields + [("content-length", "\(body.count)")], hasBody: sendsBody, declared: sendsBody ? body.count : 0, id: id)
        if sendsBody { session.send(streamID: id, bytes: body[...], endStream: true, completion: completion()) }
        responseCompleted(id, stream)
    }

    func writeStreamHead(status: Int, fields: [(name: String, value: String)], id: Int32) {
        guard let stream = streams[id], stream.state.mayStartResponse else { return }
        respond(status: status, fields: fields, hasBody: !stream.isHEAD, declared: nil, id: id)
    }

    func respond(status: Int, fields: [(name: String, value: String)], hasBody: Bool, declared length: Int?, id: Int32) {
        streams[id]?.state.responseStarted(now: .now())
        if let length { declared[id] = length }
        do {
            try session.respond(streamID: id, status: status, fields: fields + [("date", "Sun, 06 Nov 1994 08:49:37 GMT")], hasBody: hasBody)
        } catch {
            session.reset(streamID: id)
            streams[id]?.state.reset()
        }
    }

    func resetStream(_ id: Int32, _ stream: Stream, errorCode: UInt32) {
        stream.state.reset()
        session.reset(streamID: id, errorCode: errorCode)
    }

    /// A completion that must run once, from takeOutput.
    func completion(for stream: Stream? = nil) -> () -> Void {
        nextCompletion += 1
        let number = nextCompletion
        return { [weak self] in
            guard let self else { fuzzFailure("a chunk completion ran after the session's owner was gone") }
            guard insideTakeOutput else { fuzzFailure("a chunk completion ran outside takeOutput") }
            guard completionsRun.insert(number).inserted else { fuzzFailure("a chunk completion ran twice") }
            stream?.hasPendingChunk = false
        }
    }

    /// What the handlers do between two reads: streamed chunks, the end of a streamed body,
    /// aborts, and reading the body bytes they had left.
    func progress() {
        for (id, stream) in streams.sorted(by: { $0.key < $1.key }) {
            if stream.state.unreadBytes > 0, random.oneIn(2) {
                let count = 1 + random.below(stream.state.unreadBytes)
                stream.state.handlerRead(count, now: .now())
                session.consume(streamID: id, count: count)
            }
            if let framed = session.framedBodyBytes(waitingOn: id), framed < 0 { fuzzFailure("negative framed count") }
            switch stream.handler {
            case .streamed(let left) where stream.state.isResponseStarted && !stream.state.isResponseComplete && !stream.hasPendingChunk:
                if left == 0 {
                    if !stream.isHEAD { session.send(streamID: id, bytes: [], endStream: true, completion: nil) }
                    responseCompleted(id, stream)
                } else {
                    stream.handler = .streamed(chunksLeft: left - 1)
                    if !stream.isHEAD {
                        stream.hasPendingChunk = true
                        let chunk = Array(repeating: UInt8(ascii: "c"), count: 1 + random.below(20_000))
                        session.send(streamID: id, bytes: chunk[...], endStream: false, completion: completion(for: stream))
                    }
                }
            case .abort(let after) where !stream.state.isResponseComplete:
                if after == 0 {
                    resetStream(id, stream, errorCode: 0x2)
                } else {
                    stream.handler = .abort(after: after - 1)
                }
            default:
                break
            }
        }
    }

    // MARK: Output

    func flush() throws(HTTP2Error) {
        for _ in 0..<64 {
            insideTakeOutput = true
            let output = try session.takeOutput()
            insideTakeOutput = false
            if let output {
                if verbose { print("output: \(output.count) bytes") }
                checkFrames(output)
            }
            for event in session.takeEvents() { handle(event) }
            if output == nil { return }
        }
    }

    func checkFrames(_ output: [UInt8]) {
        outputCarry += output
        var index = 0
        while outputCarry.count - index >= 9 {
            let length = Int(outputCarry[index]) << 16 | Int(outputCarry[index + 1]) << 8 | Int(outputCarry[index + 2])
            guard outputCarry.count - index >= 9 + length else { break }
            let type = outputCarry[index + 3]
            let streamID = Int32(outputCarry[index + 5] & 0x7F) << 24 | Int32(outputCarry[index + 6]) << 16
                | Int32(outputCarry[index + 7]) << 8 | Int32(outputCarry[index + 8])
            switch type {
            case 0, 1, 9:
                guard streamID % 2 == 1, opened.contains(streamID) else { fuzzFailure("frame type \(type) on stream \(streamID), which the client did not open") }
                if type == 0 {
                    dataSent[streamID, default: 0] += length  // includes padding, which nghttp2 does not add here
                    if let limit = declared[streamID], dataSent[streamID]! > limit {
                        fuzzFailure("stream \(streamID) sent \(dataSent[streamID]!) DATA bytes, declared \(limit)")
                    }
                }
            case 5:
                fuzzFailure("the server sent PUSH_PROMISE")
            default:
                guard type <= 8 else { fuzzFailure("the server sent frame type \(type)") }
            }
            index += 9 + length
        }
        outputCarry.removeFirst(index)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP2Session(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let flags = input.byte()
    let seed = UInt64(input.byte()) | UInt64(input.byte()) << 8 | UInt64(input.byte()) << 16
    let wire = input.rest()
    let preset = settingsPresets[Int(flags >> 3) & 3]
    let upgrade = flags & 1 != 0

    let session: HTTP2Session
    do {
        session = try HTTP2Session(settings: preset.settings, maxHeaderFields: preset.maxHeaderFields,
                                   upgradeSettings: upgrade ? [] : nil, upgradeIsHEAD: flags & 2 != 0)
    } catch {
        fuzzFailure("cannot create a session: \(error)")
    }
    let harness = Harness(session: session, seed: seed &+ 1)
    if upgrade {
        // HTTP2Connection.startUpgradedRequest: stream 1 is the HTTP/1.1 request, already complete.
        harness.opened.insert(1)
        var fields = HTTP2RequestFields()
        for (name, value) in [(":method", flags & 2 != 0 ? "HEAD" : "GET"), (":scheme", "http"), (":authority", "x"), (":path", "/hello")] { fields.append(name, value) }
        harness.startStream(1, fields: fields, endStream: true)
    }
    let shutdownAt = flags & 4 != 0 ? harness.random.below(8) : -1

    do {
        for event in try clientPreface.withUnsafeBytes({ (bytes) throws(HTTP2Error) in try session.receive(bytes) }) { harness.handle(event) }
        try harness.flush()
        var offset = 0
        var piece = 0
        while offset < wire.count, session.isActive {
            let size: Int = switch harness.random.below(8) {
            case 0, 1: 1 + harness.random.below(8)
            case 2: wire.count - offset
            default: 1 + harness.random.below(600)
            }
            let end = min(wire.count, offset + size)
            let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(wire)[offset..<end])
            offset = end
            let events: [HTTP2Session.Event]
            do {
                events = try session.receive(bytes)
            } catch {
                // HTTP2Connection flushes what nghttp2 has left (the GOAWAY) and closes.
                harness.insideTakeOutput = true
                let output = try? session.takeOutput()
                harness.insideTakeOutput = false
                if error.code == -902 {  // NGHTTP2_ERR_CALLBACK_FAILURE: the session's own refusal
                    var frames = harness.outputCarry + (output ?? [])
                    var sawGoAway = false
                    while frames.count >= 9 {
                        let length = Int(frames[0]) << 16 | Int(frames[1]) << 8 | Int(frames[2])
                        if frames[3] == 7 { sawGoAway = true }
                        frames.removeFirst(min(frames.count, 9 + length))
                    }
                    if !sawGoAway { fuzzFailure("receive failed (\(error)) with no GOAWAY to send") }
                }
                return 0
            }
            for event in events { harness.handle(event) }
            if piece == shutdownAt { session.announceShutdown() }
            harness.progress()
            try harness.flush()
            piece += 1
        }
        // The handlers finish: every streamed body ends, every body byte is read.
        for _ in 0..<8 where session.isActive {
            harness.progress()
            try harness.flush()
        }
    } catch {
        // takeOutput failed: nghttp2_session_mem_send reports only fatal errors (out of memory, or
        // a data source callback that failed: HTTP2Session.readBody finding no body for a stream
        // nghttp2 still sends DATA on), so this is the wrapper's bug, not the peer's.
        fuzzFailure("takeOutput failed: \(error)")
    }
    return 0
}
