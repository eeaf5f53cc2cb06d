import HTTPTypes
package import Logging
import Synchronization
import WhiskerSockets

extension ServerContext {
    /// Starts `handler` for `request` in a task that begins on this thread, on the connection's
    /// queue executor, and runs until the handler first suspends (often never, for a small
    /// handler): no hand-off to another thread.
    func startHandler(_ route: Route, request: Request, target: any ResponseTarget, executor: DispatchQueueExecutor, context requestContext: RequestContext) -> Task<Void, Never> {
        Task.immediate(executorPreference: executor) { [handlerRun] in
            await runHandler(route, request: request, target: target, context: requestContext, steps: handlerRun.steps, logger: handlerRun.logger,
                             accessLog: handlerRun.accessLog, observer: handlerRun.observer)
        }
    }
}

/// What every handler's task of a server needs besides its request, shared in one object: the
/// task's closure captures one reference, not the loggers', steps' and observer's parts one by
/// one (a retain and a release each, a request).
final class HandlerRunShared: Sendable {
    let logger: Logger
    let accessLog: Logger?
    let steps: ResponseSteps
    let observer: (any RequestObserver)?

    init(logger: Logger, accessLog: Logger?, steps: ResponseSteps, observer: (any RequestObserver)?) {
        self.logger = logger
        self.accessLog = accessLog
        self.steps = steps
        self.observer = observer
    }
}

extension ServerContext {
    /// The ``RequestContext`` of the request whose head is `head` (`nil`: one whose head could not
    /// be read): with trusted reverse proxies (``ProxyTrust``), the client they name.
    func requestContext(for head: HTTPRequest?, origin: RequestOrigin) -> RequestContext {
        let requestID = RequestContext.requestID(fromClient: head?.headerFields[RequestContext.requestIDField], generate: configuration.requestIDs)
        guard let trust = contributions.proxyTrust else {
            return RequestContext(peer: origin.peer, httpVersion: origin.httpVersion, tls: origin.tls, requestID: requestID)
        }
        let (client, scheme) = trust.client(of: origin, fields: head?.headerFields)
        return RequestContext(peer: origin.peer, httpVersion: origin.httpVersion, tls: origin.tls, requestID: requestID,
                              client: client, scheme: scheme, preamble: origin.preamble)
    }
}

/// Runs the handler of `route` for `request` and sends its response to `target`, whatever the
/// protocol: errors become a logged 500, the response goes through the server's ``ResponseSteps``,
/// a streamed body is written chunk by chunk with backpressure, and a HEAD request gets the head
/// only. The handler runs with ``RequestContext/current`` set and swift-log's `Logger.current`
/// bound to the server's logger with the request's id (`request_id`, when it has one), which the
/// server's own lines about the request carry too; with an access logger one line per
/// request is logged at the end, and with a ``RequestObserver`` the request is observed (measured,
/// traced).
///
/// The request context is pushed outside swift-log's binding, not inside it: `withLogger` is
/// `nonisolated(nonsending)`, so its push and pop hop to the caller's isolation, and each hop is a
/// `swift_task_switch` that takes the task's status lock (the task has an executor preference).
/// Called from the nonisolated closure of the context's push, the binding adds 2 hops a request;
/// around it (making that closure nonsending too), 5.
func runHandler(
    _ route: Route, request: Request, target: any ResponseTarget, context: RequestContext, steps: ResponseSteps,
    logger: Logger, accessLog: Logger?, observer: (any RequestObserver)?
) async {
    let started = accessLog == nil ? nil : ContinuousClock.now
    let logger = logger.forRequest(context.requestID)
    let (status, bytes) = await RequestContext.$current.withValue(context) {
        await withLogger(logger) { logger in
            guard let observer else {
                return await respond(route.handler, request: request, target: target, requestID: context.requestID, steps: steps, logger: logger)
            }
            return await observer.observe(request, route: route.template, context: context) {
                await respond(route.handler, request: request, target: target, requestID: context.requestID, steps: steps, logger: logger)
            }
        }
    }
    if let accessLog, let started {
        accessLog.logAccess(request.head, status: status, bytes: bytes, since: started, context: context)
    }
}

/// The status logged for a request whose client left (closed the connection, reset the stream)
/// before its response was complete: nginx's 499, "client closed request". Nothing failed on the
/// server's side, so nothing is logged as an error.
let clientClosedRequest = 499

/// The response of `handler`, through `steps`, sent; returns its status and how many body bytes
/// were written. A handler that throws is answered 500 as ``ProblemDetails`` (its error logged,
/// never sent); a request whose client left is ``clientClosedRequest``, and one whose body the
/// connection refused is that refusal's status (the connection answered it).
///
/// Its async frame stays allocated while the handler runs, so it holds only what lives across
/// that wait: what happens before and after (an error's answer, the response steps, the writes)
/// is in synchronous functions out of line, and a streamed body in an async one of its own. With
/// all of it inlined, the frame was 1,872 bytes, and the task allocator malloc'd a slab for it on
/// every request. Out of line itself, so that its frame and its caller's are two allocations, each
/// within the task allocator's slab (a frame over ~980 bytes gets a malloc of its own).
@inline(never)
private func respond(
    _ handler: HTTPHandler, request: Request, target: any ResponseTarget, requestID: String?, steps: ResponseSteps, logger: Logger
) async -> (Int, Int) {
    let response: Response
    do {
        response = try await handler(request)
        // A body the connection refused (and answered) under a handler that did not read it.
        if let rejection = request.body?.rejection { return (Int(rejection.status.code), 0) }
    } catch {
        guard let problem = answer(to: error, request: request, requestID: requestID, logger: logger) else {
            return (request.body?.rejection ?? (error as? RequestBodyError)?.rejection).map { (Int($0.status.code), 0) } ?? (clientClosedRequest, 0)
        }
        response = problem
    }
    switch send(consume response, request: request, target: target, requestID: requestID, steps: steps) {
    case .sent(let status, let count): return (status, count)
    case .stream(let status, let write): return await writeStream(write, status: status, request: request, target: target, logger: logger)
    }
}

