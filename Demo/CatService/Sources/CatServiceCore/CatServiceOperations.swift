#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import OpenAPIRuntime
public import Whisker

/// The CatService's operations, ready to serve: what `cat-service` registers on its server, and
/// what its tests (Tests/CatServiceTests) call through a client generated from the same document.
///
/// The server code swift-openapi-generator makes from openapi.yaml (`APIProtocol`, `Operations`,
/// `Components`, `Servers`) stays internal to this module, behind this type: a test target that
/// generates its own client (and so its own `Operations` and `Components`) imports both without
/// their names clashing.
///
///     let server = WhiskerServer(configuration: ...)
///     let operations = try CatServiceOperations()
///     try operations.registerHandlers(on: operations.transport(on: server))
public struct CatServiceOperations: Sendable {
    let handler: CatHandler

    /// The operations, serving the clip compiled into this module (`cat.mp4`, through CatClip).
    /// - Throws: ``MissingResourceError`` if the clip compiled in is empty.
    public init() throws {
        handler = try CatHandler()
    }

    /// The operations, serving `clip` as `GET /clip`.
    public init(clip: ArraySlice<UInt8>) {
        handler = CatHandler(clip: clip)
    }

    /// The bytes `GET /clip` answers.
    public var clip: ArraySlice<UInt8> { handler.clip }

    /// The strong entity tag `GET /clip` answers with.
    public var clipETag: String { handler.clipETag }

    /// The document's server URL, `http://localhost:8080/api`: its path, `/api`, is where the
    /// operations are registered.
    public static func serverURL() throws -> URL {
        try Servers.Server1.url()
    }

    /// The document the operations were generated from, embedded at build time: what
    /// `cat-service` serves, validates requests against, and checks its responses against.
    public static func document() throws -> OpenAPIDocument {
        try .catService()
    }

    /// What the operations may take beyond their body limits: how long an event stream and a
    /// census may run, how many adoptions a client may ask for, and where their idempotency keys live.
    public struct Policies: Sendable {
        /// The deadline of `GET /api/emoji/stream`: a stream still running then is ended (the
        /// longest one asked for, 100 events 5 s apart, takes 495 s).
        public var streamDeadline: Duration = .seconds(600)
        /// The deadline of `POST /api/census`, its upload included: past it, 503.
        public var censusDeadline: Duration = .seconds(120)
        /// Adoptions (`POST /api/adopt`) per client address: past it, 429.
        public var adoptions = RateLimit(20, per: .seconds(60))
        /// Adoptions' idempotency keys (the document's `x-idempotency: optional`), in memory
        /// unless `--store` shares them.
        public var adoptionKeys = IdempotencyKeys(.optional)

        public init() {}

        /// The operations' policies, by operationId (or, for a transport without the document,
        /// by method and path as registered), with the two middlewares that concern one operation
        /// each: the clip's `ETag` and the report's guard. As policies they run for their
        /// operation alone; given to `registerHandlers` they would run (and cost an async call
        /// and task switches) for every request of every operation.
        func byOperation(registeredPaths: Bool, clipETag: String) -> [String: OperationPolicy] {
            [
                registeredPaths ? "GET /api/emoji/stream" : "getEmojiStream": OperationPolicy(deadline: streamDeadline),
                registeredPaths ? "POST /api/census" : "countCats": OperationPolicy(deadline: censusDeadline),
                registeredPaths ? "POST /api/adopt" : "adoptCat": OperationPolicy(rateLimit: adoptions, idempotency: adoptionKeys),
                registeredPaths ? "GET /api/clip" : "getClip": OperationPolicy(middlewares: [ClipValidatorMiddleware(etag: clipETag)]),
                registeredPaths ? "GET /api/report" : "getShelterReport": OperationPolicy(middlewares: [ReportGuardMiddleware()]),
            ]
        }
    }

    /// A transport on `server` with the request body limits of the two uploads (64 MiB for
    /// `POST /api/census`, 1 KiB for `POST /api/adopt`) and `policies`, that checks each request
    /// against the document before its handler runs, unless `validating` is `false`, and
    /// `GET /report`'s bearer token: `reportTokens` hold `reports:read`, `visitorTokens` nothing
    /// (403); any other, 401. Without validation the report is refused to everyone
    /// (``ReportGuardMiddleware``).
    public func transport(
        on server: WhiskerServer, validating: Bool = true, reportTokens: Set<String> = [], visitorTokens: Set<String> = [],
        policies: Policies = Policies()
    ) throws -> WhiskerTransport {
        let limits = CatHandler.requestBodyLimits.mapValues { RequestBodyLimit.maximum($0) }
        guard validating else {
            return WhiskerTransport(server, requestBodyLimits: limits, policies: policies.byOperation(registeredPaths: true, clipETag: clipETag))
        }
        return try WhiskerTransport(server, requestBodyLimits: limits, validatingAgainst: Self.document(), authenticators: [
            "shelterToken": { credential in
                guard let token = credential.bearerToken else { return nil }
                if reportTokens.contains(token) { return Principal(name: "staff", scopes: ["reports:read"]) }
                if visitorTokens.contains(token) { return Principal(name: "visitor") }
                return nil
            },
        ], policies: policies.byOperation(registeredPaths: false, clipETag: clipETag))
    }

    /// Registers every operation on `transport` under `serverURL` (the document's by default).
    /// The clip's `ETag` and the report's guard are middlewares of their operations' policies
    /// (``transport(on:validating:reportTokens:visitorTokens:policies:)``).
    public func registerHandlers(on transport: any ServerTransport, serverURL: URL? = nil) throws {
        try handler.registerHandlers(on: transport, serverURL: try serverURL ?? Self.serverURL())
    }
}
