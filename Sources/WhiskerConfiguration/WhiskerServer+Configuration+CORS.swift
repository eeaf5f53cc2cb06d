import WhiskerCore
import WhiskerCORS

extension WhiskerServer.Configuration {
    /// `cors.*`: one policy, for `cors.pathPrefix`, replacing any the configuration had.
    mutating func applyCORSKeys(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        let origins = try sources.list("cors.origins")
        let credentials = try sources.bool("cors.credentials")
        let prefix = try sources.string("cors.pathPrefix")
        let exposed = try sources.list("cors.exposedHeaders")
        guard let origins, !origins.isEmpty else {
            if let key = ["cors.credentials", "cors.pathPrefix", "cors.exposedHeaders"].first(where: { ((try? sources.value($0)) ?? nil) != nil }) {
                throw WhiskerServer.ConfigurationError(key: key, "\(sources.origin(of: key)) needs cors.origins")
            }
            return
        }
        var policy = WhiskerServer.CORS(allowedOrigins: origins, pathPrefix: prefix ?? "/")
        policy.allowsCredentials = credentials ?? false
        policy.exposedHeaders = exposed ?? []
        do {
            try policy.validate()
        } catch {
            var reason = error.description
            if reason.hasPrefix("configuration.cors: ") { reason.removeFirst("configuration.cors: ".count) }
            throw WhiskerServer.ConfigurationError(key: "cors.origins", "\(sources.origin(of: "cors.origins")): \(reason)")
        }
        cors = [policy]
    }
}