/// The 500 that answers a handler's error, logged; `nil` when there is nobody to answer: the
/// connection answered already (a refused body: the request's status is that answer), or the
/// request ended under the handler (a reset stream, a closed connection: ``clientClosedRequest``).
@inline(never)
private func answer(to error: any Error, request: Request, requestID: String?, logger: Logger) -> Response? {
    if request.body?.rejection ?? (error as? RequestBodyError)?.rejection != nil { return nil }
    if error as? RequestBodyError == .connectionClosed || Task.isCancelled { return nil }
    logger.error("handler failed", metadata: ["method": "\(LogValue.quoted(request.head.method.rawValue))", "path": "\(LogValue.quoted(LogRedaction.target(request.head.path ?? "")))", "error": "\(LogValue.quoted(LogRedaction.scrub("\(error)")))"])
    return ProblemDetails(status: .internalServerError, detail: "the server failed to answer this request", requestID: requestID).response(to: request.head)
}

/// A response handed to its target: sent whole (its status and body bytes), or a streamed body
/// still to write after its head.
private enum Sending {
    case sent(status: Int, count: Int)
    case stream(status: Int, write: @Sendable (ResponseBodyWriter) async throws -> Void)
}

/// `response` through `steps`, then to `target`: whole, or its head when its body is a stream.
/// The response is taken (`consuming`), so the steps change the only copy of its fields: with
/// the caller's copy alive, the first field a step added copied them all (4 retains a field).
@inline(never)
private func send(_ response: consuming Response, request: Request, target: any ResponseTarget, requestID: String?, steps: ResponseSteps) -> Sending {
    var response = response
    steps.apply(to: &response, for: request.head, requestID: requestID)
    let status = response.head.status.code
    switch response.body.storage {
    case .empty:
        target.writeResponse(response.head, body: [])
        return .sent(status: status, count: 0)
    case .bytes(let bytes):
        target.writeResponse(response.head, body: bytes)
        return .sent(status: status, count: request.head.method == .head ? 0 : bytes.count)
    case .stream(let length, let write):
        target.writeStreamHead(response.head, length: length)
        guard request.head.method != .head else {
            target.finishStream()
            return .sent(status: status, count: 0)
        }
        return .stream(status: status, write: write)
    case .switchingProtocols(let box):
        // Only ``Response/switchingProtocols(headerFields:to:)`` makes this storage.
        guard let box = box as? SwitchBox else { preconditionFailure("a 101 without its ProtocolSwitch") }
        target.switchProtocols(response.head, to: box.next)
        return .sent(status: status, count: 0)
    }
}

/// Writes a streamed body whose head went out; returns the request's status and the bytes written.
@inline(never)
private func writeStream(
    _ write: @Sendable (ResponseBodyWriter) async throws -> Void, status: Int, request: Request, target: any ResponseTarget, logger: Logger
) async -> (Int, Int) {
    let counter = CountingSink(target)
    do {
        try await write(ResponseBodyWriter(sink: counter))
        target.finishStream()
    } catch {
        target.abortStream()
        if let bodyError = error as? ResponseBodyError {
            // The client left, or the body broke its length (which the connection logged).
            return (bodyError.reason == ResponseBodyError.connectionClosed.reason ? clientClosedRequest : status, counter.count)
        }
        if Task.isCancelled { return (clientClosedRequest, counter.count) }
        logger.error("response body failed", metadata: ["method": "\(LogValue.quoted(request.head.method.rawValue))", "path": "\(LogValue.quoted(LogRedaction.target(request.head.path ?? "")))", "error": "\(LogValue.quoted(LogRedaction.scrub("\(error)")))"])
    }
    return (status, counter.count)
}

/// Counts the bytes of a streamed body on their way to the target (for the access log).
private final class CountingSink: ResponseBodySink {
    private let target: any ResponseTarget
    private let written = Mutex(0)

    init(_ target: any ResponseTarget) { self.target = target }

    var count: Int { written.withLock { $0 } }

    func writeBodyChunk(_ bytes: ArraySlice<UInt8>) async throws {
        try await target.writeBodyChunk(bytes)
        written.withLock { $0 += bytes.count }
    }

    func writeFile(descriptor: Int32, offset: Int64, count: Int64) async throws {
        try await target.writeFile(descriptor: descriptor, offset: offset, count: count)
        written.withLock { $0 += Int(count) }
    }
}

extension Logger {
    /// This logger with `request_id` metadata when the request has an id (quoted as the access
    /// log quotes it); itself, at no cost, when it has none. What every line about a request,
    /// over any protocol, is logged with.
    package func forRequest(_ requestID: String?) -> Logger {
        guard let requestID else { return self }
        var logger = self
        logger[metadataKey: "request_id"] = "\(LogValue.quoted(requestID))"
        return logger
    }
}
