import SubscriberStore
import SubscriptionModel

/// A product's billing duration: the most frequent rounded length (`expiresDate − start`) of its
/// standard periods in the store, ties to the shorter (docs/metrics.md, "Retention cohorts"). Read
/// from the per-product counts the materialiser keeps (`productDuration`).
extension SubscriberAnalytics {
    /// Every product's billing duration: the most frequent rounded length of its standard periods
    /// in the store, ties to the shorter. A product with no standard period has none.
    public func productDurations() throws -> [String: BillingDuration] {
        var durations: [String: BillingDuration] = [:]
        for (product, days) in try database.productBillingDays() where durations[product] == nil {
            if let duration = BillingDuration(days: days) { durations[product] = duration }
        }
        return durations
    }

    /// The billing durations of the products in the store, shortest first.
    public func billingDurations() throws -> [BillingDuration] {
        Set(try productDurations().values).sorted()
    }

    /// The billing duration most cohort members' first paid product bills for, ties to the
    /// shorter; nil when no product has one. What the Cohorts pane shows first: a grid of every
    /// duration mixes weekly, monthly and yearly members, whose paid periods are not comparable.
    public func mostCommonBillingDuration(scope: ReportScope = ReportScope()) throws -> BillingDuration? {
        let durations = try productDurations()
        var members: [BillingDuration: Int] = [:]
        for (product, count) in try database.cohortMembersByProduct(scope: scope.rows) {
            if let duration = durations[product] { members[duration, default: 0] += count }
        }
        return members.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }?.key
    }
}
