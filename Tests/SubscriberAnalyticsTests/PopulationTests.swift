import SubscriberAnalytics
import SubscriptionModel
import SubscriptionTimeline
import Testing

/// The subscribers behind a figure are exactly as many as the figure says, on the SampleData store,
/// and paging through them with `subscriberList` lists each of their subscriptions once.
@Suite struct PopulationTests {
    /// Every member subscription, a page of `limit` at a time.
    static func members(
        _ population: SubscriberPopulation, _ analytics: SubscriberAnalytics, asOf: Instant,
        scope: ReportScope = ReportScope(), limit: Int = 40
    ) throws -> [String] {
        var ids: [String] = []
        while true {
            let page = try analytics.subscriberList(
                offset: ids.count, limit: limit, asOf: asOf, scope: scope, population: population)
            ids += page.map(\.id)
            if page.count < limit { return ids }
        }
    }

    /// One cohort month counted a run at a time from the timelines' periods, without the store's
    /// SQL: members are runs whose first paid period started on or before as-of; a member's paid
    /// periods are those started on or before as-of and not cut by an upgrade (docs/metrics.md,
    /// "Retention cohorts").
    struct ExpectedCohort: Equatable {
        var started = 0
        /// `retained[k - 1]`: members with at least k + 1 paid periods.
        var retained: [Int]
        /// `endedBy[k - 1]`: members whose run ended by as-of with 1…k paid periods (what `c` lists).
        var endedBy: [Int]

        init(periods: Int) {
            retained = Array(repeating: 0, count: periods)
            endedBy = Array(repeating: 0, count: periods)
        }
    }

    static func expectedCohorts(
        _ timelines: [SubscriptionTimeline], asOf: Instant, periods: Int,
        product: String? = nil
    ) -> [Month: ExpectedCohort] {
        var cells: [Month: ExpectedCohort] = [:]
        for t in timelines {
            for run in t.runs {
                let runPeriods = t.periods[run.firstPeriod...run.lastPeriod]
                guard let firstPaid = runPeriods.first(where: \.isPaid), firstPaid.start <= asOf else { continue }
                if let product, firstPaid.productId != product { continue }
                let paid = runPeriods.filter { $0.isPaid && !$0.isCutByUpgrade && $0.start <= asOf }.count
                let ended = run.endedAt <= asOf
                var cell = cells[firstPaid.start.month] ?? ExpectedCohort(periods: periods)
                cell.started += 1
                for k in 1...periods {
                    if paid >= k + 1 { cell.retained[k - 1] += 1 }
                    if ended && (1...k).contains(paid) { cell.endedBy[k - 1] += 1 }
                }
                cells[firstPaid.start.month] = cell
            }
        }
        return cells
    }

    @Test func membersMatchTheFiguresOnSampleData() throws {
        let (analytics, timelines, asOf) = try PopulationAgreementTests.shared.get().parts
        var checked = 0

        let grid = try analytics.cohorts(asOf: asOf, periods: 4)
        let expected = Self.expectedCohorts(timelines, asOf: asOf, periods: grid.periods)
        #expect(Set(grid.cohorts.filter { $0.started > 0 }.map(\.month)) == Set(expected.keys))
        for row in grid.cohorts {
            let cell = expected[row.month] ?? ExpectedCohort(periods: grid.periods)
            #expect(row.started == cell.started, "\(row.month) started")
            #expect(row.retained == cell.retained, "\(row.month) retained")
            let started = try analytics.size(of: .cohortStarted(month: row.month), asOf: asOf)
            #expect(started.figure == cell.started, "\(row.month) started listed")
            for k in 1...grid.periods {
                let retained = try analytics.size(of: .cohortRetained(month: row.month, period: k), asOf: asOf)
                #expect(retained.figure == cell.retained[k - 1], "\(row.month) retained P\(k)")
                // `c` lists those ended by Pk: ended[1] + … + ended[k].
                #expect(row.ended[..<k].reduce(0, +) == cell.endedBy[k - 1], "\(row.month) ended by P\(k)")
                let ended = try analytics.size(of: .cohortEnded(month: row.month, period: k), asOf: asOf)
                #expect(ended.figure == cell.endedBy[k - 1], "\(row.month) ended by P\(k) listed")
                checked += retained.figure + ended.figure
            }
        }
        // One cell listed in full: its subscriptions, each once.
        let cell = try #require(grid.cohorts.max { $0.retained[1] < $1.retained[1] })
        let listed = try Self.members(.cohortRetained(month: cell.month, period: 2), analytics, asOf: asOf, limit: 7)
        let size = try analytics.size(of: .cohortRetained(month: cell.month, period: 2), asOf: asOf)
        #expect(listed.count == size.subscriptions)
        #expect(Set(listed).count == listed.count)
        #expect(size.figure == cell.retained[1] && size.figure > 7)

        let states = try analytics.states(asOf: asOf)
        for state in SubscriptionState.allCases {
            let size = try analytics.size(of: .states([state]), asOf: asOf)
            #expect(size.figure == states[state], "\(state)")
            #expect(size.subscriptions == states[state])
            #expect(try Self.members(.states([state]), analytics, asOf: asOf).count == states[state], "\(state) listed")
        }
        let active = SubscriptionState.allCases.filter(\.isActive)
        #expect(try analytics.size(of: .states(active), asOf: asOf).figure == states.active)

        for month in [asOf.month, asOf.month.previous, asOf.month.adding(months: -6)] {
            let events = try analytics.events(from: month.start, to: month.end, asOf: asOf)
            for type in EventType.allCases {
                let population = SubscriberPopulation.events(type, from: month.start, to: month.end)
                let size = try analytics.size(of: population, asOf: asOf)
                #expect(size.figure == events[type], "\(type) in \(month)")
                #expect(size.subscriptions <= size.figure)
                #expect(try Self.members(population, analytics, asOf: asOf, limit: 100).count == size.subscriptions)
                checked += size.figure
            }
        }
        #expect(checked > 500)
    }

    @Test func aProductNarrowsByThePopulationsOwnRule() throws {
        let (analytics, timelines, asOf) = try PopulationAgreementTests.shared.get().parts
        let product = try #require(try analytics.productIds().first)
        let scope = ReportScope(productId: product)
        let states = try analytics.states(asOf: asOf, scope: scope)
        let size = try analytics.size(of: .states([.standard]), asOf: asOf, scope: scope)
        #expect(size.figure == states[.standard])
        #expect(try Self.members(.states([.standard]), analytics, asOf: asOf, scope: scope).count == states[.standard])
        let grid = try analytics.cohorts(asOf: asOf, periods: 2, scope: scope)
        let expected = Self.expectedCohorts(timelines, asOf: asOf, periods: 2, product: product)
        #expect(Set(grid.cohorts.filter { $0.started > 0 }.map(\.month)) == Set(expected.keys))
        #expect(expected.values.contains { $0.retained[0] > 0 })
        for row in grid.cohorts {
            let cell = expected[row.month] ?? ExpectedCohort(periods: 2)
            #expect(row.retained == cell.retained, "\(row.month)")
            #expect(
                try analytics.size(of: .cohortRetained(month: row.month, period: 1), asOf: asOf, scope: scope).figure
                    == cell.retained[0])
        }
    }
}
