import SubscriptionModel

/// Which notification versions a simulated app receives.
public enum PayloadVersions: String, Sendable, CaseIterable, Codable {
    case v1, v2
    /// The app migrated from v1 to v2 halfway through the range.
    case both
}

/// Parameters of one `subdash generate` run.
public struct SimulationConfiguration: Sendable, Equatable {
    public var seed: UInt64
    public var subscribers: Int
    public var start: Month
    public var months: Int
    public var format: PayloadVersions
    public var gzip: Bool
    /// A new file starts before one would pass this many bytes (compressed bytes when gzip'd).
    public var maxFileBytes: Int
    /// Subscribers generated, shuffled and compressed together; fixed so that output does not
    /// depend on the number of threads.
    public var subscribersPerChunk = 64
    /// Share of all subscribers who pay monthly with a 12-month commitment (v2 only, never in the
    /// US), 0…``SimulationConfiguration/maxCommitmentShare``; 0 (the default) generates none.
    public var commitmentShare = 0.0
    /// Chance per renewal of a monthly product (v2 only) that last month's charge is refunded
    /// while the subscription goes on; 0 (the default) generates none.
    public var lateRefundRate = 0.0

    public init(
        seed: UInt64 = 1, subscribers: Int, start: Month = Month(year: 2024, month: 1), months: Int = 24,
        format: PayloadVersions = .v2, gzip: Bool = false, maxFileBytes: Int = 64 << 20
    ) {
        self.seed = seed
        self.subscribers = subscribers
        self.start = start
        self.months = months
        self.format = format
        self.gzip = gzip
        self.maxFileBytes = maxFileBytes
    }

    /// Nothing is dated at or after this instant.
    public var horizon: Instant { start.adding(months: months).start }

    /// With `both`, the month from which notifications are v2.
    public var switchMonth: Month? { format == .both ? start.adding(months: months / 2) : nil }

    /// Notifications at or after this instant are v2.
    public var v2From: Instant {
        switch format {
        case .v1: return Instant(milliseconds: .max)
        case .v2: return Instant(milliseconds: .min)
        case .both: return switchMonth!.start
        }
    }

    public var model: LifecycleModel {
        var model = LifecycleModel(seed: seed, start: start, months: months, v2From: v2From)
        model.commitmentShare = commitmentShare
        model.lateRefundRate = lateRefundRate
        return model
    }

    /// Commitments are drawn among subscribers whose storefront offers them.
    public static let maxCommitmentShare = SimulatedStorefront.commitmentStorefrontShare
}

extension SimulationConfiguration {
    /// The app's shared secret in every simulated v1 notification (`password`): pass it to
    /// `subdash import --shared-secret` so the v1 copies are trusted like the signed v2 ones.
    public static let sharedSecret = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
}
