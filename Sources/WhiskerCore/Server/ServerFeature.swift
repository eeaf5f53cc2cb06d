/// A capability added to a server as a value: what it contributes to every connection and every
/// request, through the core's public seam. The modules' features are set with one-line sugar
/// (`configuration.cors`, `.http2`, `.healthChecks`, `.compression`, `.metrics`, ...); yours go
/// into ``WhiskerServer/Configuration/features`` directly:
///
///     struct ServerName: ServerFeature {
///         let name: String
///         func contribute(to contributions: inout ServerFeatureContributions) {
///             contributions.add(Step(name: name))         // a ResponseStep
///         }
///     }
///     configuration.features.add(ServerName(name: "cats"))
///
/// A feature may contribute early answers (``EarlyAnswer``, before routing), response steps
/// (``ResponseStep``), protocol handovers (``ProtocolHandover``: another protocol on the first
/// bytes, ALPN or `Upgrade`), and request observers (``RequestObserver``); options for listeners
/// are its own types (``ListenerOption``). The server asks every feature, in the order they were
/// added, once when it starts: ``validate(_:)``, then ``contribute(to:)``.
public protocol ServerFeature: Sendable {
    /// Checked when the server starts, with everything else configured: settings that cannot
    /// work (alone, or with the rest) throw, naming the setting.
    func validate(_ configuration: WhiskerServer.Configuration) throws(WhiskerServerError)
    /// Adds what the feature does to `contributions` (whose ``ServerFeatureContributions/configuration``
    /// is the whole configuration, to read).
    func contribute(to contributions: inout ServerFeatureContributions)
}

extension ServerFeature {
    public func validate(_ configuration: WhiskerServer.Configuration) throws(WhiskerServerError) {}
}

/// The features of a configuration: ordered as added, one of each type (adding a feature of a
/// type already there replaces it where it stands).
public struct ServerFeatures: Sendable, Sequence {
    private var features: [any ServerFeature] = []

    /// No features.
    public init() {}

    /// Adds `feature`, or replaces the one of its type.
    public mutating func add<Feature: ServerFeature>(_ feature: Feature) {
        if let index = features.firstIndex(where: { $0 is Feature }) {
            features[index] = feature
        } else {
            features.append(feature)
        }
    }

    /// The feature of type `Feature`, if one was added; setting `nil` removes it.
    public subscript<Feature: ServerFeature>(_ type: Feature.Type) -> Feature? {
        get { features.lazy.compactMap { $0 as? Feature }.first }
        set {
            if let newValue { add(newValue) } else { features.removeAll { $0 is Feature } }
        }
    }

    public func makeIterator() -> IndexingIterator<[any ServerFeature]> { features.makeIterator() }
}

/// What the features of a server contribute, gathered when it starts (``ServerFeature/contribute(to:)``).
public struct ServerFeatureContributions: Sendable {
    /// The whole configuration, for a feature that depends on other settings.
    public let configuration: WhiskerServer.Configuration
    /// Answers before routing, asked in ``EarlyAnswer/order``, then as added.
    public private(set) var earlyAnswers: [any EarlyAnswer] = []
    /// Steps on the way out of every response, run in ``ResponseStep/phase`` order, then as added.
    public private(set) var responseSteps: [any ResponseStep] = []
    /// Other protocols a connection may be handed to, asked in the order added.
    public private(set) var protocolHandovers: [any ProtocolHandover] = []
    /// What watches every request, outermost first.
    public private(set) var requestObservers: [any RequestObserver] = []
    /// Who the client of a request is behind trusted proxies (WhiskerProxies).
    package var proxyTrust: (any ProxyTrust)?
    /// How request bodies with a `Content-Encoding` are decoded (WhiskerCompression).
    package var requestDecoding: (any RequestDecoding)?
    /// How long the listeners keep serving once a graceful shutdown starts (WhiskerHealth).
    package var drainDelay: Duration = .zero

    /// The contributions of `configuration`'s features, each asked in turn.
    package init(_ configuration: WhiskerServer.Configuration) {
        self.configuration = configuration
        for feature in configuration.features { feature.contribute(to: &self) }
    }

    /// Adds an answer given before routing.
    public mutating func add(_ answer: any EarlyAnswer) { earlyAnswers.append(answer) }
    /// Adds a step on the way out.
    public mutating func add(_ step: any ResponseStep) { responseSteps.append(step) }
    /// Adds a protocol a connection may be handed to.
    public mutating func add(_ handover: any ProtocolHandover) { protocolHandovers.append(handover) }
    /// Adds an observer of every request.
    public mutating func add(_ observer: any RequestObserver) { requestObservers.append(observer) }
}
