import WhiskerCore
#if Compression
import WhiskerCompression
#endif

extension WhiskerServer.Configuration {
    /// `compression.enabled` and `compression.requestDecompression`, with the modules' defaults.
    mutating func applyCompressionKeys(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        #if Compression
        if let enabled = try sources.bool("compression.enabled") {
            compression = enabled ? (compression ?? CompressionSettings()) : nil
        }
        if let enabled = try sources.bool("compression.requestDecompression") {
            requestDecompression = enabled ? (requestDecompression ?? RequestDecompressionSettings()) : nil
        }
        #else
        try Self.refuse(["compression.enabled", "compression.requestDecompression"], in: sources, needing: "Compression")
        #endif
    }
}
