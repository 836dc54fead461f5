import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// The one place figures come from: every dashboard pane and every `subdash report` asks it.
/// Population figures are aggregates the store reads from the rows it derives on import (its read
/// API, `SubscriberStore/Reads`); a single subscriber's figures are derived in Swift from that
/// subscriber's facts.
public struct SubscriberAnalytics: Sendable {
    public let database: AppDatabase

    public init(database: AppDatabase) { self.database = database }

    /// The data horizon (docs/metrics.md, "Which data, read when"): the latest notification
    /// `signedDate`, renewal-fact instant, transaction `purchaseDate` or `revocationDate` in the
    /// store (never a date that lies in the future by nature). Nil for an empty store.
    public func dataHorizon() throws -> Instant? { try database.latestFactInstant() }

    /// `asOf` when given, else the data horizon, else now-less empty store: the Unix epoch.
    public func resolveAsOf(_ asOf: Instant?) throws -> Instant {
        if let asOf { return asOf }
        return try dataHorizon() ?? Instant(milliseconds: 0)
    }
}
