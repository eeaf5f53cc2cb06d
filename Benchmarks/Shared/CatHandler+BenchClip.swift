import Foundation

/// The benchmark servers' way to make a `CatHandler`: the same handler code as `cat-service`
/// (Demo/CatService/Sources/CatServiceCore/CatHandler.swift, symlinked here), with the clip read from
/// the file named by the `CAT_CLIP` environment variable when it is set (bench.sh points it at
/// Benchmarks/Shared/clip-1MiB.mp4), or the bundled 325 KB cat.mp4 otherwise.
extension CatHandler {
    /// Loads the clip from `path` instead of the resource bundle.
    init(clipPath path: String) throws {
        do {
            self.init(clip: ArraySlice(try Data(contentsOf: URL(fileURLWithPath: path))))
        } catch {
            throw MissingResourceError(name: path, underlying: error)
        }
    }

    /// `CAT_CLIP`'s file if set, else the bundled clip.
    static func forBenchmark() throws -> CatHandler {
        if let path = ProcessInfo.processInfo.environment["CAT_CLIP"], !path.isEmpty {
            return try CatHandler(clipPath: path)
        }
        return try CatHandler()
    }
}
