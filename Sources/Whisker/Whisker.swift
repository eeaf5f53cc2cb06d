// Whisker in one import: the server (WhiskerCore), HTTPS (WhiskerTLS), HTTP/2 (WhiskerHTTP2),
// response compression (WhiskerCompression), CORS (WhiskerCORS), health checks (WhiskerHealth),
// trusted reverse proxies (WhiskerProxies), WebSocket (WhiskerWebSocket), static files beside the API
// (WhiskerStaticFiles: `try server.serveFiles(from: "Public", at: "/")`), the swift-openapi-generator
// transport (OpenAPIWhisker) and the document it validates against (OpenAPIWhiskerDocument) and the
// operations' policies (OpenAPIWhiskerPolicies),
// the swift-service-lifecycle Service (WhiskerLifecycle), metrics and tracing (WhiskerObservability),
// and settings from environment variables and files (WhiskerConfiguration, on swift-configuration).
//
//     import Whisker
//
//     var configuration = WhiskerServer.Configuration(host: "0.0.0.0", port: 8080)
//     configuration.http2 = HTTP2Settings()       // h2c here, h2 on an HTTPS listener
//     configuration.compression = CompressionSettings()   // br and gzip for text and JSON
//     let server = WhiskerServer(configuration: configuration)
//     let transport = WhiskerTransport(server)
//     try MyHandler().registerHandlers(on: transport, serverURL: try Servers.Server1.url())
//     try await server.run()
//
// HTTPS, HTTP/2 and compression come with the package's traits TLS, HTTP2 and Compression, on by
// default; the Service, observability and configuration files with Lifecycle, Observability and
// Configuration, which a package turns on: `traits: [.defaults, "Lifecycle", "Configuration"]`. A
// server that needs none of them depends on Whisker with `traits: []`, links none of OpenSSL,
// libnghttp2, zlib and libbrotlienc, and builds none of swift-service-lifecycle, swift-metrics,
// swift-distributed-tracing and swift-configuration (HTTP1OnlyExample is that server).
@_exported public import WhiskerCore
@_exported public import WhiskerCORS
@_exported public import WhiskerHealth
@_exported public import WhiskerProxies
@_exported public import WhiskerWebSocket
@_exported public import WhiskerStaticFiles
@_exported public import OpenAPIWhisker
@_exported public import OpenAPIWhiskerDocument
@_exported public import OpenAPIWhiskerPolicies
#if TLS
@_exported public import WhiskerTLS
#endif
#if HTTP2
@_exported public import WhiskerHTTP2
#endif
#if Compression
@_exported public import WhiskerCompression
#endif
#if Lifecycle
@_exported public import WhiskerLifecycle
#endif
#if Observability
@_exported public import WhiskerObservability
#endif
#if Configuration
@_exported public import WhiskerConfiguration
#endif
#if Redis
@_exported public import WhiskerRedis
#endif
