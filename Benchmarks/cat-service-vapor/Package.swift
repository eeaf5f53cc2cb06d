// swift-tools-version: 6.2
import PackageDescription

/// The CatService benchmark server on Vapor 4 (swift-openapi-vapor): the same
/// CatHandler, middleware and openapi.yaml as Demo/CatService (symlinked through Benchmarks/Shared).
/// Built by Benchmarks/bench.sh in release, in its own scratch path.
let package = Package(
    name: "cat-service-vapor",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "cat-service-vapor", targets: ["CatService"]),
    ],
    dependencies: [
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
        .package(url: "https://github.com/vapor/swift-openapi-vapor", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .executableTarget(
            name: "CatService",
            dependencies: [
                .product(name: "Vapor", package: "vapor"),
                .product(name: "OpenAPIVapor", package: "swift-openapi-vapor"),
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
