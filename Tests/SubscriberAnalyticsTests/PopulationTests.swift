import Testing
import SubscriberAnalytics
import SubscriptionModel
import SubscriptionTimeline

/// The subscribers behind a figure are exactly as many as the figure says, on the SampleData store,
/// and paging through them with `subscriberList` lists each of their subscriptions once.
@Suite struct PopulationTests {
    /// Every member subscription, a page of `limit` at a time.
    static func members(_ population: SubscriberPopulation, _ analytics: SubscriberAnalytics, asOf: Instant,
                        scope: ReportScope = ReportScope(), limit: Int = 40) throws -> [String] {
        var ids: [String] = []
        while true {
            let page = try analytics.subscriberList(offset: ids.count, limit: limit, asOf: asOf, scope: scope, population: population)
            ids += page.map(\.id)
            if page.count < limit { return ids }
        }
    }

    @Test func membersMatchTheFiguresOnSampleData() throws {
        let analytics = try SampleDataConsistencyTests.store()
        let asOf = try #require(try analytics.dataHorizon())
        var checked = 0

        let grid = try analytics.cohorts(asOf: asOf, periods: 4)
        for row in grid.cohorts {
            let started = try analytics.size(of: .cohortStarted(month: row.month), asOf: asOf)
            #expect(started.figure == row.started, "\(row.month) started")
            for k in 1...grid.periods {
                let retained = try analytics.size(of: .cohortRetained(month: row.month, period: k), asOf: asOf)
                #expect(retained.figure == row.retained[k - 1], "\(row.month) retained P\(k)")
                // `c` lists those ended by Pk: ended[1] + … + ended[k].
                let ended = try analytics.size(of: .cohortEnded(month: row.month, period: k), asOf: asOf)
                #expect(ended.figure == row.ended[..<k].reduce(0, +), "\(row.month) ended by P\(k)")
                checked += retained.figure
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
        let analytics = try SampleDataConsistencyTests.store()
        let asOf = try #require(try analytics.dataHorizon())
        let product = try #require(try analytics.productIds().first)
        let scope = ReportScope(productId: product)
        let states = try analytics.states(asOf: asOf, scope: scope)
        let size = try analytics.size(of: .states([.standard]), asOf: asOf, scope: scope)
        #expect(size.figure == states[.standard])
        #expect(try Self.members(.states([.standard]), analytics, asOf: asOf, scope: scope).count == states[.standard])
        let grid = try analytics.cohorts(asOf: asOf, periods: 2, scope: scope)
        for row in grid.cohorts {
            #expect(try analytics.size(of: .cohortRetained(month: row.month, period: 1), asOf: asOf, scope: scope).figure
                == row.retained[0])
        }
    }
}
