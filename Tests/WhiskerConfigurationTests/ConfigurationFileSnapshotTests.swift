#if Configuration
import Configuration
import Testing
import Whisker
import WhiskerConfiguration
import WhiskerCore

/// JSON and YAML files read by swift-configuration's `FileProvider` through Whisker's own readers
/// (WhiskerJSONSnapshot, WhiskerYAMLSnapshot), which need no Foundation: nested keys, the types
/// the key table reads, bad values named by key and file, and files that do not parse.
@Suite struct ConfigurationFileSnapshotTests {
    /// The sources a file with `text` makes, read as `Snapshot`, named `name` in errors.
    func sources<Snapshot: FileConfigSnapshot>(_ text: String, as _: Snapshot.Type, name: String = "cats.file") throws -> WhiskerServer.ConfigurationSources {
        let bytes = Array(text.utf8)
        let snapshot = try Snapshot(data: bytes.span.bytes, providerName: name, parsingOptions: .default)
        return WhiskerServer.ConfigurationSources([.init(SnapshotProvider(file: snapshot), name: name)])
    }

    static let json = #"{"port": 9090, "limits": {"maxConnections": 64}, "http2": {"enabled": true}, "timeouts": {"idle": 2.5}, "cors": {"origins": ["https://a.example", "https://b.example"]}, "unused": null}"#
    static let yaml = """
        # cat-service
        port: 9090
        limits:
          maxConnections: 64
        http2:
          enabled: true
        timeouts:
          idle: 2.5
        cors:
          origins:
            - https://a.example
            - "https://b.example"
        unused: ~
        """

    @Test(arguments: [true, false])
    func aFile_SetsTheKeyTable_ThroughNestedKeys(yaml: Bool) throws {
        let read = try WhiskerServer.Configuration(yaml ? sources(Self.yaml, as: WhiskerYAMLSnapshot.self) : sources(Self.json, as: WhiskerJSONSnapshot.self))
        #expect(read.listeners.map(\.address) == [.tcp(host: "127.0.0.1", port: 9090)])
        #expect(read.limits.maxConnections == 64)
        #expect(read.http2 != nil)
        #expect(read.timeouts.idle == .milliseconds(2500))
        #expect(read.cors.first?.allowedOrigins == ["https://a.example", "https://b.example"])
        #expect(read.limits.maxHeaderBytes == WhiskerServer.Limits().maxHeaderBytes, "an unset key keeps its default")
    }

    @Test func aBadValue_NamesTheKeyAndTheFile() throws {
        let yaml = try sources("limits:\n  maxConnections: lots\n", as: WhiskerYAMLSnapshot.self, name: "bad.yaml")
        #expect(throws: WhiskerServer.ConfigurationError(key: "limits.maxConnections", #"limits.maxConnections in bad.yaml must be a whole number between 1 and 1000000, got "lots""#)) {
            try WhiskerServer.Configuration(yaml)
        }
        let json = try sources(#"{"timeouts": {"idle": "soon"}}"#, as: WhiskerJSONSnapshot.self, name: "bad.json")
        #expect(throws: WhiskerServer.ConfigurationError(key: "timeouts.idle", #"timeouts.idle in bad.json must be a number of seconds above 0 and at most 86400, got "soon""#)) {
            try WhiskerServer.Configuration(json)
        }
    }

    @Test func aFileThatDoesNotParse_IsAnErrorSayingWhere() throws {
        let json = #expect(throws: (any Error).self) { try sources(#"{"port": 80,}"#, as: WhiskerJSONSnapshot.self) }
        #expect("\(json.map { "\($0)" } ?? "")".contains("not valid JSON at byte"))
        let yaml = #expect(throws: (any Error).self) { try sources("port: &p 80\nhealth:\n  port: *p\n", as: WhiskerYAMLSnapshot.self) }
        #expect("\(yaml.map { "\($0)" } ?? "")".contains("YAML line"))
        #expect(throws: (any Error).self, "a list is not a mapping of keys") { try sources("[1, 2]", as: WhiskerJSONSnapshot.self) }
    }
}

/// A provider over one snapshot, as `FileProvider` is over the snapshot of its file.
private struct SnapshotProvider<Snapshot: ConfigSnapshot>: ConfigProvider {
    let file: Snapshot
    var providerName: String { file.providerName }
    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult { try file.value(forKey: key, type: type) }
    func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult { try value(forKey: key, type: type) }
    nonisolated(nonsending) func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey, type: ConfigType,
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchValueFromValue(forKey: key, type: type, updatesHandler: updatesHandler)
    }
    func snapshot() -> any ConfigSnapshot { file }
    nonisolated(nonsending) func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchSnapshotFromSnapshot(updatesHandler: updatesHandler)
    }
}
#endif
