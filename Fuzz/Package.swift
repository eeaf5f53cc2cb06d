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
/// only adds it by itself to debug builds). Whisker has one product, the umbrella `Whisker`
/// (with WhiskerTesting for tests); the layer modules a target imports (WhiskerSockets,
/// WhiskerHTTP, WhiskerCore, WhiskerHTTP2, OpenAPIWhisker) are built as its dependencies, so a
/// target depending on the product imports them by name.
/// One libFuzzer executable: its own folder under Sources/, FuzzSupport and Whisker.
func fuzzTarget(_ name: String) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport", .product(name: "Whisker", package: "whisker"), .product(name: "HTTPTypes", package: "swift-http-types")]
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
                .product(name: "Whisker", package: "whisker"),
                .product(name: "WhiskerTesting", package: "whisker"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        fuzzTarget("FuzzHTTP1Parser"),
        fuzzTarget("FuzzRouter"),
        fuzzTarget("FuzzH2CUpgrade"),
        fuzzTarget("FuzzByteRanges"),
        fuzzTarget("FuzzHTTP2Session"),
        fuzzTarget("FuzzHTTP1Connection"),
        fuzzTarget("FuzzHTTP2Connection"),
        fuzzTarget("FuzzDocumentReaders"),
    ]
)
