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
    /// What the connection started with before HTTP (the PROXY protocol header), if its listener
    /// expects one.
    package let preamble: ConnectionPreamble?
    /// The options of the listener the connection came to.
    package let listenerOptions: ListenerOptions

    package init(
        peer: SocketAddress, httpVersion: RequestContext.HTTPVersion, tls: TLSDetails?, executor: DispatchQueueExecutor,
        preamble: ConnectionPreamble? = nil, listenerOptions: ListenerOptions = ListenerOptions()
    ) {
        self.peer = peer
        self.httpVersion = httpVersion
        self.tls = tls
        self.executor = executor
        self.preamble = preamble
        self.listenerOptions = listenerOptions
    }
}

/// What became of a request handed to ``ServerContext/dispatch(_:origin:declaredLength:body:target:writeLocal:)``.
package enum DispatchOutcome {
    /// Its handler runs in this task; the request's id (for an answer the connection gives under
    /// the handler: ``ServerContext/response(for:to:requestID:)``).
    case started(Task<Void, Never>, requestID: String?)
    /// The server answered it itself (a health check, a preflight, 404, or 405 with `Allow`)
    /// through `writeLocal`.
    case answered
    /// Refused before a handler ran (a declared body over the route's limit, a coding the server
    /// does not decode): the connection answers it with ``ServerContext/answer(_:to:origin:write:)``,
    /// as it must close or stop the request afterwards.
    case rejected(HTTPRejection)
}

extension ServerContext {
    /// Routes one request and starts its handler, the same for every protocol: the path (without
    /// its query) is matched; a health check, a preflight and a miss (404, 405) are answered
    /// through ``answer(_:to:origin:write:)`` and `writeLocal`; a body declared larger than the
    /// limit is refused before the handler starts; else the handler starts on `origin`'s executor
    /// with the body `body` makes (`nil`: the request has none), given the minimum rate of the
    /// route's request body (`nil`: none), and writes its response to `target`.
    package func dispatch(
        _ head: HTTPRequest, origin: RequestOrigin, declaredLength: Int64?, body: (_ minRate: MinimumDataRate?) -> RequestBodyChannel?,
        target: any ResponseTarget, writeLocal: (Response) -> Void
    ) -> DispatchOutcome {
        let path = head.path ?? "/"
        // Searched as bytes: `firstIndex(of: Character)` walks grapheme clusters.
        let pathOnly = path[..<(path.utf8Index(of: UInt8(ascii: "?")) ?? path.endIndex)]
        let context = requestContext(for: head, origin: origin)
        if !earlyAnswers.isEmpty {
            let early = EarlyAnswerContext(methods: routeMethods, isReady: readiness.isReady, listenerOptions: origin.listenerOptions)
            for hook in earlyAnswers {
                guard let answer = hook.answer(head, path: pathOnly, context: early) else { continue }
                if case .rejection(let refusal, _) = answer {
                    logger.forRequest(context.requestID).info("rejected request", metadata: ["peer": "\(origin.peer)", "status": "\(refusal.status.code)", "reason": "\(LogValue.quoted(refusal.reason))"])
                }
                self.answer(answer, to: head, context: context, write: writeLocal)
                return .answered
            }
        }
        switch router.match(method: head.method, path: pathOnly) {
        case .found(let route, let parameters):
            if let declaredLength, let limit = route.bodyLimit, declaredLength > limit {
                return .rejected(HTTPRejection(.contentTooLarge, "request body of \(declaredLength) bytes is larger than \(limit) bytes"))
            }
            var head = head
            var decoding: RequestBody.Decoding?
            let channel = body(route.minBodyRate)
            if channel != nil, let requestDecoding = contributions.requestDecoding, head.headerFields.firstValue(.contentEncoding) != nil,
               let coding = head.headerFields[.contentEncoding] {
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
            return .started(startHandler(route, request: request, target: target, executor: origin.executor, context: context), requestID: context.requestID)
        case .methodNotAllowed(let allowed):
            answer(ResponseHeadWriter.routeMiss(method: head.method, path: pathOnly, allowed: allowed, serverMethods: router.methods), to: head, context: context, write: writeLocal)
        case .notFound:
            answer(ResponseHeadWriter.routeMiss(method: head.method, path: pathOnly, allowed: [], serverMethods: router.methods), to: head, context: context, write: writeLocal)
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

}
