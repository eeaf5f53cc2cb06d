#if Configuration
public import WhiskerConfiguration
public import WhiskerCore

extension WhiskerServer.ConfigurationKeys {
    /// `http2.enabled` (HTTP/2 on or off, with the module's defaults or the settings the
    /// configuration had), and the cleartext listener's `http2.cleartextOnly` and `http2.upgrade`,
    /// which need it. (Those two are listeners' keys: they stay as they are until the listeners'
    /// redesign, issue 39 item 2.)
    public static let http2 = Self(["http2.enabled", "http2.cleartextOnly", "http2.upgrade"]) {
        configuration, sources throws(WhiskerServer.ConfigurationError) in
        if let enabled = try sources.bool("http2.enabled") {
            configuration.http2 = enabled ? (configuration.http2 ?? HTTP2Settings()) : nil
        }
        if let only = try sources.bool("http2.cleartextOnly") {
            guard !only || configuration.http2 != nil else {
                throw WhiskerServer.ConfigurationError(key: "http2.cleartextOnly", "\(sources.origin(of: "http2.cleartextOnly")) needs HTTP/2: set http2.enabled")
            }
            configuration.cleartextHTTP2Only = only
        }
        if let upgrade = try sources.bool("http2.upgrade") {
            guard !upgrade || configuration.http2 != nil else {
                throw WhiskerServer.ConfigurationError(key: "http2.upgrade", "\(sources.origin(of: "http2.upgrade")) needs HTTP/2: set http2.enabled")
            }
            configuration.acceptsH2CUpgrade = upgrade
        }
    }
}
#endif
