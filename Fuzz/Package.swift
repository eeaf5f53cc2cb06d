// swift-tools-version: 6.2
import PackageDescription

/// libFuzzer targets for Whisker's parsers (issue 12). A nested package, so that nothing of it is
/// built by `make build` or `make test`; `make fuzz` builds it with
/// `swift build --package-path Fuzz -c release --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=address -Xswiftc -enable-testing`
/// (Fuzz/fuzz.sh says why not `--sanitize=address` too) and runs each target for a bounded time
/// (Fuzz/README.md).
///
/// The targets reach Whisker's internal and package declarations with `@testable import`, which
/// needs the root package's modules compiled with `-enable-testing` (the `-Xswiftc` above; SwiftPM
/// only adds it by itself to debug builds).
/// One libFuzzer executable: its own folder under Sources/, FuzzSupport and the Whisker modules it reads.
func fuzzTarget(_ name: String, _ modules: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport", .product(name: "HTTPTypes", package: "swift-http-types")]
            + modules.map { .product(name: $0, package: "whisker") }
    )
}

let package = Package(
    name: "whisker-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "whisker", path: ".."),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // What the targets share: reading the fuzzer's bytes (split points, small numbers), and the
    // harness that drives a real connection over an in-memory stream.
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "WhiskerHTTP", package: "whisker"),
                .product(name: "WhiskerCore", package: "whisker"),
                .product(name: "WhiskerSockets", package: "whisker"),
                .product(name: "WhiskerTesting", package: "whisker"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        fuzzTarget("FuzzHTTP1Parser", ["WhiskerHTTP", "WhiskerHTTP2", "WhiskerCore", "WhiskerSockets"]),
        fuzzTarget("FuzzRouter", ["WhiskerHTTP", "WhiskerCore"]),
        fuzzTarget("FuzzH2CUpgrade", ["WhiskerHTTP", "WhiskerHTTP2", "WhiskerCore", "WhiskerSockets"]),
        fuzzTarget("FuzzByteRanges", ["WhiskerHTTP", "WhiskerCore"]),
        fuzzTarget("FuzzHTTP2Session", ["WhiskerHTTP", "WhiskerHTTP2", "WhiskerCore"]),
        fuzzTarget("FuzzHTTP1Connection", ["WhiskerHTTP", "WhiskerCore"]),
        fuzzTarget("FuzzHTTP2Connection", ["WhiskerHTTP", "WhiskerHTTP2", "WhiskerCore"]),
        fuzzTarget("FuzzDocumentReaders", ["OpenAPIWhisker"]),
    ]
)
