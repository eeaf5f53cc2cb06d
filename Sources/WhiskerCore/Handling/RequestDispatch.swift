package import HTTPTypes
import Logging
package import WhiskerSockets

/// Where a request came from: what its handler's ``RequestContext`` and the observer are told,
/// and the executor its handler task runs on (the connection's worker).
package struct RequestOrigin {
    package let peer: SocketAddress
    package let httpVersion: RequestContext.HTTPVersion
    package let tls: TLSDetails?
    package let executor: DispatchQueueExecutor
    /// The PROXY protocol header the connection started with, if its listener requires one.
    package var proxyHeader: ProxyProtocolHeader? { boxedProxyHeader?.value }
    private let boxedProxyHeader: SharedValue<ProxyProtocolHeader>?
    /// The connection came to the health checks' own listener: it is answered nothing else.
    package let servesOnlyHealth: Bool

    package init(
        peer: SocketAddress, httpVersion: RequestContext.HTTPVersion, tls: TLSDetails?, executor: DispatchQueueExecutor,
        proxyHeader: SharedValue<ProxyProtocolHeader>? = nil, servesOnlyHealth: Bool = false
    ) {
        self.peer = peer
        self.httpVersion = httpVersion
        self.tls = tls
        self.executor = executor
        self.boxedProxyHeader = proxyHeader
        self.servesOnlyHealth = servesOnlyHealth
    }
}

/// What became of a request handed to ``ServerContext/dispatch(_:origin:declaredLength:body:target:writeLocal:)``.
package enum DispatchOutcome {
    /// Its handler runs in this task.
    case started(Task<Void, Never>)
    /// The server answered it itself (404, or 405 with `Allow`) through `writeLocal`.
    case answered
    /// Refused before a handler ran: a declared body over ``WhiskerServer/Limits/maxRequestBodySize``.
    case rejected(HTTPRejection)
}

extension ServerContext {
    /// Routes one request and starts its handler, the same for every protocol: the path (without
    /// its query) is matched; a miss is answered 404 or 405 (observed like a handled request when
    /// a ``RequestObserver`` is set); a body declared larger than the limit is refused before the
    /// handler starts; else the handler starts on `origin`'s executor with the body `body` makes
    /// (`nil`: the request has none), and writes its response to `target`.
    package func dispatch(
        _ head: HTTPRequest, origin: RequestOrigin, declaredLength: Int64?, body: () -> RequestBodyChannel?,
        target: any ResponseTarget, writeLocal: (Response) -> Void
    ) -> DispatchOutcome {
        let path = head.path ?? "/"
        let pathOnly = path[..<(path.firstIndex(of: "?") ?? path.endIndex)]
        if let health = configuration.healthChecks, health.port == nil || origin.servesOnlyHealth,
           let answer = health.answer(head.method, path: pathOnly, isReady: readiness.isReady) ?? (origin.servesOnlyHealth ? WhiskerServer.HealthChecks.notFound : nil) {
            writeLocal(answer)
            return .answered
        }
        if let crossOrigin = responseSteps.crossOrigin,
           let answer = crossOrigin.preflight(head, path: pathOnly, methods: router.methods(path:)) {
            if let refusal = answer.refusal {
                logger.info("rejected request", metadata: ["peer": "\(origin.peer)", "status": "\(answer.response.head.status.code)", "reason": "\(refusal)"])
            }
            writeLocal(answer.response)
            return .answered
        }
        switch router.match(method: head.method, path: pathOnly) {
        case .found(let route, let parameters):
            if let declaredLength, let limit = route.bodyLimit, declaredLength > limit {
                return .rejected(HTTPRejection(.contentTooLarge, "request body of \(declaredLength) bytes is larger than \(limit) bytes"))
            }
            var head = head
            var decoding: RequestBody.Decoding?
            let channel = body()
            if channel != nil, let requestDecoding = configuration.requestDecoding, let coding = head.headerFields[.contentEncoding] {
                switch Self.decoding(coding, by: requestDecoding) {
                case .identity: break
                case .decode(let made):
                    decoding = made
                    // The handler reads the decoded body: its coding and coded length are gone.
                    head.headerFields[.contentEncoding] = nil
                    head.headerFields[.contentLength] = nil
                case .unsupported(let rejection): return .rejected(rejection)
                }
            }
            let requestBody = channel.map {
                RequestBody(length: decoding == nil ? declaredLength : nil, channel: $0, limit: route.bodyLimit, decoding: decoding)
            }
            let request = Request(head: head, body: requestBody, pathParameters: parameters, peer: origin.peer)
            return .started(startHandler(route, request: request, target: target, origin: origin))
        case .methodNotAllowed(let allowed):
            answerRouteMiss(head, path: pathOnly, allowed: allowed, origin: origin, writeLocal: writeLocal)
        case .notFound:
            answerRouteMiss(head, path: pathOnly, allowed: [], origin: origin, writeLocal: writeLocal)
        }
        return .answered
    }

    private enum BodyDecoding {
        case identity
        case decode(RequestBody.Decoding)
        case unsupported(HTTPRejection)
    }

    /// What to do with a body whose `Content-Encoding` is `field`: one coding the server decodes,
    /// or `identity`; several codings, or one it does not know, get 415.
    private static func decoding(_ field: String, by decoding: any RequestDecoding) -> BodyDecoding {
        let name = Substring(field).trimmingOWS().lowercased()
        guard !name.isEmpty, !name.contains(",") else {
            return .unsupported(HTTPRejection(.unsupportedMediaType, "request body codings \"\(field)\": one coding is decoded, not several"))
        }
        if name == "identity" { return .identity }
        guard decoding.supports(name) else { return .unsupported(.unsupportedCoding(name)) }
        return .decode(RequestBody.Decoding(makeDecoder: { decoding.decoder(for: name) }, maxRatio: decoding.maxRatio))
    }

    private func answerRouteMiss(_ head: HTTPRequest, path: Substring, allowed: [HTTPRequest.Method], origin: RequestOrigin, writeLocal: (Response) -> Void) {
        let response = ResponseHeadWriter.routeMiss(method: head.method, path: path, allowed: allowed, serverMethods: router.methods)
        guard let observer else { return writeLocal(response) }
        observer.observeLocalResponse(to: head, status: response.head.status.code, httpVersion: origin.httpVersion, isTLS: origin.tls != nil, peer: origin.peer) {
            writeLocal(response)
        }
    }
}
