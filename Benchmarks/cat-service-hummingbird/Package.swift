// swift-tools-version: 6.2
import PackageDescription

/// The CatService benchmark server on Hummingbird 2 (swift-openapi-hummingbird): the same
/// CatHandler, middleware and openapi.yaml as Demo/CatService (symlinked through Benchmarks/Shared).
/// Built by Benchmarks/bench.sh in release, in its own scratch path. HummingbirdHTTP2 (NIOHTTP2,
/// NIOSSL) serves h2c prior knowledge or h2 over TLS when CAT_H2C / CAT_TLS_CERT+CAT_TLS_KEY are set.
let package = Package(
    name: "cat-service-hummingbird",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "cat-service-hummingbird", targets: ["CatService"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .executableTarget(
            name: "CatService",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/cat.mp4")],
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
    ]
)
