// swift-tools-version: 6.2
import PackageDescription

/// Whisker: a small HTTP/1.1 server on BSD sockets and libdispatch, built to run the server stubs
/// that swift-openapi-generator generates. The layers are one module each (the module map is in
/// Sources/Whisker/Whisker.docc/Architecture.md, the layer rules in CONTRIBUTING.md); a user
/// depends on the one product, `Whisker`, and chooses features by trait.
let package = Package(
    name: "whisker",
    platforms: [.macOS(.v15)],
    products: [
        // The whole server in one import; the package's traits choose what it contains.
        .library(name: "Whisker", targets: ["Whisker"]),
        // Test support: in-process connections, a live server on a free port, and a
        // ClientTransport for a generated Client (as HummingbirdTesting is to Hummingbird).
        .library(name: "WhiskerTesting", targets: ["WhiskerTesting"]),
        // A server for an OpenAPI document with no code behind it: its examples, validated requests.
        .library(name: "WhiskerMock", targets: ["WhiskerMock"]),
        .executable(name: "whisker-mock", targets: ["WhiskerMockTool"]),
        // The target's openapi.yaml as `OpenAPIDocument.embedded`, at build time: list it next to
        // the generator's plugin and write `try WhiskerTransport(server, validatingAgainst: .embedded)`.
        .plugin(name: "WhiskerEmbedDocument", targets: ["WhiskerEmbedDocument"]),
    ],
    // `import Whisker` with the default traits is the whole server; a package that wants less says
    // `.package(url: ..., from: ..., traits: [])` (or names the ones it wants) and builds none of
    // the modules, nor links the system libraries, of the traits it leaves out.
    traits: [
        .trait(name: "TLS", description: "HTTPS and mutual TLS through OpenSSL (WhiskerTLS; Debian: libssl-dev)."),
        .trait(name: "HTTP2", description: "HTTP/2, h2c and h2 over TLS, through libnghttp2 (WhiskerHTTP2; Debian: libnghttp2-dev)."),
        .trait(name: "Compression", description: "zstd, Brotli and gzip responses, zstd, gzip and deflate uploads (WhiskerCompression; libzstd, zlib and Brotli)."),
        .trait(name: "Lifecycle", description: "WhiskerServer as a swift-service-lifecycle Service (WhiskerLifecycle)."),
        .trait(name: "Observability", description: "Metrics and tracing with OpenTelemetry names, through swift-metrics and swift-distributed-tracing (WhiskerObservability)."),
        .trait(name: "Redis", description: "Rate limits that instances share, in Redis, through libhiredis (WhiskerRedis; Debian: libhiredis-dev)."),
        .trait(name: "Configuration", description: "WhiskerServer.Configuration from environment variables and JSON or YAML files, through swift-configuration (WhiskerConfiguration)."),
        // On by default: the protocols. The other three bring packages a server may not want
        // (swift-configuration also links FoundationEssentials: the benchmark server's stripped
        // binary went from 3.4 to 7.1 MB with all three on), so a package asks for them:
        // `traits: [.defaults, "Lifecycle", "Observability", "Configuration"]`.
        .default(enabledTraits: ["TLS", "HTTP2", "Compression"]),
    ],
    dependencies: [
        // Without its default trait, FullFoundation: the runtime then uses FoundationEssentials
        // alone, so a server links neither libFoundation nor ICU (the FullFoundation parts,
        // ISO8601DateFormatter for dates and NSNull/NSNumber in OpenAPIValue, fall back to
        // FoundationEssentials' own). A package that depends on Whisker and on the runtime says
        // `traits: []` too: one dependent with the default trait turns it on for the whole build.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // `make docs`: the generate-documentation command plugin (DocC). It adds no code to the
        // library; a package that depends on Whisker fetches it (and SymbolKit) but builds neither.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // WhiskerConfiguration: the server's settings from environment variables and files.
        // Without its default trait, JSON: its JSONSnapshot parses with Foundation's JSONSerialization
        // (libFoundation and ICU); WhiskerJSONSnapshot and WhiskerYAMLSnapshot read files with the
        // document module's own readers instead.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: []),
    ],
    targets: [
        .target(name: "CWhiskerSystem"),
        // OpenSSL 3 from the system (Debian: libssl-dev); shim.h wraps the macros Swift cannot call.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        // libnghttp2 from the system (Debian: libnghttp2-dev), the 1.52 ssize_t session API.
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"]), .brew(["libnghttp2"])]),
        // zlib and the Brotli encoder from the system (Debian: zlib1g-dev, libbrotli-dev).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlienc", providers: [.apt(["libbrotli-dev"]), .brew(["brotli"])]),
        // Zstandard from the system (Debian: libzstd-dev): responses and uploads.
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
        // hiredis from the system (Debian: libhiredis-dev): the Redis store, with the Redis trait.
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"]), .brew(["hiredis"])]),
        // The Brotli decoder, for the compression tests only.
        .systemLibrary(name: "CBrotliDecoder", pkgConfig: "libbrotlidec", providers: [.apt(["libbrotli-dev"]), .brew(["brotli"])]),
        .target(name: "WhiskerSockets", dependencies: ["CWhiskerSystem"]),
        .target(
            name: "WhiskerHTTP2",
            dependencies: [
                "WhiskerCore", "WhiskerSockets", "CNGHTTP2", .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log"),
                // Its keys (http2.*), with the Configuration trait.
                .target(name: "WhiskerConfiguration", condition: .when(traits: ["Configuration"])),
            ]
        ),
        .target(
            name: "WhiskerTLS",
            dependencies: [
                "WhiskerCore", "WhiskerSockets", "COpenSSL", .product(name: "Logging", package: "swift-log"),
                // Its keys (tls.*), with the Configuration trait.
                .target(name: "WhiskerConfiguration", condition: .when(traits: ["Configuration"])),
            ]
        ),
        // What HTTP means, I/O-free: the HTTP/1.1 parser, framing and response heads, responses and
        // their bodies, byte ranges, validators. Under the core, which re-exports it.
        .target(name: "WhiskerHTTP", dependencies: ["WhiskerSockets", .product(name: "HTTPTypes", package: "swift-http-types")]),
        // The core knows neither TLS nor HTTP/2: they plug into its seam (Connection/).
        .target(
            name: "WhiskerCore",
            dependencies: [
                "WhiskerHTTP",
                "WhiskerSockets",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The OpenAPI document as data, I/O-free: the JSON and YAML readers, the JSON Schema subset,
        // the operations and their security schemes, request validation and the contract check.
        .target(
            name: "OpenAPIWhiskerDocument",
            dependencies: [
                "WhiskerCore",
                // The client certificate a mutualTLS security scheme authenticates.
                "WhiskerSockets",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Security and policies as swift-openapi-runtime `ServerMiddleware` values (the document's
        // checks, a rate limit, deprecation) that a user orders and scopes by operationID; what an
        // operation may take beyond its handler (OperationPolicy) and the machinery that applies it
        // (the rate limiter, the deadline the transport races).
        .target(
            name: "OpenAPIWhiskerPolicies",
            dependencies: [
                "WhiskerCore",
                // The document's checks (RequestValidator) that the validation middleware runs.
                "OpenAPIWhiskerDocument",
                // The deadline's timer (DispatchTime.adding) and the rate limit's client addresses.
                "WhiskerSockets",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The transport: the generated handlers as routes of the server, and the document's route
        // with its docs page.
        .target(
            name: "OpenAPIWhisker",
            dependencies: [
                "WhiskerCore", "OpenAPIWhiskerDocument", "OpenAPIWhiskerPolicies",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The docs page, compiled into the module as bytes (no resource bundle to ship beside
            // the binary, no Foundation `Bundle`).
            resources: [.embedInCode("DocsPage.html")]
        ),
        // A server that speaks HTTP/1.1 only: what it links shows the core needs no TLS or HTTP/2.
        // Built without the default traits (`swift build --disable-default-traits`), the server a
        // user gets who turns them off: HTTP/1.1 only, linking no OpenSSL, libnghttp2, zlib or Brotli.
        .executableTarget(
            name: "HTTP1OnlyExample",
            dependencies: [
                "Whisker",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The document embedded at build time: the plugin finds the target's openapi.yaml (as the
        // generator's plugin does) and runs the tool, which writes `OpenAPIDocument.embedded` as
        // a raw string literal. The tool has no dependencies, Foundation included: a package that
        // depends on Whisker builds it in a second.
        .executableTarget(name: "WhiskerEmbedDocumentTool"),
        .plugin(name: "WhiskerEmbedDocument", capability: .buildTool(), dependencies: ["WhiskerEmbedDocumentTool"]),
        // The one import: the core, the transport and the modules without system libraries always;
        // HTTPS, HTTP/2, compression, the service-lifecycle Service, metrics and tracing, and
        // settings from files with their traits (the first three on by default).
        .target(name: "Whisker", dependencies: [
            "WhiskerCore", "WhiskerCORS", "WhiskerHealth", "WhiskerProxies", "WhiskerWebSocket", "WhiskerStaticFiles", "OpenAPIWhisker", "OpenAPIWhiskerDocument", "OpenAPIWhiskerPolicies",
            .target(name: "WhiskerTLS", condition: .when(traits: ["TLS"])),
            .target(name: "WhiskerHTTP2", condition: .when(traits: ["HTTP2"])),
            .target(name: "WhiskerCompression", condition: .when(traits: ["Compression"])),
            .target(name: "WhiskerLifecycle", condition: .when(traits: ["Lifecycle"])),
            .target(name: "WhiskerObservability", condition: .when(traits: ["Observability"])),
            .target(name: "WhiskerConfiguration", condition: .when(traits: ["Configuration"])),
            .target(name: "WhiskerRedis", condition: .when(traits: ["Redis"])),
            // WhiskerServer.Configuration.init(_:) over a ConfigReader, reading every module's keys.
            .product(name: "Configuration", package: "swift-configuration", condition: .when(traits: ["Configuration"])),
        ]),
        // Settings from swift-configuration's providers (environment variables, JSON or YAML files,
        // memory): the typed reads whose errors name the key and its source, the server's own keys
        // (listeners, limits, timeouts), and the composition of the groups of keys that each feature
        // module reads itself (its +ConfigReader file, with the Configuration trait). It knows no
        // feature module: they depend on it; the umbrella lists them (ConfigurationKeys.whisker).
        .target(
            name: "WhiskerConfiguration",
            dependencies: ["WhiskerCore", .product(name: "Configuration", package: "swift-configuration")]
        ),
        // Trusted reverse proxies: the PROXY protocol header before HTTP and Forwarded / X-Forwarded-For,
        // through the core's ProxyTrust hook.
        .target(
            name: "WhiskerProxies",
            dependencies: [
                "WhiskerCore", "WhiskerSockets", .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log"),
                .target(name: "WhiskerConfiguration", condition: .when(traits: ["Configuration"])),
            ]
        ),
        // WebSocket (RFC 6455): the I/O-free protocol (frames, messages, the close handshake, the
        // opening handshake with its own base64 and WhiskerHTTP's SHA-1) and the connection that takes over an
        // upgraded HTTP/1.1 connection through the core's public seam. Always built; zlib, for
        // permessage-deflate (RFC 7692), only with the Compression trait (without it, offers are
        // declined and nothing links zlib).
        .target(
            name: "WhiskerWebSocket",
            dependencies: [
                "WhiskerCore", "WhiskerSockets", "WhiskerHTTP",
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log"),
                .target(name: "CZlib", condition: .when(traits: ["Compression"])),
            ]
        ),
        // Static files beside the API: a directory under a prefix, through the core's fallback
        // after routing, sent with sendfile(2) through the response body's file region.
        .target(
            name: "WhiskerStaticFiles",
            dependencies: ["WhiskerCore", "WhiskerHTTP", .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log")]
        ),
        // Liveness and readiness routes, answered before routing through the core's EarlyAnswer hook.
        .target(name: "WhiskerHealth", dependencies: ["WhiskerCore", .product(name: "HTTPTypes", package: "swift-http-types"), .target(name: "WhiskerConfiguration", condition: .when(traits: ["Configuration"]))]),
        // CORS: preflights answered before routing and every response's fields, through the
        // core's hooks (EarlyAnswer, ResponseStep).
        .target(name: "WhiskerCORS", dependencies: ["WhiskerCore", .product(name: "HTTPTypes", package: "swift-http-types"), .target(name: "WhiskerConfiguration", condition: .when(traits: ["Configuration"]))]),
        // Response compression (zstd, br, gzip) and upload decoding through the core's hooks; off until configured.
        .target(
            name: "WhiskerCompression",
            dependencies: ["WhiskerCore", "CZlib", "CBrotli", "CZstd", .product(name: "HTTPTypes", package: "swift-http-types"), .target(name: "WhiskerConfiguration", condition: .when(traits: ["Configuration"]))]
        ),
        // Metrics and tracing (OpenTelemetry names) as a RequestObserver: its own module, so that a
        // server that observes nothing builds and links none of swift-metrics and swift-distributed-tracing.
        .target(
            name: "WhiskerObservability",
            dependencies: [
                "WhiskerCore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // Its own module, so that a server without swift-service-lifecycle does not build it
        // (nor swift-async-algorithms and swift-collections, which it brings).
        // Stores that instances share, in Redis: the rate limits' buckets (a RateLimitStore) through
        // the system's libhiredis, with the Redis trait; its failures counted through swift-metrics.
        .target(
            name: "WhiskerRedis",
            dependencies: [
                "OpenAPIWhiskerPolicies", "CHiredis",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "WhiskerLifecycle",
            dependencies: ["WhiskerCore", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        .target(
            name: "WhiskerMock",
            dependencies: [
                "OpenAPIWhisker", "OpenAPIWhiskerDocument", "WhiskerCore",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .executableTarget(name: "WhiskerMockTool", dependencies: ["Whisker", "WhiskerMock"]),
        .target(
            name: "WhiskerTesting",
            dependencies: [
                "WhiskerCore", "WhiskerSockets", "WhiskerTLS", "WhiskerHTTP2", "WhiskerProxies", "COpenSSL", "CNGHTTP2",
                // DocumentExamples: the document's request examples, replayed as tests.
                "OpenAPIWhiskerDocument",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                // WhiskerTestTransport: a generated Client's ClientTransport, in process or live.
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]
        ),
        .testTarget(name: "WhiskerSocketsTests", dependencies: ["WhiskerSockets", "WhiskerTesting"]),
        .testTarget(name: "WhiskerHTTPTests", dependencies: ["WhiskerHTTP", .product(name: "HTTPTypes", package: "swift-http-types")]),
        // One test target per module, its folders mirroring the module's; each depends on the module
        // it tests, what that module plugs into, and WhiskerTesting (the shared test support).
        .testTarget(
            name: "WhiskerCoreTests",
            dependencies: [
                "WhiskerCore", "WhiskerSockets", "WhiskerTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "WhiskerTLSTests",
            dependencies: [
                "WhiskerTLS", "WhiskerCore", "WhiskerSockets", "WhiskerProxies", "WhiskerTesting", "COpenSSL",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // HTTP/2, and h2 over TLS (ALPN), hence WhiskerTLS.
        .testTarget(
            name: "WhiskerHTTP2Tests",
            dependencies: [
                "WhiskerHTTP2", "WhiskerTLS", "WhiskerCore", "WhiskerSockets", "WhiskerTesting", "CNGHTTP2", "WhiskerProxies",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Metrics and spans after real requests, over HTTP/1.1 and HTTP/2, hence WhiskerHTTP2; every kind
        // of answer, a 415 for a coding among them, hence WhiskerCompression.
        .testTarget(
            name: "WhiskerObservabilityTests",
            dependencies: [
                "WhiskerObservability", "WhiskerCore", "WhiskerHTTP2", "WhiskerCompression", "WhiskerCORS", "WhiskerHealth", "WhiskerTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "WhiskerCompressionTests",
            dependencies: [
                "WhiskerCompression", "WhiskerCore", "WhiskerTesting", "CZlib", "CBrotliDecoder", "CZstd",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "WhiskerWebSocketTests",
            dependencies: [
                "WhiskerWebSocket", "WhiskerCore", "WhiskerSockets", "WhiskerTesting", "WhiskerHTTP2",
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log"),
                // A client's compressor of its own, for permessage-deflate's tests.
                .target(name: "CZlib", condition: .when(traits: ["Compression"])),
            ]
        ),
        // Over HTTP/1.1, h2c and TLS, hence WhiskerHTTP2 and WhiskerTLS.
        .testTarget(
            name: "WhiskerStaticFilesTests",
            dependencies: [
                "WhiskerStaticFiles", "WhiskerCore", "WhiskerSockets", "WhiskerTesting", "WhiskerHTTP2", "WhiskerTLS",
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["TraversalCorpus.txt"]
        ),
        .testTarget(
            name: "WhiskerCORSTests",
            dependencies: ["WhiskerCORS", "WhiskerCore", "WhiskerTesting", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        .testTarget(
            name: "WhiskerHealthTests",
            dependencies: ["WhiskerHealth", "WhiskerCore", "WhiskerSockets", "WhiskerTesting", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        .testTarget(
            name: "WhiskerProxiesTests",
            dependencies: [
                "WhiskerProxies", "WhiskerCore", "WhiskerSockets", "WhiskerTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "WhiskerLifecycleTests",
            dependencies: [
                "WhiskerLifecycle", "WhiskerCore", "WhiskerTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // WhiskerTesting's own: WhiskerTestTransport, in process and live, over HTTP/1.1 and h2c.
        .testTarget(
            name: "WhiskerMockTests",
            dependencies: [
                "WhiskerMock", "WhiskerTesting", "WhiskerCore", "OpenAPIWhiskerDocument",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "WhiskerTestingTests",
            dependencies: [
                "WhiskerTesting", "WhiskerCore", "WhiskerHTTP2", "OpenAPIWhiskerDocument",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Every key group read from in-memory providers, defaults, and bad values naming key and source:
        // the modules' readers exist with the Configuration trait (`make test-lib` turns it on), and
        // Whisker composes them (WhiskerServer.Configuration.init(_:)).
        .testTarget(
            name: "WhiskerConfigurationTests",
            dependencies: [
                "Whisker", "WhiskerConfiguration", "WhiskerCore", "WhiskerTLS", "WhiskerHTTP2", "WhiskerCompression", "WhiskerCORS",
                "WhiskerHealth", "WhiskerProxies",
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
        // The tool's literals, compiled with swiftc and compared byte for byte with the documents.
        // It compiles the tool's EmbeddedDocumentSource.swift itself (a symlink): a test bundle
        // that depended on the executable, which the plugin also builds as its tool, would link
        // the tool's code twice.
        .testTarget(name: "WhiskerEmbedDocumentToolTests"),
        // The plugin as a user lists it: this target's openapi.yaml (a symlink into Documents/)
        // embedded as OpenAPIDocument.embedded.
        .testTarget(
            name: "WhiskerEmbedDocumentTests",
            dependencies: ["Whisker"],
            exclude: ["Documents"],
            plugins: ["WhiskerEmbedDocument"]
        ),
        // The readers, the schema keywords and the parameter styles, from strings, with no server;
        // the runtime's Converter (its `Generated` SPI) encodes parameters as the generated client does.
        .testTarget(
            name: "OpenAPIWhiskerDocumentTests",
            dependencies: [
                "OpenAPIWhiskerDocument", "WhiskerCore",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Against a real redis-server the tests start on loopback (Debian: redis-server, make deps).
        .testTarget(
            name: "WhiskerRedisTests",
            dependencies: [
                "WhiskerRedis", "OpenAPIWhiskerPolicies", "OpenAPIWhisker", "WhiskerCore", "WhiskerTesting",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // CWhiskerSystem: the heap figure (mallinfo2) the rate limiter's memory test reads.
        .testTarget(
            name: "OpenAPIWhiskerTests",
            dependencies: [
                "OpenAPIWhisker", "OpenAPIWhiskerDocument", "OpenAPIWhiskerPolicies", "WhiskerCore", "WhiskerHTTP2", "WhiskerTesting", "CWhiskerSystem",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ]
)

for target in package.targets where target.type != .system && target.type != .plugin {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
