public import Foundation
public import OpenAPIRuntime
public import OpenAPIWhisker
public import WhiskerCore

/// The CatService's operations, ready to serve: what `cat-service` registers on its server, and
/// what its tests (Tests/CatServiceTests) call through a client generated from the same document.
///
/// The server code swift-openapi-generator makes from openapi.yaml (`APIProtocol`, `Operations`,
/// `Components`, `Servers`) stays internal to this module, behind this type: a test target that
/// generates its own client (and so its own `Operations` and `Components`) imports both without
/// their names clashing.
///
///     let server = WhiskerServer(configuration: ...)
///     let transport = CatServiceOperations.transport(on: server)
///     try CatServiceOperations().registerHandlers(on: transport)
public struct CatServiceOperations: Sendable {
    let handler: CatHandler

    /// The operations, serving the clip bundled with this module (`cat.mp4`).
    /// - Throws: ``MissingResourceError`` if the clip is missing from the bundle or unreadable.
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

    /// A transport on `server` with the request body limits of the two uploads: 64 MiB for
    /// `POST /api/census`, 1 KiB for `POST /api/adopt`.
    public static func transport(on server: WhiskerServer) -> WhiskerTransport {
        WhiskerTransport(server, requestBodyLimits: CatHandler.requestBodyLimits.mapValues { .maximum($0) })
    }

    /// Registers every operation on `transport` under `serverURL` (the document's by default),
    /// with the service's middleware: integer query errors as plain-text 400s, and the clip's `ETag`.
    public func registerHandlers(on transport: any ServerTransport, serverURL: URL? = nil) throws {
        try handler.registerHandlers(
            on: transport,
            serverURL: try serverURL ?? Self.serverURL(),
            middlewares: [QueryIntegerErrorMiddleware(), ClipValidatorMiddleware(etag: handler.clipETag)]
        )
    }
}
