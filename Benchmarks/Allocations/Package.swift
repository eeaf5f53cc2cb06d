// swift-tools-version: 6.2
import PackageDescription

/// The allocation budget (issue 25, grown in issue 41): mallocs per request for HTTP/1.1
/// keep-alive, h2c, the OpenAPI transport, the demo's `?count=3` and JSON body with validation,
/// and h2 over TLS, counted in process by ordo-one/benchmark (package-benchmark) with its
/// malloc interposer, and checked against Thresholds/ by `make test-budget` (README.md).
///
/// A nested package, so that the library's own Package.swift gains no dependency: a server that
/// depends on Whisker never fetches package-benchmark. The budget reaches the server through
/// public API only (WhiskerTesting's `InMemoryConnection`), so it builds without
/// `-enable-testing`; the micro-benchmarks also use two `@_spi(Benchmarks)` entry points.
///
/// package-benchmark's `swift package benchmark` finds benchmark executables in a folder named
/// `Benchmarks` at the package's root, hence Benchmarks/Allocations/Benchmarks/AllocationBudget.
let package = Package(
    name: "whisker-allocations",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "whisker", path: "../.."),
        // Only the malloc interposer: the default traits also bring the Swift runtime interposer
        // (ARC counters on Swift 6.3 for Linux), which nothing here measures.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // OpenSSL from the system, for h2-tls's blocking client (the library's COpenSSL is not a
        // product: a dependent package cannot import it).
        .systemLibrary(name: "CBudgetOpenSSL", path: "Sources/CBudgetOpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .executableTarget(
            name: "AllocationBudget",
            dependencies: [
                "CBudgetOpenSSL",
                .product(name: "Benchmark", package: "benchmark"),
                // The umbrella product; the benchmark imports the layer modules it measures
                // (WhiskerCore, WhiskerHTTP2, OpenAPIWhisker), which it builds.
                .product(name: "Whisker", package: "whisker"),
                .product(name: "WhiskerTesting", package: "whisker"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Benchmarks/AllocationBudget"
        ),
        // The per-layer micro-benchmarks (`make bench-layers`, not part of `make test`): time
        // and mallocs per operation of the parser, router, query decoding, validation, response
        // head and framing. The layers that are `package` in Whisker are reached through small
        // `@_spi(Benchmarks)` entry points (WhiskerHTTP's HTTP1Benchmarks,
        // OpenAPIWhiskerDocument's RequestValidatorBenchmark).
        .executableTarget(
            name: "Layers",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Whisker", package: "whisker"),
                .product(name: "WhiskerTesting", package: "whisker"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Benchmarks/Layers"
        ),
    ]
)
