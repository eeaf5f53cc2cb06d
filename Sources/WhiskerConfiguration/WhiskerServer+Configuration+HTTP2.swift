import WhiskerCore
#if HTTP2
import WhiskerHTTP2
#endif

extension WhiskerServer.Configuration {
    /// `http2.enabled`, `http2.cleartextOnly` and `http2.upgrade`.
    mutating func applyHTTP2Keys(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        #if HTTP2
        if let enabled = try sources.bool("http2.enabled") {
            http2 = enabled ? (http2 ?? HTTP2Settings()) : nil
        }
        if let only = try sources.bool("http2.cleartextOnly") {
            guard !only || http2 != nil else {
                throw WhiskerServer.ConfigurationError(key: "http2.cleartextOnly", "\(sources.origin(of: "http2.cleartextOnly")) needs HTTP/2: set http2.enabled")
            }
            cleartextHTTP2Only = only
        }
        if let upgrade = try sources.bool("http2.upgrade") {
            guard !upgrade || http2 != nil else {
                throw WhiskerServer.ConfigurationError(key: "http2.upgrade", "\(sources.origin(of: "http2.upgrade")) needs HTTP/2: set http2.enabled")
            }
            acceptsH2CUpgrade = upgrade
        }
        #else
        try Self.refuse(["http2.enabled", "http2.cleartextOnly", "http2.upgrade"], in: sources, needing: "HTTP2")
        #endif
    }
}
