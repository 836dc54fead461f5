import GRDB
import SubscriptionModel
import SubscriptionTimeline

/// Rebuilds the rows derived from one subscription's facts (DESIGN §3) so population figures
/// are SQL over indexed tables. Runs inside the import's transaction.
struct Materializer {
    let db: Database

    init(_ db: Database) { self.db = db }

    func rebuild(_ originalTransactionIds: [String]) throws {
        // Filled in once the timeline derivation lands.
        _ = originalTransactionIds
    }
}
