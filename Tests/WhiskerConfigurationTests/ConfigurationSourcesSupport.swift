#if Configuration
import Configuration
import Whisker
import WhiskerConfiguration
import WhiskerCore

/// Sources for the tests: one in-memory provider named like a file (`"cats.yaml"`), its keys
/// dot-separated paths, as a parsed file's are.
func fileSources(_ values: [String: ConfigValue], name: String = "cats.yaml") -> WhiskerServer.ConfigurationSources {
    WhiskerServer.ConfigurationSources([.init(memory(values), name: name)])
}

/// An in-memory provider holding `values`, keyed by dot-separated paths.
func memory(_ values: [String: ConfigValue]) -> InMemoryProvider {
    InMemoryProvider(values: Dictionary(uniqueKeysWithValues: values.map { (AbsoluteConfigKey($0.key.split(separator: ".").map(String.init)), $0.value) }))
}

/// The configuration `values` make, or the error's message.
func configuration(_ values: [String: ConfigValue]) throws(WhiskerServer.ConfigurationError) -> WhiskerServer.Configuration {
    try WhiskerServer.Configuration(fileSources(values))
}

/// The message of the error that reading `values` throws, or nil when it throws none.
func failure(_ values: [String: ConfigValue]) -> String? {
    do {
        _ = try configuration(values)
        return nil
    } catch {
        return error.description
    }
}
#endif
