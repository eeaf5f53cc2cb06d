#if Configuration
public import WhiskerConfiguration
public import WhiskerCore

extension WhiskerServer.ConfigurationKeys {
    /// `compression.enabled` and `compression.requestDecompression`: each turns its feature on
    /// (with the module's defaults, or the settings the configuration had) or off.
    public static let compression = Self(["compression.enabled", "compression.requestDecompression"]) {
        configuration, sources throws(WhiskerServer.ConfigurationError) in
        if let enabled = try sources.bool("compression.enabled") {
            configuration.compression = enabled ? (configuration.compression ?? CompressionSettings()) : nil
        }
        if let enabled = try sources.bool("compression.requestDecompression") {
            configuration.requestDecompression = enabled ? (configuration.requestDecompression ?? RequestDecompressionSettings()) : nil
        }
    }
}
#endif
