import OpenAPIRuntime
import Synchronization

/// What the shelter counts for its report: adoptions since the service started.
final class ShelterLedger: Sendable {
    private let adoptions = Atomic<Int64>(0)

    /// Counts one adoption.
    func adopted() { adoptions.add(1, ordering: .relaxed) }

    /// The adoptions so far.
    var count: Int64 { adoptions.load(ordering: .relaxed) }
}

extension CatHandler {
    /// `GET /report`: the shelter's report. Only a token holding `reports:read` gets here: the
    /// document's `security` is enforced before the handler runs (cat-service's authenticators).
    func getShelterReport(_ input: Operations.getShelterReport.Input) async throws -> Operations.getShelterReport.Output {
        .ok(.init(body: .json(.init(adoptions: ledger.count))))
    }
}
