import WhiskerCore
#if HTTP2
import WhiskerHTTP2
#endif

extension WhiskerServer.Configuration {
    /// `http2.enabled` and `http2.cleartextOnly`.
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
        #else
        try Self.refuse(["http2.enabled", "http2.cleartextOnly"], in: sources, needing: "HTTP2")
        #endif
    }
}
