import Foundation

/// Files of swift-openapi-generator at the version the demo pins (Demo/CatService/Package.swift,
/// `from: "1.14.3"`), read at test time from the package's own git repository rather than copied
/// into this one: a bare clone of `https://github.com/apple/swift-openapi-generator` at that tag
/// (on the project's machines git reads github.com from the local package copies), or the git
/// directory in `WHISKER_GENERATOR_GIT`.
enum GeneratorPackage {
    static let version = "1.14.3"
    static let url = "https://github.com/apple/swift-openapi-generator"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The git directory holding the tag: `WHISKER_GENERATOR_GIT`, or a bare clone in the
    /// temporary folder, made once and kept for later runs (cloned under a name of its own, then
    /// renamed, so that two test processes never see half a clone).
    private static let gitDirectory: Result<String, Failure> = {
        if let given = ProcessInfo.processInfo.environment["WHISKER_GENERATOR_GIT"] { return .success(given) }
        let temporary = FileManager.default.temporaryDirectory
        let folder = temporary.appendingPathComponent("whisker-openapi-generator-\(version).git").path
        if (try? git(["--git-dir", folder, "rev-parse", "--verify", "--quiet", "\(version)^{commit}"])) != nil { return .success(folder) }
        let fresh = temporary.appendingPathComponent("whisker-openapi-generator-\(version)-\(ProcessInfo.processInfo.processIdentifier).git").path
        do {
            try? FileManager.default.removeItem(atPath: fresh)
            _ = try git(["clone", "--quiet", "--bare", "--branch", version, url, fresh])
            try? FileManager.default.removeItem(atPath: folder)
            if (try? FileManager.default.moveItem(atPath: fresh, toPath: folder)) == nil { return .success(fresh) }
            return .success(folder)
        } catch {
            return .failure(Failure(description: "the generator's repository could not be cloned: \(error)"))
        }
    }()

    /// The bytes of `path` in the generator's repository at ``version``.
    static func file(_ path: String) throws -> [UInt8] {
        let directory = try gitDirectory.get()
        return Array(try git(["--git-dir", directory, "show", "\(version):\(path)"]))
    }

    /// The paths under `folder` at ``version`` whose names end with `suffix`, symbolic links left out.
    static func files(under folder: String, endingWith suffix: String) throws -> [String] {
        let directory = try gitDirectory.get()
        let listing = String(decoding: try git(["--git-dir", directory, "ls-tree", "-r", version, folder]), as: UTF8.self)
        // `<mode> <type> <object>\t<path>`; 120000 is a symbolic link.
        return listing.split(separator: "\n").compactMap { line in
            guard let tab = line.firstIndex(of: "\t"), !line.hasPrefix("120000") else { return nil }
            let path = String(line[line.index(after: tab)...])
            return path.hasSuffix(suffix) ? path : nil
        }
    }

    private static func git(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "git \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(String(decoding: message, as: UTF8.self))")
        }
        return data
    }
}
