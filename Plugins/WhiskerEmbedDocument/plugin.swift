// WhiskerEmbedDocument: a build-tool plugin that embeds the target's OpenAPI document in the
// target as `OpenAPIDocument.embedded`, so that the server validates against and serves the
// document its code was generated from, with no resource bundle and no file to find at run time:
//
//     .executableTarget(
//         name: "greeter",
//         dependencies: [.product(name: "Whisker", package: "whisker"), ...],
//         plugins: [
//             .plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator"),
//             .plugin(name: "WhiskerEmbedDocument", package: "whisker"),
//         ]
//     )
//
//     let transport = try WhiskerTransport(server, validatingAgainst: .embedded)
//
// It finds the document as swift-openapi-generator's plugin does (1.14.3, Plugins/PluginsShared/
// PluginUtils.swift): the one file of the target named openapi.yaml, openapi.yml or openapi.json
// (a symlink too), anywhere in the target's folder. It runs WhiskerEmbedDocumentTool, which writes
// one Swift file into the plugin's work directory, compiled into the target; the extension is
// internal to the target. The build reruns the tool when the document changes.
import PackagePlugin

#if canImport(FoundationEssentials)
import struct FoundationEssentials.URL
#else
import struct Foundation.URL
#endif

@main
struct WhiskerEmbedDocument: BuildToolPlugin {
    /// The names swift-openapi-generator's plugin reads a document from.
    static let documentNames: Set<String> = ["openapi.yaml", "openapi.yml", "openapi.json"]

    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let target = target as? SwiftSourceModuleTarget else { throw EmbedError.notSwift(target: target.name) }
        return try Self.commands(
            sourceFiles: target.sourceFiles.map(\.url), targetName: target.name,
            workDirectory: context.pluginWorkDirectoryURL, tool: try context.tool(named: "WhiskerEmbedDocumentTool").url
        )
    }

    /// The one command: the tool reads the document and writes `WhiskerEmbeddedDocument.swift`.
    static func commands(sourceFiles: [URL], targetName: String, workDirectory: URL, tool: URL) throws -> [Command] {
        let documents = sourceFiles.filter { documentNames.contains($0.lastPathComponent) }
        guard let document = documents.first else { throw EmbedError.noDocument(target: targetName) }
        guard documents.count == 1 else { throw EmbedError.severalDocuments(target: targetName, documents) }
        let output = workDirectory.appending(component: "WhiskerEmbeddedDocument.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(document.lastPathComponent) in \(targetName) as OpenAPIDocument.embedded",
                executable: tool,
                arguments: [document.path(percentEncoded: false), output.path(percentEncoded: false)],
                inputFiles: [document],
                outputFiles: [output]
            )
        ]
    }
}

/// Why the plugin cannot embed a document, worded as the generator's plugin words it.
enum EmbedError: Error, CustomStringConvertible {
    case notSwift(target: String)
    case noDocument(target: String)
    case severalDocuments(target: String, [URL])

    var description: String {
        switch self {
        case .notSwift(let target):
            "WhiskerEmbedDocument applies to Swift targets only; '\(target)' is not one."
        case .noDocument(let target):
            "No OpenAPI document found in the target named '\(target)'. Add a file called 'openapi.yaml', 'openapi.yml' or 'openapi.json' (can also be a symlink) to the target's source directory."
        case .severalDocuments(let target, let documents):
            "Multiple OpenAPI documents found in the target named '\(target)', but exactly one is expected. Found \(documents.map { $0.path(percentEncoded: false) }.joined(separator: " "))."
        }
    }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

extension WhiskerEmbedDocument: XcodeBuildToolPlugin {
    func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command] {
        try Self.commands(
            sourceFiles: target.inputFiles.map(\.url), targetName: target.displayName,
            workDirectory: context.pluginWorkDirectoryURL, tool: try context.tool(named: "WhiskerEmbedDocumentTool").url
        )
    }
}
#endif
