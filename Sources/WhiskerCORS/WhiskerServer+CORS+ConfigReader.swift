#if Configuration
public import WhiskerConfiguration
public import WhiskerCore

extension WhiskerServer.ConfigurationKeys {
    /// `cors.origins`, `cors.pathPrefix` (default `/`), `cors.credentials` (default `false`) and
    /// `cors.exposedHeaders`: one policy, for the prefix, replacing any the configuration had. The
    /// other keys need `cors.origins`.
    public static let cors = Self(["cors.origins", "cors.pathPrefix", "cors.credentials", "cors.exposedHeaders"]) {
        configuration, sources throws(WhiskerServer.ConfigurationError) in
        if let policy = try WhiskerServer.CORS(sources) {
            configuration.cors = [policy]
        }
    }
}

extension WhiskerServer.CORS {
    /// The policy the `cors.*` keys of `sources` describe, or `nil` when they set no origin.
    init?(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        let origins = try sources.list("cors.origins")
        let credentials = try sources.bool("cors.credentials")
        let prefix = try sources.string("cors.pathPrefix")
        let exposed = try sources.list("cors.exposedHeaders")
        guard let origins, !origins.isEmpty else {
            if let key = ["cors.credentials", "cors.pathPrefix", "cors.exposedHeaders"].first(where: { ((try? sources.value($0)) ?? nil) != nil }) {
                throw WhiskerServer.ConfigurationError(key: key, "\(sources.origin(of: key)) needs cors.origins")
            }
            return nil
        }
        self.init(allowedOrigins: origins, pathPrefix: prefix ?? "/")
        allowsCredentials = credentials ?? false
        exposedHeaders = exposed ?? []
        do {
            try validate()
        } catch {
            var reason = error.description
            if reason.hasPrefix("configuration.cors: ") { reason.removeFirst("configuration.cors: ".count) }
            throw WhiskerServer.ConfigurationError(key: "cors.origins", "\(sources.origin(of: "cors.origins")): \(reason)")
        }
    }
}
#endif
