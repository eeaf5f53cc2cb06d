// Whisker in one import: the server (WhiskerCore), HTTPS (WhiskerTLS), HTTP/2 (WhiskerHTTP2),
// response compression (WhiskerCompression), CORS (WhiskerCORS), health checks (WhiskerHealth),
// trusted reverse proxies (WhiskerProxies) and the swift-openapi-generator transport (OpenAPIWhisker).
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
// A server that needs neither TLS, HTTP/2 nor compression imports WhiskerCore and OpenAPIWhisker
// instead and links none of OpenSSL, libnghttp2, zlib and libbrotlienc.
@_exported public import WhiskerCore
@_exported public import WhiskerTLS
@_exported public import WhiskerHTTP2
@_exported public import WhiskerCompression
@_exported public import WhiskerCORS
@_exported public import WhiskerHealth
@_exported public import WhiskerProxies
@_exported public import OpenAPIWhisker
