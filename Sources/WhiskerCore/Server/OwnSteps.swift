/// Where ``WhiskerServer/Configuration/responseSteps`` and
/// ``WhiskerServer/Configuration/requestObserver`` keep what you set: a feature that contributes
/// nothing itself, because the core runs these after every feature's (steps last in their phase,
/// the observer innermost), wherever they were set.
struct OwnSteps: ServerFeature {
    let steps: [any ResponseStep]
    let observer: (any RequestObserver)?

    func contribute(to contributions: inout ServerFeatureContributions) {}

    /// `nil` when it holds nothing, so that clearing both removes the feature.
    var nonEmpty: Self? { steps.isEmpty && observer == nil ? nil : self }
}
