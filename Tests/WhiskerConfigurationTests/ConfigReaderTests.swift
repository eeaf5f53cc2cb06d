#if Configuration
import Configuration
import Testing
import Whisker
import WhiskerConfiguration
import WhiskerCore
import WhiskerHTTP2

/// The key table read through a `ConfigReader` an application already has: scoped, several
/// providers merged, JSON-typed and textual values alike, and bad values named by key.
@Suite struct ConfigReaderTests {
    @Test func aScopedReader_ReadsTheKeyTableUnderItsPrefix() throws {
        let file = memory(["server.port": 9090, "server.limits.maxConnections": 64, "server.http2.enabled": true, "port": 1])
        let environment = EnvironmentVariablesProvider(environmentVariables: ["SERVER_TIMEOUTS_IDLE": "2.5"])
        let reader = ConfigReader(providers: [environment, file])
        let configuration = try WhiskerServer.Configuration(reader.scoped(to: "server"))
        #expect(configuration.listeners.map(\.address) == [.tcp(host: "127.0.0.1", port: 9090)])
        #expect(configuration.limits.maxConnections == 64)
        #expect(configuration.http2 != nil)
        #expect(configuration.timeouts.idle == .milliseconds(2500))
        // Unset keys keep their defaults.
        #expect(configuration.limits.maxHeaderBytes == WhiskerServer.Limits().maxHeaderBytes)
    }

    @Test func theFirstProviderThatSetsAKey_Wins() throws {
        let reader = ConfigReader(providers: [
            EnvironmentVariablesProvider(environmentVariables: ["PORT": "7070"]),
            memory(["port": 9090]),
        ])
        #expect(try WhiskerServer.Configuration(reader).listeners.first?.address == .tcp(host: "127.0.0.1", port: 7070))
    }

    @Test func aBadValue_NamesTheKeyAndTheReadersName() {
        let reader = ConfigReader(provider: memory(["limits.maxConnections": 0]))
        #expect(throws: WhiskerServer.ConfigurationError(key: "limits.maxConnections", #"limits.maxConnections must be a whole number between 1 and 1000000, got "0""#)) {
            try WhiskerServer.Configuration(reader)
        }
        let named = WhiskerServer.ConfigurationSources([.init(ConfigReader(provider: memory(["port": "x"])), name: "the settings")])
        #expect(throws: WhiskerServer.ConfigurationError(key: "port", #"port in the settings must be a whole number between 0 and 65535, got "x""#)) {
            try WhiskerServer.Configuration(named)
        }
    }
}
#endif
