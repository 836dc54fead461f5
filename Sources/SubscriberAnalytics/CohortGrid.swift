import SubscriberStore
import SubscriptionModel

/// Retention cohorts (docs/metrics.md, "Retention cohorts"): members are runs with a paid period
/// started on or before as-of, by the UTC month of their first paid period; for k = 1…P,
/// `retained[k]` (reached paid period k+1) and `ended[k]` (ended with exactly k paid periods), and
/// the Kaplan–Meier rate over them.
public struct CohortGrid: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        public var month: Month
        public var started: Int
        /// `retained[k-1]`: members with at least k+1 paid periods.
        public var retained: [Int]
        /// `ended[k-1]`: members whose run ended with exactly k paid periods.
        public var ended: [Int]
        /// The Kaplan–Meier product over retained and ended; nil while nobody's fate at a step is known.
        public var rate: [Double?] { KaplanMeier.rates(retained: retained, ended: ended) }

        public init(month: Month, started: Int, retained: [Int], ended: [Int]) {
            self.month = month
            self.started = started
            self.retained = retained
            self.ended = ended
        }
    }

    public var asOf: Instant
    public var periods: Int
    /// The billing duration the members were restricted to; nil: every duration.
    public var duration: BillingDuration?
    public var cohorts: [Row]

    /// Sums of started, retained and ended over the months shown, with the same product.
    public var average: Row {
        var row = Row(
            month: cohorts.first?.month ?? asOf.month, started: 0,
            retained: Array(repeating: 0, count: periods), ended: Array(repeating: 0, count: periods))
        for c in cohorts {
            row.started += c.started
            for k in 0..<periods {
                row.retained[k] += c.retained[k]
                row.ended[k] += c.ended[k]
            }
        }
        return row
    }
}

extension SubscriberAnalytics {
    /// - Parameters:
    ///   - from: first cohort month (default: the first cohort in the store).
    ///   - to: last cohort month (default: the as-of month).
    ///   - duration: only members whose first paid product bills for this duration.
    public func cohorts(
        asOf: Instant, periods: Int = 12, from: Month? = nil, to: Month? = nil,
        duration: BillingDuration? = nil, scope: ReportScope = ReportScope()
    ) throws -> CohortGrid {
        precondition(periods >= 1)
        // Each member passed step 0 (its first paid start), steps 1…k−1 (paid periods 2…k started)
        // and, once ended with n paid periods, step −n, by as-of: the store sums them per cohort month.
        var products: [String]? = scope.productId.map { [$0] }
        if let duration {
            let billed = try productDurations().filter { $0.value == duration }.map(\.key).sorted()
            products = products.map { $0.filter(billed.contains) } ?? billed
        }
        var steps: [Int: [Int: Int]] = [:]
        var firstMonth: Int?
        for cell in try database.cohortSteps(
            asOf: asOf, environments: scope.environment.environments, firstPaidProductIds: products, plan: scope.plan)
        {
            steps[cell.cohortMonth, default: [:]][cell.step] = cell.count
            if cell.step == 0 { firstMonth = min(firstMonth ?? cell.cohortMonth, cell.cohortMonth) }
        }
        let lastIndex = (to ?? asOf.month).index
        let firstIndex = from?.index ?? firstMonth ?? lastIndex
        var grid = CohortGrid(asOf: asOf, periods: periods, duration: duration, cohorts: [])
        guard firstIndex <= lastIndex else { return grid }
        for m in firstIndex...lastIndex {
            var row = CohortGrid.Row(
                month: Month(index: m), started: 0, retained: Array(repeating: 0, count: periods),
                ended: Array(repeating: 0, count: periods))
            if let passed = steps[m] {
                row.started = passed[0] ?? 0
                for k in 1...periods {
                    row.retained[k - 1] = passed[k] ?? 0
                    row.ended[k - 1] = passed[-k] ?? 0
                }
            }
            grid.cohorts.append(row)
        }
        return grid
    }
}
