// swift-tools-version: 6.2
import PackageDescription

/// `cat-service`: the WWDC23 "Meet Swift OpenAPI Generator" CatService, served by Whisker.
///
/// A nested package so that swift-openapi-generator (and its build plugin) stays out of the
/// Whisker library's dependency graph. Build it with
/// `swift build --package-path Demo/CatService --product cat-service`, or just `make run` at the root.
/// `swift test --package-path Demo/CatService` (`make test-demo-swift`) runs its typed tests.
let package = Package(
    name: "cat-service",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "cat-service", targets: ["CatService"]),
    ],
    dependencies: [
        // The default traits (HTTPS, HTTP/2, compression) and the three a daemon wants besides.
        .package(name: "whisker", path: "../..", traits: [.defaults, "Lifecycle", "Observability", "Configuration"]),
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The environment and the configuration file (--config), JSON or YAML, through Whisker's key table.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["JSON", "YAML"]),
    ],
    targets: [
        // The operations (CatHandler), their middleware, the clip and the document (openapi.yaml),
        // on the server code generated from it, which stays internal:
        // CatServiceOperations is what the executable and the tests see.
        .target(
            name: "CatServiceCore",
            dependencies: [
                .product(name: "Whisker", package: "whisker"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: ["Resources/README.md"],
            resources: [.copy("Resources/cat.mp4"), .copy("openapi.yaml")],
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .executableTarget(
            name: "CatService",
            dependencies: [
                "CatServiceCore",
                .product(name: "Whisker", package: "whisker"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            // openapi.yaml is a symlink to CatServiceCore's, which generates the server code from
            // it and bundles it (to serve and to validate against); kept here where readers look.
            exclude: ["openapi.yaml"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Every operation through a client generated ([types, client]) from the same document
        // (Tests/CatServiceTests/openapi.yaml, a symlink), in process and live, with
        // WhiskerTesting's WhiskerTestTransport. The shell tests beside it (run-all.sh) test the
        // built binary over the network.
        .testTarget(
            name: "CatServiceTests",
            dependencies: [
                "CatServiceCore",
                .product(name: "Whisker", package: "whisker"),
                .product(name: "WhiskerTesting", package: "whisker"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
    ]
)
