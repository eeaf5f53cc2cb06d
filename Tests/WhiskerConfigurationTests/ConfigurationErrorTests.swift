#if Configuration
import Configuration
import Testing
import Whisker
import WhiskerConfiguration
import WhiskerCore

/// Bad values name the key as their source spells it and the source; the first source that sets
/// a key wins.
@Suite struct ConfigurationErrorTests {
    @Test func badValuesInAFile_NameTheKeyAndTheFile() {
        #expect(failure(["port": "x"]) == #"port in cats.yaml must be a whole number between 0 and 65535, got "x""#)
        #expect(failure(["tls.port": 70000]) == #"tls.port in cats.yaml must be a whole number between 0 and 65535, got "70000""#)
        #expect(failure(["limits.maxConnections": 0]) == #"limits.maxConnections in cats.yaml must be a whole number between 1 and 1000000, got "0""#)
        #expect(failure(["limits.maxRequestBodySize": -1]) == #"limits.maxRequestBodySize in cats.yaml must be a whole number at least 0, got "-1""#)
        #expect(failure(["timeouts.idle": "soon"]) == #"timeouts.idle in cats.yaml must be a number of seconds above 0 and at most 86400, got "soon""#)
        #expect(failure(["timeouts.write": 0]) == #"timeouts.write in cats.yaml must be a number of seconds above 0 and at most 86400, got "0""#)
        #expect(failure(["http2.enabled": "maybe"]) == #"http2.enabled in cats.yaml must be true or false, got "maybe""#)
        #expect(failure(["unixSocket.path": "/s", "unixSocket.mode": "999"])
            == #"unixSocket.mode in cats.yaml must be permissions in octal, 0 to 777 (660: owner and group), got "999""#)
        #expect(failure(["workers": 0.5]) == #"workers in cats.yaml must be a whole number between 1 and 256, got "0.5""#)
    }

    @Test func badValuesInTheEnvironment_NameTheVariable() {
        let sources = WhiskerServer.ConfigurationSources([
            .init(EnvironmentVariablesProvider(environmentVariables: ["LIMITS_MAX_CONNECTIONS": "lots"]), name: nil),
        ])
        #expect(throws: WhiskerServer.ConfigurationError(key: "limits.maxConnections", #"LIMITS_MAX_CONNECTIONS must be a whole number between 1 and 1000000, got "lots""#)) {
            try WhiskerServer.Configuration(sources)
        }
    }

    @Test func renamedVariables_AreNamedAsTheyAreSpelled() throws {
        let environment = EnvironmentVariablesProvider(environmentVariables: ["CATS_PORT": "eighty", "CATS_HOST": "::1"])
        let renamed = KeyMappingProvider(upstream: environment) { key in AbsoluteConfigKey(["cats"] + key.components) }
        let sources = WhiskerServer.ConfigurationSources([.init(renamed, name: nil)])
        #expect(try sources.string("host") == "::1")
        #expect(throws: WhiskerServer.ConfigurationError(key: "port", #"CATS_PORT must be a whole number between 0 and 65535, got "eighty""#)) {
            try sources.port("port")
        }
    }

    @Test func theFirstSourceThatSetsAKey_Wins_AndTheLaterAreNotConsulted() throws {
        let sources = WhiskerServer.ConfigurationSources([
            .init(EnvironmentVariablesProvider(environmentVariables: ["PORT": "9000", "HOST": ""]), name: nil),
            .init(memory(["port": "not a port", "host": "10.0.0.1", "workers": 2]), name: "cats.json"),
        ])
        let read = try WhiskerServer.Configuration(sources)
        // PORT wins over the file's bad port; HOST= is empty, so unset: the file's host.
        #expect(read.listeners.map(\.address) == [.tcp(host: "10.0.0.1", port: 9000)] && read.io.workers == 2)
        #expect(try sources.value("workers")?.origin == "workers in cats.json")
        #expect(try sources.value("nothing") == nil)
    }

    @Test func typedReads_OfAnApplicationsOwnKeys_CheckAndNameThem() throws {
        let sources = fileSources(["replicas": 20, "mode": "fast", "tags": .init(.stringArray(["a", "b"]), isSecret: false)])
        #expect(throws: WhiskerServer.ConfigurationError(key: "replicas", #"replicas in cats.yaml must be a whole number between 1 and 16, got "20""#)) {
            try sources.integer("replicas", in: 1...16)
        }
        #expect(throws: WhiskerServer.ConfigurationError(key: "mode", #"mode in cats.yaml must be slow, steady or careful, got "fast""#)) {
            try sources.choice("mode", from: ["slow", "steady", "careful"])
        }
        #expect(try sources.list("tags") == ["a", "b"])
        #expect(sources.origin(of: "tags") == "tags in cats.yaml" && sources.origin(of: "absent") == "absent")
    }
}
#endif
