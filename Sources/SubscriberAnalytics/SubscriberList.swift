import SubscriberStore
import SubscriptionModel

/// One row of the Subscribers list, as the store reads it.
public typealias SubscriberRow = SubscriberStore.SubscriberRow
/// The order of the Subscribers list, as the store sorts it.
public typealias SubscriberSort = SubscriberStore.SubscriberSort

extension SubscriberAnalytics {
    /// One page of the Subscribers list: subscriptions begun by `asOf` (those a search for `filter`
    /// finds, when given; the members of `population` when given), with their segment then, in
    /// `sort` order. Only the ownership `scope` names: pass `.all` to list family members too.
    ///
    /// A population keeps its own product rule (a cohort by its first paid product, a state by the
    /// product at as-of…), so `scope.productId` then narrows only through the population.
    /// Sorting by anything but the id sorts the whole list before the page is cut: over a search or a
    /// drill-down that is a few rows, over every subscriber of a large store it reads them all.
    public func subscriberList(
        offset: Int, limit: Int, asOf: Instant, scope: ReportScope = ReportScope(),
        matching filter: String? = nil,
        population: SubscriberPopulation? = nil,
        sort: SubscriberSort = SubscriberSort()
    ) throws -> [SubscriberRow] {
        try database.subscriberList(
            offset: offset, limit: limit, asOf: asOf.milliseconds, scope: scope.rows, matching: filter,
            population: population?.members(asOf: asOf), sort: sort)
    }

    /// How many rows ``subscriberList(offset:limit:asOf:scope:matching:population:sort:)`` pages through.
    public func subscriberCount(
        asOf: Instant, scope: ReportScope = ReportScope(), matching filter: String? = nil,
        population: SubscriberPopulation? = nil
    ) throws -> Int {
        if filter == nil, population == nil {
            // Every subscriber: counted per day by the store, not row by row.
            return try database.subscriptionsBegun(
                by: asOf, environments: scope.environment.environments,
                ownerships: scope.ownership.ownerships, productId: scope.productId)
        }
        return try database.subscriberCount(
            asOf: asOf.milliseconds, scope: scope.rows, matching: filter,
            population: population?.members(asOf: asOf))
    }
}

extension SubscriberAnalytics {
    /// Why a product id the store has never seen is refused (it would show zeros everywhere, as if
    /// nobody had bought it), with the ids it knows.
    public static func unknownProductMessage(_ product: String, known: [String]) -> String {
        let list = known.isEmpty ? "the store has no product yet" : "known products: " + known.joined(separator: ", ")
        return "unknown product \(product) (\(list))"
    }

    /// Every product id a subscription in scope has had a period of, sorted (a product stays
    /// listed once seen).
    public func productIds(scope: ReportScope = ReportScope()) throws -> [String] {
        try database.productIds(scope: scope.rows)
    }
}
