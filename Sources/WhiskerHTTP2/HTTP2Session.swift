internal import CNGHTTP2
import WhiskerSockets

/// The HTTP/2 state of one server connection, with no I/O: an nghttp2 session driven with bytes in
/// (``receive(_:)``) and bytes out (``takeOutput()``), reporting what happened as ``Event``s.
///
/// Use it on one queue only (nghttp2 sessions are not thread-safe). Request bodies are
/// acknowledged to the peer (WINDOW_UPDATE) only when ``consume(streamID:count:)`` says the
/// handler read them. Response bodies are queued per stream with ``send(streamID:bytes:endStream:completion:)``;
/// nghttp2 pulls them as flow control allows, and each chunk's completion runs (from
/// ``takeOutput()``) once nghttp2 has framed all of it.
///
/// Two rules of RFC 9113 are the session's own: a header list is counted as it is decoded
/// (HPACK can expand a few bytes into megabytes), and a refused one is reported as
/// ``Event/headersTooLarge(streamID:reason:)`` without keeping its fields, or, once it runs far
/// past the limit, not decoded any further: the connection ends (see ``HeaderBudget``); and a stream the
/// connection asks to stop (``stopRequestAfterResponse(streamID:)``) is reset with NO_ERROR once
/// its response has been sent (§8.1), so that a client stops sending a body nobody will read.
package final class HTTP2Session {
    /// What the peer did.
    package enum Event: Sendable {
        /// A request's header block; `endStream` when it has no body.
        case request(streamID: Int32, fields: HTTP2RequestFields, endStream: Bool)
        /// A request's header block over the size or field-count limit, decoded (the HPACK state
        /// stays in step) but not kept; answer it with 431.
        case headersTooLarge(streamID: Int32, reason: String)
        /// Request body bytes.
        case data(streamID: Int32, bytes: [UInt8])
        /// The request body is complete (END_STREAM on DATA or on trailers).
        case endStream(streamID: Int32)
        /// The stream is gone: finished, reset by the peer (`errorCode` not 0) or refused.
        case streamClosed(streamID: Int32, errorCode: UInt32)
        /// The peer acknowledged the PING of ``announceShutdown()``: every stream it opened before
        /// it saw the shutdown notice has arrived.
        case shutdownNoticeAcknowledged
    }

    /// The opaque data of the PING that follows the shutdown notice.
    private static let shutdownPing: [UInt8] = Array("whisker!".utf8)

    // The stored state marked `@exclusivity(unchecked)` lives on one queue (see the type's notes).
    // Release builds do not check exclusive access to it at run time (those checks were 4% of a
    // request's instructions); debug builds, which the tests run, still do (Performance.md).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var session: OpaquePointer?
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var events: [Event] = []
    /// The batch handed out last time, kept to collect the next batch in once its reader has
    /// let go of it: a batch costs no allocation (see ``handOverEvents()``).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var spareEvents: [Event] = []
    /// The request header block being decoded: HEADERS and its CONTINUATIONs arrive with no
    /// other frame between them, so there is at most one.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var headerBlock: HeaderBlock?
    private let maxHeaderListSize: Int
    private let maxHeaderFields: Int
    /// Header blocks refused on this connection (``HeaderBudget/refusals``): past it, GOAWAY.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var refusedHeaderBlocks = ResetRateLimit(burst: HeaderBudget.refusals, perSecond: HeaderBudget.refusalsRefillPerSecond)
    /// The fields nghttp2 handed to the session so far (each validated by nghttp2 first): the
    /// work header decoding cost, which the tests bound.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    package private(set) var headerFieldsDecoded = 0
    /// The highest stream id a client request has opened so far.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var highestRequestStreamID: Int32 = 0
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var outgoing: [Int32: OutgoingBody] = [:]
    /// The list ``respond(streamID:hasBody:headers:)`` builds response heads in, reused.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var responseHeaders = HeaderList(fields: 8)
    /// Streams to reset with NO_ERROR once their response's last frame is out.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var stopAfterResponse: Set<Int32> = []
    /// Completions of response chunks that nghttp2 has framed, waiting for ``takeOutput()``.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var framedCompletions: [() -> Void] = []
    /// The resets with an error this server sent (MadeYouReset; see ``HTTP2Settings/resetRateLimit``).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var serverResets: ResetRateLimit
    /// The resets the client sent (rapid reset). nghttp2 counts them too, but ends the session
    /// with INTERNAL_ERROR and no reason; this bucket ends it first, saying why.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var clientResets: ResetRateLimit
    /// Why the session is ending on the server's own decision (a GOAWAY saying so is queued):
    /// nothing more is read, no stream starts, and the connection closes once the GOAWAY is out.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    package private(set) var termination: String?

    /// The response body queued for one stream: a value in ``outgoing``, changed in place. The
    /// usual body is one chunk (a whole response, or a streamed body's next chunk), which is held
    /// inline, so queuing it allocates nothing; more wait in an array behind it.
    private struct OutgoingBody {
        typealias Chunk = (bytes: ArraySlice<UInt8>, completion: (() -> Void)?)
        private var first: Chunk?
        private var rest: [Chunk] = []
        var ended = false
        var deferred = false
        /// Bytes nghttp2 has framed so far: a count that does not move while bytes wait means
        /// the peer's flow-control window stays closed.
        var framed = 0

        var isEmpty: Bool { first == nil }

        mutating func append(_ chunk: Chunk) {
            if first == nil { first = chunk } else { rest.append(chunk) }
        }

        /// The chunk framed next (non-empty: check ``isEmpty``).
        var head: ArraySlice<UInt8> { first!.bytes }

        /// Drops the head chunk's first `count` bytes; returns its completion when that was all of it.
        mutating func take(_ count: Int) -> (done: Bool, completion: (() -> Void)?) {
            guard count == first!.bytes.count else {
                first!.bytes = first!.bytes.dropFirst(count)
                return (false, nil)
            }
            let completion = first!.completion
            first = rest.isEmpty ? nil : rest.removeFirst()
            return (true, completion)
        }
    }

    /// The fields of one header block (a request's, or trailers), counted against the limits as
    /// they arrive.
    private struct HeaderBlock {
        let streamID: Int32
        /// A request's block, whose fields are kept; trailers are only counted.
        let isRequest: Bool
        /// A request's fields, built as they arrive (``HTTP2RequestFields``).
        var fields: HTTP2RequestFields
        /// The header list size as HPACK counts it: name + value + 32 a field (RFC 9113 §6.5.2),
        /// every cookie crumb a field of its own.
        var size = 0
        /// Regular (not pseudo-) fields, the crumbs of a split cookie counted as one field, as
        /// HTTP/1.1 counts its one `Cookie` line (a browser splits a cookie into crumbs to
        /// compress it better; their number is bounded by ``size`` all the same).
        var regularFields = 0
        private var sawCookie = false
        /// Why the block is refused, once it is; its fields are no longer kept.
        var refusal: String?

        init(streamID: Int32, isRequest: Bool) {
            self.streamID = streamID
            self.isRequest = isRequest
            // Room for a usual request's fields at once, not grown field by field.
            fields = HTTP2RequestFields(capacity: isRequest ? 12 : 0)
        }

        /// What one more field makes of the block.
        enum Step {
            /// Within the limits (kept, for a request).
            case kept
            /// It takes the block past a limit: refused from now on (a request's gets 431).
            case refused
            /// Refused and past the bound of ``HeaderBudget/slack``: decode no more of it.
            case stop
            /// Refused before, still within the bound: counted only.
            case counted
        }

        mutating func add(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, maxSize: Int, maxFields: Int) -> Step {
            size += name.count + value.count + 32
            if name.first != UInt8(ascii: ":") {
                // Compared as bytes: a String's UTF-8 view would cost an allocation a field.
                let isCookie = name.spells("cookie")
                if !isCookie || !sawCookie { regularFields += 1 }
                sawCookie = sawCookie || isCookie
            }
            if refusal != nil {
                return HeaderBudget.isPastSlack(size: size, fields: regularFields, maxSize: maxSize, maxFields: maxFields) ? .stop : .counted
            }
            if size > maxSize {
                refusal = "request header list larger than \(maxSize) bytes"
            } else if regularFields > maxFields {
                refusal = "more than \(maxFields) header fields"
            } else {
                if isRequest { fields.append(name: name, value: value) }
                return .kept
            }
            fields = HTTP2RequestFields()
            // Trailers get no answer of their own: nothing is gained by reading on.
            return isRequest ? .refused : .stop
        }
    }

    /// Creates a server session and queues its SETTINGS.
    /// - Parameters:
    ///   - settings: The settings to announce and the abuse limits; `maxHeaderListSize` is also
    ///     enforced on what arrives.
    ///   - maxHeaderFields: The most regular (not pseudo-) fields a request may have.
    ///   - upgradeSettings: For `Upgrade: h2c`, the decoded `HTTP2-Settings` payload; the
    ///     upgraded request is then stream 1, half closed.
    ///   - upgradeIsHEAD: Whether that upgraded request is a HEAD.
    package init(settings: HTTP2Settings, maxHeaderFields: Int = 100, upgradeSettings: [UInt8]? = nil, upgradeIsHEAD: Bool = false) throws(HTTP2Error) {
        maxHeaderListSize = Int(settings.maxHeaderListSize)
        self.maxHeaderFields = maxHeaderFields
        serverResets = ResetRateLimit(burst: settings.resetRateLimit.burst, perSecond: settings.resetRateLimit.perSecond)
        clientResets = ResetRateLimit(burst: settings.resetRateLimit.burst, perSecond: settings.resetRateLimit.perSecond)
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, Callbacks.onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, Callbacks.onHeader)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, Callbacks.onFrameReceived)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, Callbacks.onDataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, Callbacks.onStreamClose)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, Callbacks.onFrameSent)
        nghttp2_session_callbacks_set_on_begin_frame_callback(callbacks, Callbacks.onBeginFrame)

        var option: OpaquePointer?
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_no_auto_window_update(option, 1)
        nghttp2_option_set_max_send_header_block_length(option, 64 * 1024)
        // A backstop behind clientResets, which says why it ends a session.
        nghttp2_option_set_stream_reset_rate_limit(option, settings.resetRateLimit.burst * 2, settings.resetRateLimit.perSecond * 2)
        nghttp2_option_set_max_continuations(option, settings.maxContinuations)

        var created: OpaquePointer?
        let result = nghttp2_session_server_new2(&created, callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        guard result == 0, let created else { throw HTTP2Error(operation: "creating a session", code: result) }
        session = created

        var entries = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: settings.maxConcurrentStreams),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: settings.initialStreamWindowSize),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: settings.maxHeaderListSize),
        ]
        try check(nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count), "submitting SETTINGS")
        if settings.connectionWindowSize > 65_535 {
            try check(nghttp2_session_set_local_window_size(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, settings.connectionWindowSize), "sizing the connection window")
        }
        if let upgradeSettings {
            try check(nghttp2_session_upgrade2(created, upgradeSettings, upgradeSettings.count, upgradeIsHEAD ? 1 : 0, nil), "upgrading from HTTP/1.1")
            highestRequestStreamID = 1
        }
    }

    deinit {
        nghttp2_session_del(session)
    }

    private func check(_ result: Int32, _ operation: String) throws(HTTP2Error) {
        if result != 0 { throw HTTP2Error(operation: operation, code: result) }
    }

    /// Processes bytes from the peer.
    /// - Returns: What the peer did, in order.
    /// - Throws: ``HTTP2Error`` when the peer broke the protocol badly enough that the connection
    ///   must end; a GOAWAY for the peer is then waiting in ``takeOutput()`` (for a flood, one of
    ///   the session's own, ENHANCE_YOUR_CALM with the reason).
    package func receive(_ bytes: UnsafeRawBufferPointer) throws(HTTP2Error) -> [Event] {
        guard termination == nil else { return [] }
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else { return [] }
        let result = nghttp2_session_mem_recv(session, base, bytes.count)
        let happened = handOverEvents()
        if result < 0 {
            // A flood nghttp2 stops without a word: the peer is told why.
            if let flood = Self.flood(Int32(result)) { terminate(errorCode: UInt32(NGHTTP2_ENHANCE_YOUR_CALM.rawValue), reason: flood) }
            throw HTTP2Error(operation: "receiving", code: Int32(result))
        }
        return happened
    }

    /// What a receive error that nghttp2 answers with no GOAWAY of its own stopped: a flood.
    private static func flood(_ code: Int32) -> String? {
        switch code {
        case NGHTTP2_ERR_FLOODED.rawValue: "flood of frames that need an answer (PING, SETTINGS)"
        case NGHTTP2_ERR_TOO_MANY_CONTINUATIONS.rawValue: "too many CONTINUATION frames in one header block"
        case NGHTTP2_ERR_TOO_MANY_SETTINGS.rawValue: "too many settings in one SETTINGS frame"
        default: nil
        }
    }

    /// The frames nghttp2 wants to send now (up to `limit` bytes), or `nil`; then runs the
    /// completions of the response chunks those frames carry.
    ///
    /// nghttp2 hands out one frame a call: the array starts with room for a usual batch
    /// (``batchCapacity``, the responses to a read of 16 requests fit) rather than growing from
    /// the first frame's size, which cost an allocation each time it doubled (5 for 16 small
    /// responses). The session keeps no buffer between batches.
    package func takeOutput(limit: Int = 256 * 1024) throws(HTTP2Error) -> [UInt8]? {
        var output: [UInt8] = []
        while output.count < limit {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 { throw HTTP2Error(operation: "sending", code: Int32(count)) }
            guard count > 0, let data else { break }
            if output.isEmpty { output.reserveCapacity(max(count, Self.batchCapacity)) }
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
        if !framedCompletions.isEmpty {
            let completions = framedCompletions
            framedCompletions.removeAll()
            for completion in completions { completion() }
        }
        return output.isEmpty ? nil : output
    }

    /// The room ``takeOutput(limit:)`` starts a batch with.
    static let batchCapacity = 4096

    /// Events that happened while sending (a stream closes when its last frame goes out), which
    /// ``receive(_:)`` would otherwise report only with the peer's next bytes.
    package func takeEvents() -> [Event] {
        events.isEmpty ? [] : handOverEvents()
    }

    /// The events so far, and an empty array to collect the next ones in: the one handed out
    /// before, emptied in place (its reader has let go of it by now), so that neither the
    /// hand-over nor the next batch allocates.
    private func handOverEvents() -> [Event] {
        let happened = events
        events = spareEvents
        spareEvents = []
        events.removeAll(keepingCapacity: true)
        spareEvents = happened
        return happened
    }

    /// Whether the session is still open to frames either way (false after GOAWAY both ways, and
    /// once the server decided to end it, see ``termination``, when its GOAWAY is out).
    package var isActive: Bool {
        if termination != nil { return nghttp2_session_want_write(session) != 0 }
        return nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }

    /// Whether a request that arrived on `streamID` may start: the stream is still open (the
    /// server may have reset it, and it closed, while the batch that brought its HEADERS was
    /// handled) and the session is not ending.
    package func mayStart(streamID: Int32) -> Bool {
        // -1: no open stream of that id (`find_stream` would also find a closed one kept for priorities).
        termination == nil && nghttp2_session_get_stream_remote_close(session, streamID) != -1
    }

    /// Ends the session on the server's own decision: GOAWAY with `errorCode` and `reason` as its
    /// debug data (a client's log shows it), naming the last stream processed; nothing more is read.
    package func terminate(errorCode: UInt32, reason: String) {
        guard termination == nil else { return }
        termination = reason
        let last = nghttp2_session_get_last_proc_stream_id(session)
        let data = Array(reason.utf8)
        _ = data.withUnsafeBufferPointer { nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode, $0.baseAddress, $0.count) }
    }

    /// Queues a response's head, `headers` beginning with `:status`. With `hasBody` false the
    /// stream ends with the head.
    package func respond(streamID: Int32, headers: HeaderList, hasBody: Bool) throws(HTTP2Error) {
        if hasBody { outgoing[streamID] = OutgoingBody() }
        let result = headers.withNV { list in
            if hasBody {
                var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: Callbacks.readBodyCallback)
                return nghttp2_submit_response(session, streamID, list.baseAddress, list.count, &provider)
            }
            return nghttp2_submit_response(session, streamID, list.baseAddress, list.count, nil)
        }
        if result != 0 {
            outgoing[streamID] = nil
            throw HTTP2Error(operation: "submitting a response", code: result)
        }
    }

    /// Queues a response's head built by `build` into the session's own header list, which keeps
    /// its capacity from one response to the next (nghttp2 copies what it keeps): a response head
    /// costs no allocation of the list. `build` appends `:status` first.
    package func respond(streamID: Int32, hasBody: Bool, headers build: (inout HeaderList) -> Void) throws(HTTP2Error) {
        responseHeaders.removeAll()
        build(&responseHeaders)
        try respond(streamID: streamID, headers: responseHeaders, hasBody: hasBody)
    }

    /// Submits a response head of `status` and `fields` (see ``respond(streamID:headers:hasBody:)``).
    package func respond(streamID: Int32, status: Int, fields: [(name: String, value: String)], hasBody: Bool) throws(HTTP2Error) {
        var headers = HeaderList(fields: fields.count + 1)
        headers.append(":status", String(status))
        for field in fields { headers.append(field.name, field.value) }
        try respond(streamID: streamID, headers: headers, hasBody: hasBody)
    }

    /// The count of body bytes framed so far for a stream whose response has bytes (or its end)
    /// waiting to be framed; `nil` when nothing waits on flow control.
    package func framedBodyBytes(waitingOn streamID: Int32) -> Int? {
        guard let body = outgoing[streamID], body.ended || !body.isEmpty else { return nil }
        return body.framed
    }

    /// Queues response body bytes for a stream whose head said `hasBody`; `completion` runs once
    /// nghttp2 has framed them (from ``takeOutput()``), or never if the stream closes first (see
    /// ``Event/streamClosed(streamID:errorCode:)``).
    /// - Returns: False when nothing was queued: the stream has no body waiting (it closed, or
    ///   its body ended); `completion` will not run.
    @discardableResult
    package func send(streamID: Int32, bytes: ArraySlice<UInt8>, endStream: Bool, completion: (() -> Void)?) -> Bool {
        guard let index = outgoing.index(forKey: streamID), !outgoing.values[index].ended else { return false }
        let resume = outgoing.values[index].deferred
        if !bytes.isEmpty || completion != nil { outgoing.values[index].append((bytes, completion)) }
        if endStream { outgoing.values[index].ended = true }
        if resume {
            outgoing.values[index].deferred = false
            nghttp2_session_resume_data(session, streamID)
        }
        return true
    }

    /// Tells the peer that the handler read `count` body bytes of `streamID`: they leave the
    /// stream's and the connection's receive windows.
    package func consume(streamID: Int32, count: Int) {
        guard count > 0 else { return }
        nghttp2_session_consume(session, streamID, count)
    }

    /// Asks the client to stop sending `streamID`'s request body, as RFC 9113 §8.1 lets a server
    /// that answered early: RST_STREAM(NO_ERROR) right after the response's last frame (now, if it
    /// went out already). Nothing is sent if the request has ended by then.
    package func stopRequestAfterResponse(streamID: Int32) {
        guard nghttp2_session_get_stream_remote_close(session, streamID) == 0 else { return }
        if nghttp2_session_get_stream_local_close(session, streamID) == 1 {
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, UInt32(NGHTTP2_NO_ERROR.rawValue))
        } else {
            stopAfterResponse.insert(streamID)
        }
    }

    /// Resets a stream (the handler failed mid-body, or the response ended early).
    package func reset(streamID: Int32, errorCode: UInt32 = 0x2 /* INTERNAL_ERROR */) {
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode)
    }

    /// The first step of a graceful shutdown (RFC 9113 §6.8): GOAWAY with the largest stream id,
    /// which tells the client to open no more streams while streams already on their way are
    /// still served, and a PING whose acknowledgement (``Event/shutdownNoticeAcknowledged``)
    /// says they have all arrived. Then ``goAway()``.
    package func announceShutdown() {
        nghttp2_submit_shutdown_notice(session)
        _ = Self.shutdownPing.withUnsafeBufferPointer { nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), $0.baseAddress) }
    }

    /// GOAWAY naming the last stream the server will process; later streams are refused.
    package func goAway() {
        let last = nghttp2_session_get_last_proc_stream_id(session)
        nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, UInt32(NGHTTP2_NO_ERROR.rawValue), nil, 0)
    }

    // MARK: Callbacks (called by nghttp2 inside receive and takeOutput, on the same thread)

    /// RFC 9113 §5.1.1: a client's new stream must have a higher id than every stream it opened
    /// before; HEADERS on a lower id that is not an open stream is a connection error
    /// (PROTOCOL_ERROR). nghttp2 1.52 does not check this itself, so it is checked here, as each
    /// frame header arrives, before nghttp2 acts on the frame.
    fileprivate func beginFrame(_ header: UnsafePointer<nghttp2_frame_hd>) -> Int32 {
        let streamID = header.pointee.stream_id
        guard header.pointee.type == UInt8(NGHTTP2_HEADERS.rawValue), streamID % 2 == 1, streamID < highestRequestStreamID,
              nghttp2_session_find_stream(session, streamID) == nil
        else { return 0 }
        nghttp2_session_terminate_session(session, UInt32(NGHTTP2_PROTOCOL_ERROR.rawValue))
        return Int32(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
    }

    fileprivate func beginHeaders(_ frame: UnsafePointer<nghttp2_frame>) {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else {
            headerBlock = nil
            return
        }
        let isRequest = frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
        if isRequest { highestRequestStreamID = max(highestRequestStreamID, frame.pointee.hd.stream_id) }
        headerBlock = HeaderBlock(streamID: frame.pointee.hd.stream_id, isRequest: isRequest)
    }

    /// One decoded field (nghttp2 has validated it). Returns 0 to go on, or
    /// `NGHTTP2_ERR_CALLBACK_FAILURE` to stop decoding there and end the connection (GOAWAY
    /// ENHANCE_YOUR_CALM is queued): once the block runs far past the limit, or the connection's
    /// budget of refused blocks is spent. (`NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE` would reset
    /// only the stream, but nghttp2 must then inflate the rest of the block to keep the HPACK
    /// table in step: 16,000 references still cost 0.25 ms, more than a plain 16 KB frame.)
    fileprivate func header(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Int32 {
        headerFieldsDecoded += 1
        let streamID = frame.pointee.hd.stream_id
        guard headerBlock?.streamID == streamID else { return 0 }
        switch headerBlock!.add(name: name, value: value, maxSize: maxHeaderListSize, maxFields: maxHeaderFields) {
        case .kept, .counted:
            return 0
        case .refused:
            return refusalCounted() ? 0 : Int32(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
        case .stop:
            let block = headerBlock!
            headerBlock = nil
            terminate(errorCode: UInt32(NGHTTP2_ENHANCE_YOUR_CALM.rawValue), reason: (block.refusal ?? "header list too large") + HeaderBudget.stopNote(block.isRequest))
            return Int32(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
        }
    }

    /// A header block was refused: counted against the connection's budget. False when the budget
    /// is spent: the session ends (GOAWAY ENHANCE_YOUR_CALM, saying why).
    private func refusalCounted() -> Bool {
        if refusedHeaderBlocks.take(now: .now) { return true }
        terminate(errorCode: UInt32(NGHTTP2_ENHANCE_YOUR_CALM.rawValue), reason: "too many header blocks past the header list limit")
        return false
    }

    /// A frame arrived whole. Returns false when the client reset streams past the rate: the
    /// session ends (GOAWAY ENHANCE_YOUR_CALM, saying why) and nothing more of the batch is read.
    fileprivate func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Bool {
        let streamID = frame.pointee.hd.stream_id
        let endStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch Int(frame.pointee.hd.type) {
        case Int(NGHTTP2_HEADERS.rawValue):
            if let block = headerBlock, block.streamID == streamID, block.isRequest {
                headerBlock = nil
                if let refusal = block.refusal {
                    events.append(.headersTooLarge(streamID: streamID, reason: refusal))
                } else {
                    events.append(.request(streamID: streamID, fields: block.fields, endStream: endStream))
                }
            } else {
                headerBlock = nil
                if endStream { events.append(.endStream(streamID: streamID)) }
            }
        case Int(NGHTTP2_DATA.rawValue):
            if endStream { events.append(.endStream(streamID: streamID)) }
        case Int(NGHTTP2_PING.rawValue):
            let isAck = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0
            let data = withUnsafeBytes(of: frame.pointee.ping.opaque_data) { Array($0) }
            if isAck && data == Self.shutdownPing { events.append(.shutdownNoticeAcknowledged) }
        case Int(NGHTTP2_RST_STREAM.rawValue):
            if !clientResets.take(now: .now) {
                terminate(errorCode: UInt32(NGHTTP2_ENHANCE_YOUR_CALM.rawValue), reason: "too many streams reset by the client (rapid reset)")
                return false
            }
        default:
            break
        }
        return true
    }

    fileprivate func dataChunk(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        events.append(.data(streamID: streamID, bytes: Array(bytes)))
    }

    /// The last frame of a response that was asked to stop its request
    /// (``stopRequestAfterResponse(streamID:)``) is out: reset with NO_ERROR. A reset with an
    /// error is counted against ``HTTP2Settings/resetRateLimit``.
    fileprivate func frameSent(_ frame: UnsafePointer<nghttp2_frame>) {
        let type = frame.pointee.hd.type
        if type == UInt8(NGHTTP2_RST_STREAM.rawValue), frame.pointee.rst_stream.error_code != UInt32(NGHTTP2_NO_ERROR.rawValue),
           !serverResets.take(now: .now) {
            terminate(errorCode: UInt32(NGHTTP2_ENHANCE_YOUR_CALM.rawValue), reason: "too many streams reset by the server for the client's errors")
        }
        guard type == UInt8(NGHTTP2_DATA.rawValue) || type == UInt8(NGHTTP2_HEADERS.rawValue),
              frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
              stopAfterResponse.remove(frame.pointee.hd.stream_id) != nil else { return }
        let streamID = frame.pointee.hd.stream_id
        if nghttp2_session_get_stream_remote_close(session, streamID) == 0 {
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, UInt32(NGHTTP2_NO_ERROR.rawValue))
        }
    }

    fileprivate func streamClosed(_ streamID: Int32, errorCode: UInt32) {
        if headerBlock?.streamID == streamID { headerBlock = nil }
        stopAfterResponse.remove(streamID)
        outgoing[streamID] = nil
        events.append(.streamClosed(streamID: streamID, errorCode: errorCode))
    }

    /// nghttp2 asks for up to `length` body bytes of `streamID`.
    fileprivate func readBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let index = outgoing.index(forKey: streamID) else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        let written = fill(buffer, length: length, from: &outgoing.values[index])
        let body = outgoing.values[index]
        if body.isEmpty && body.ended {
            flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
            outgoing.remove(at: index)
            return written
        }
        if written == 0 {
            outgoing.values[index].deferred = true
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        }
        return written
    }

    /// Copies up to `length` of `body`'s queued bytes into `buffer`; the completions of the chunks
    /// copied whole (and of empty ones that only carry a completion) wait in ``framedCompletions``.
    private func fill(_ buffer: UnsafeMutablePointer<UInt8>, length: Int, from body: inout OutgoingBody) -> Int {
        var written = 0
        while !body.isEmpty, written < length || body.head.isEmpty {
            let count = min(body.head.count, length - written)
            body.head.withUnsafeBufferPointer { source in
                if count > 0 { (buffer + written).update(from: source.baseAddress!, count: count) }
            }
            written += count
            body.framed += count
            let taken = body.take(count)
            if let completion = taken.completion { framedCompletions.append(completion) }
            if !taken.done { break }
        }
        return written
    }
}

private func session(_ userData: UnsafeMutableRawPointer?) -> HTTP2Session {
    Unmanaged<HTTP2Session>.fromOpaque(userData!).takeUnretainedValue()
}

/// libnghttp2's callbacks, each a C function pointer into the session that `userData` names.
/// Static members of an enum rather than globals: swift-symbolgraph-extract (DocC) crashes reading
/// a global of a C function-pointer type from the module (Swift 6.3.1).
private enum Callbacks {
    static let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
        if let frame { session(userData).beginHeaders(frame) }
        return 0
    }

    static let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
        guard let frame, let name, let value else { return 0 }
        return session(userData).header(frame, name: UnsafeBufferPointer(start: name, count: nameLength), value: UnsafeBufferPointer(start: value, count: valueLength))
    }

    static let onFrameReceived: nghttp2_on_frame_recv_callback = { _, frame, userData in
        guard let frame, !session(userData).frameReceived(frame) else { return 0 }
        return Int32(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
    }

    static let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
        if let data { session(userData).dataChunk(streamID: streamID, bytes: UnsafeBufferPointer(start: data, count: length)) }
        return 0
    }

    static let onBeginFrame: nghttp2_on_begin_frame_callback = { _, header, userData in
        guard let header else { return 0 }
        return session(userData).beginFrame(header)
    }

    static let onFrameSent: nghttp2_on_frame_send_callback = { _, frame, userData in
        if let frame { session(userData).frameSent(frame) }
        return 0
    }

    static let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
        session(userData).streamClosed(streamID, errorCode: errorCode)
        return 0
    }

    static let readBodyCallback: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
        guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        return session(userData).readBody(streamID: streamID, into: buffer, length: length, flags: flags)
    }
}
