import HTTPTypes
import Logging
import Synchronization
import WhiskerSockets

extension ServerContext {
    /// Starts `handler` for `request` in a task that begins on this thread, on the connection's
    /// queue executor, and runs until the handler first suspends (often never, for a small
    /// handler): no hand-off to another thread.
    func startHandler(_ route: Route, request: Request, target: any ResponseTarget, origin: RequestOrigin) -> Task<Void, Never> {
        let requestContext = requestContext(for: request, origin: origin)
        return Task.immediate(executorPreference: origin.executor) { [logger, accessLog = configuration.accessLog, responseSteps, observer] in
            await runHandler(route, request: request, target: target, context: requestContext, steps: responseSteps, logger: logger, accessLog: accessLog, observer: observer)
        }
    }
}

extension ServerContext {
    /// The request's ``RequestContext``: with trusted reverse proxies, the client they name.
    func requestContext(for request: Request, origin: RequestOrigin) -> RequestContext {
        let requestID = RequestContext.requestID(fromClient: request.head.headerFields[RequestContext.requestIDField], generate: configuration.requestIDs)
        guard let proxies = configuration.reverseProxies else {
            return RequestContext(peer: origin.peer, httpVersion: origin.httpVersion, tls: origin.tls, requestID: requestID)
        }
        // The PROXY header's source is the nearest hop the server believes.
        let header = origin.proxyHeader
        let nearest = header?.source ?? origin.peer
        var scheme = origin.tls != nil || header?.tlsVersion != nil ? "https" : "http"
        var client = nearest
        if proxies.readsForwardedFields {
            (client, scheme) = ForwardedFields.client(peer: nearest, scheme: scheme, fields: request.head.headerFields, trusts: proxies.trusts)
        }
        return RequestContext(peer: origin.peer, httpVersion: origin.httpVersion, tls: origin.tls, requestID: requestID,
                              client: client, scheme: scheme, proxyHeader: header)
    }
}

/// Runs the handler of `route` for `request` and sends its response to `target`, whatever the
/// protocol: errors become a logged 500, the response goes through the server's ``ResponseSteps``,
/// a streamed body is written chunk by chunk with backpressure, and a HEAD request gets the head
/// only. The handler runs with ``RequestContext/current`` set, with an access logger one line per
/// request is logged at the end, and with a ``RequestObserver`` the request is observed (measured,
/// traced).
func runHandler(
    _ route: Route, request: Request, target: any ResponseTarget, context: RequestContext, steps: ResponseSteps,
    logger: Logger, accessLog: Logger?, observer: (any RequestObserver)?
) async {
    let started = accessLog == nil ? nil : ContinuousClock.now
    let (status, bytes) = await RequestContext.$current.withValue(context) {
        guard let observer else {
            return await respond(route.handler, request: request, target: target, requestID: context.requestID, steps: steps, logger: logger)
        }
        return await observer.observe(request, route: route.template, context: context) {
            await respond(route.handler, request: request, target: target, requestID: context.requestID, steps: steps, logger: logger)
        }
    }
    if let accessLog, let started {
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        var metadata: Logger.Metadata = [
            "status": "\(status)", "bytes": "\(bytes)", "duration_ms": "\(Int(milliseconds.rounded()))",
            "protocol": "\(context.httpVersion.rawValue)", "client": "\(context.client.port == 0 ? context.client.host : "\(context.client)")",
            "peer": "\(context.peer)", "request_id": "\(context.requestID ?? "-")",
        ]
        if let certificate = context.tls?.clientCertificate { metadata["client_certificate"] = "\(certificate.subject)" }
        accessLog.info("\(request.head.method.rawValue) \(LogRedaction.target(request.head.path ?? "")) \(status)", metadata: metadata)
    }
}

/// The response of `handler`, through `steps`, sent; returns its status and how many body bytes
/// were written.
private func respond(
    _ handler: HTTPHandler, request: Request, target: any ResponseTarget, requestID: String?, steps: ResponseSteps, logger: Logger
) async -> (Int, Int) {
    var response: Response
    do {
        response = try await handler(request)
    } catch {
        if let rejection = (error as? RequestBodyError)?.rejection {
            // The connection answered already (and logged why): the request's status is that answer.
            return (Int(rejection.status.code), 0)
        }
        if !Task.isCancelled {
            logger.error("handler failed", metadata: ["method": "\(request.head.method.rawValue)", "path": "\(LogRedaction.target(request.head.path ?? ""))", "error": "\(LogRedaction.scrub("\(error)"))"])
        }
        response = Response(status: .internalServerError, headerFields: [.contentType: "text/plain; charset=utf-8"], body: .init(string: "Internal Server Error\n"))
    }
    steps.apply(to: &response, for: request.head, requestID: requestID)
    let status = response.head.status.code
    let length: Int64?
    let write: @Sendable (ResponseBodyWriter) async throws -> Void
    switch response.body.storage {
    case .empty:
        target.writeResponse(response.head, body: [])
        return (status, 0)
    case .bytes(let bytes):
        target.writeResponse(response.head, body: bytes)
        return (status, request.head.method == .head ? 0 : bytes.count)
    case .stream(let streamLength, let streamWrite):
        (length, write) = (streamLength, streamWrite)
    }
    target.writeStreamHead(response.head, length: length)
    guard request.head.method != .head else {
        target.finishStream()
        return (status, 0)
    }
    let counter = CountingSink(target)
    do {
        try await write(ResponseBodyWriter(sink: counter))
        target.finishStream()
    } catch {
        if !(error is ResponseBodyError) && !Task.isCancelled {
            logger.error("response body failed", metadata: ["method": "\(request.head.method.rawValue)", "path": "\(LogRedaction.target(request.head.path ?? ""))", "error": "\(LogRedaction.scrub("\(error)"))"])
        }
        target.abortStream()
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
}
