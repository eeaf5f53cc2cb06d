// swift-tools-version: 6.2
import PackageDescription

/// `cat-service`: the WWDC23 "Meet Swift OpenAPI Generator" CatService, served by Whisker.
///
/// A nested package so that swift-openapi-generator (and its build plugin) stays out of the
/// Whisker library's dependency graph. Build it with
/// `swift build --package-path Demo/CatService --product cat-service`, or just `make run` at the root.
/// `swift test --package-path Demo/CatService` (`make test-demo-swift`) runs its typed tests.
/// The generated code's `import struct Foundation.URL` (swift-openapi-generator 1.14.3 writes it)
/// makes the compiler ask the linker for libFoundation and FoundationInternationalization (an
/// autolink entry in every object file of the module, and of the modules that import it), though
/// URL, Date and Data are FoundationEssentials' and the server uses no symbol of either library.
/// Linked anyway, they map ICU and libstdc++ with them: 9 of a small server's 33 MiB (Whisker's
/// Performance.md, "What each MiB is"). The linker cannot drop them (`-Xlinker --as-needed` lands
/// after the autolinked libraries on its command line, where it changes nothing), so the two
/// modules that see the generated code do not ask for them. Should code here ever use a symbol
/// only libFoundation has, the link fails naming it: use FoundationEssentials, or remove this.
/// `make test-memory` (Scripts/check-memory.sh) fails if the server maps them again.
let notAutolinkingFoundation = SwiftSetting.unsafeFlags([
    "-Xfrontend", "-disable-autolink-library", "-Xfrontend", "Foundation",
    "-Xfrontend", "-disable-autolink-library", "-Xfrontend", "FoundationInternationalization",
])

/// How the release `cat-service` is linked on Linux (`make run`, `make test-memory` and `make bench` build
/// it so): 3.1 MiB less resident memory, idle 22.4 -> 19.3 MiB, peak 23.5 -> 20.5 (Whisker's
/// Performance.md, "What each MiB is", has the side-by-side figures and the commands). None of it drops a
/// page the server uses; the loader simply has less to read and write at every start:
/// - `-use-ld=lld`: the toolchain's lld instead of gold, which cannot pack relocations;
/// - `-z pack-relative-relocs` (RELR, glibc 2.36): the binary's 54,670 relative relocations (it is
///   position-independent) as a 10 KB bitmap instead of a 1.3 MB `.rela.dyn` the loader reads, and so
///   keeps resident, at every start (1.3 MiB);
/// - `--no-export-dynamic`: the static runtime's link arguments export every public symbol of the
///   program's own modules (13,180 in `.dynsym`, `.dynstr`, `.gnu.hash`: 1.2 MB the loader's symbol
///   lookups touch, since the program comes first in their scope). Nothing looks them up (the runtime's
///   `dlsym` calls look for libdispatch's and ThreadSanitizer's symbols, never exported); a crash's
///   backtrace reads the binary's own symbol table, so a binary stripped of it shows addresses only;
/// - `-L StaticLibraries`: the runtime's `-lstdc++` finds `StaticLibraries/libstdc++.a` (a link to
///   GCC 12's, Debian 12) before the shared library, so only the C++ the Swift runtime calls is linked
///   in, instead of mapping and relocating all of libstdc++.so (1.1 MiB). Where the link does not
///   resolve (another GCC), the linker takes the shared one and `make test-memory` fails, naming it.
/// Debian's OpenSSL, nghttp2, zlib and Brotli stay shared, so that their security updates apply
/// without a rebuild (a static OpenSSL would save 0.9 MiB more).
let leanLinking = LinkerSetting.unsafeFlags([
    "-use-ld=lld",
    "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
    "-Xlinker", "--no-export-dynamic",
    "-L", String(#filePath.dropLast("Package.swift".count)) + "StaticLibraries",
], .when(platforms: [.linux], configuration: .release))

let package = Package(
    name: "cat-service",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "cat-service", targets: ["CatService"]),
    ],
    dependencies: [
        // The default traits (HTTPS, HTTP/2, compression), the three a daemon wants besides, and
        // Redis, for rate limits that instances share (--rate-limit-store).
        .package(name: "whisker", path: "../..", traits: [.defaults, "Lifecycle", "Observability", "Configuration", "Redis"]),
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        // Without its default trait, FullFoundation, as Whisker depends on it: the runtime then uses
        // FoundationEssentials alone, and the server maps neither libFoundation nor ICU.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4", traits: []),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The environment and the configuration file (--config), JSON or YAML, through Whisker's key
        // table. None of its traits: its JSON and YAML snapshots link libFoundation (JSONSerialization,
        // Yams); Whisker's WhiskerJSONSnapshot and WhiskerYAMLSnapshot read both without it.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: []),
    ],
    targets: [
        // The clip GET /api/clip serves, compiled into the binary (C23 #embed of
        // CatServiceCore/Resources/cat.mp4): no resource bundle, hence no Foundation `Bundle`.
        .target(name: "CatClip"),
        // The operations (CatHandler), their middleware, the clip and the document (openapi.yaml),
        // on the server code generated from it, which stays internal:
        // CatServiceOperations is what the executable and the tests see.
        .target(
            name: "CatServiceCore",
            dependencies: [
                "CatClip",
                .product(name: "Whisker", package: "whisker"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            // No `resources:`: SwiftPM would generate a `Bundle.module` accessor, which links
            // libFoundation and ICU. The document is embedded by Whisker's plugin
            // (`OpenAPIDocument.embedded`), the clip by CatClip.
            exclude: ["Resources"],
            swiftSettings: [.swiftLanguageMode(.v6), notAutolinkingFoundation],
            plugins: [
                .plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator"),
                .plugin(name: "WhiskerEmbedDocument", package: "whisker"),
            ]
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
            // it and embeds it (to serve and to validate against); kept here where readers look.
            exclude: ["openapi.yaml"],
            swiftSettings: [.swiftLanguageMode(.v6), notAutolinkingFoundation],
            linkerSettings: [leanLinking]
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
                .product(name: "WhiskerMock", package: "whisker"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
    ]
)
