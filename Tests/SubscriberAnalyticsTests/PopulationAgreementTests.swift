import GRDB
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

/// The population reports are SQL over rows import materialised; `report subscriber` derives
/// one timeline in Swift. On the simulated SampleData both must tell the same story: counted one
/// subscriber at a time, the timelines give exactly the SQL figures.
@Suite struct PopulationAgreementTests {
    /// The SampleData store and the timeline of every production subscription in it, made once.
    struct Population: Sendable {
        let analytics: SubscriberAnalytics
        let timelines: [SubscriptionTimeline]
        let horizon: Instant

        var parts: (SubscriberAnalytics, [SubscriptionTimeline], Instant) { (analytics, timelines, horizon) }
    }

    static let shared = Result<Population, any Error> {
        // A copy: the money tests that share this population write their price table into it.
        let analytics = SubscriberAnalytics(database: try SampleDataStore.copy(.sharedSecret))
        let ids = try analytics.database.writer.read { db in
            try String.fetchAll(
                db, sql: "SELECT originalTransactionId FROM subscription WHERE environment = 'Production' ORDER BY 1")
        }
        let timelines = try ids.map { SubscriptionTimeline.derive(try analytics.database.facts(of: $0)) }
        guard let horizon = try analytics.dataHorizon() else { throw PopulationError.emptyStore }
        return Population(analytics: analytics, timelines: timelines, horizon: horizon)
    }

    enum PopulationError: Error { case emptyStore }

    /// States and offers at many instants; events, expiration reasons and billing recovery month
    /// by month; for each `--ownership` (offers count purchased subscriptions whatever it says).
    @Test(arguments: OwnershipFilter.allCases)
    func sqlFiguresAreTheSumOfTheTimelines(ownership: OwnershipFilter) throws {
        let (analytics, everyone, horizon) = try Self.shared.get().parts
        let scope = ReportScope(ownership: ownership)
        let timelines = everyone.filter { ownership.ownerships.contains($0.ownership) }
        let purchased = everyone.filter { $0.ownership == .purchased }
        // SampleData holds family members: each choice is a population of its own.
        #expect(timelines.count > (ownership == .familyShared ? 100 : 600))

        // States at the first of every month, at a noon in between, and at the horizon.
        var instants: [Instant] = [horizon]
        var month = Month(year: 2024, month: 1)
        while month <= horizon.month {
            instants += [month.start, month.start.adding(days: 13).adding(hours: 12)]
            month = month.next
        }
        var seen: [OfferFlagKind: Int] = [:]
        for at in instants where at <= horizon {
            var counts: [SubscriptionState: Int] = [:]
            var offers: [OfferFlagKind: Int] = [:]
            for t in timelines {
                guard let s = t.state(at: at) else { continue }
                counts[s, default: 0] += 1
            }
            for t in purchased {
                for offer in Self.offers(t, at: at) { offers[offer, default: 0] += 1 }
            }
            #expect(try analytics.states(asOf: at, scope: scope).counts.filter { $0.value > 0 } == counts, "states at \(at)")
            var sqlOffers: [OfferFlagKind: Int] = [:]
            for e in try analytics.eligibility(asOf: at, scope: scope) { sqlOffers[e.offer, default: 0] += 1 }
            #expect(sqlOffers == offers, "offers at \(at)")
            seen.merge(offers, uniquingKeysWith: +)
        }

        // Every offer is suggested somewhere along the way, so the comparison above is not empty.
        #expect(OfferFlagKind.allCases.allSatisfy { seen[$0, default: 0] > 0 }, "\(seen)")
        // Events month by month.
        var sharingRevocations = 0
        month = Month(year: 2024, month: 1)
        while month <= horizon.month {
            var counts: [EventType: Int] = [:]
            var reasons: [ExpirationReason: Int] = [:]
            for t in timelines {
                for e in t.events(in: month.start..<month.end, asOf: horizon) {
                    counts[e.type, default: 0] += 1
                    if let r = e.expirationReason { reasons[r, default: 0] += 1 }
                }
            }
            // Billing recovery of the failures with T in the month, read at the horizon.
            var outcomes = (failures: 0, recovered: 0, expired: 0, within: [Int: Int]())
            for t in timelines {
                for f in t.billingFailures where f.at >= month.start && f.at < month.end {
                    guard let outcome = f.outcome(asOf: horizon) else { continue }
                    outcomes.failures += 1
                    switch outcome {
                    case .recovered(let days):
                        outcomes.recovered += 1
                        for d in RecoveryReport.dayThresholds where days <= Double(d) { outcomes.within[d, default: 0] += 1 }
                    case .expired: outcomes.expired += 1
                    case .pending: break
                    }
                }
            }
            let recovery = try analytics.recovery(from: month.start, to: month.end, asOf: horizon, scope: scope)
            #expect(
                recovery.failures == outcomes.failures && recovery.recovered == outcomes.recovered
                    && recovery.expired == outcomes.expired, "recovery in \(month)")
            #expect(recovery.recoveredWithinDays.filter { $0.value > 0 } == outcomes.within, "recovered within in \(month)")
            let sql = try analytics.events(from: month.start, to: month.end, asOf: horizon, scope: scope)
            #expect(sql.counts.filter { $0.value > 0 } == counts, "events in \(month)")
            #expect(sql.expirationReasons.filter { $0.value > 0 } == reasons, "expiration reasons in \(month)")
            sharingRevocations += sql[.sharingRevoked]
            month = month.next
        }
        #expect(ownership == .purchased ? sharingRevocations == 0 : sharingRevocations > 0)
    }

    /// Retention cohorts at the horizon and at a mid-point: members, retained and ended per cell, and
    /// every rate the Kaplan–Meier product of its cell's counts (computed here step by step).
    @Test func cohortsAreTheSumOfTheRuns() throws {
        let (analytics, timelines, horizon) = try Self.shared.get().parts
        let periods = 6
        for asOf in [horizon, Month(year: 2024, month: 9).start.adding(days: 9)] {
            var cells: [Month: (started: Int, retained: [Int], ended: [Int])] = [:]
            for t in timelines {
                for run in t.runs {
                    guard let first = run.firstPaidStart, first <= asOf, let month = run.cohortMonth else { continue }
                    let paid = run.paidPeriods(asOf: asOf)
                    let ended = run.endedAt <= asOf
                    var cell = cells[month] ?? (0, Array(repeating: 0, count: periods), Array(repeating: 0, count: periods))
                    cell.started += 1
                    for k in 1...periods {
                        if paid >= k + 1 { cell.retained[k - 1] += 1 }
                        if ended && paid == k { cell.ended[k - 1] += 1 }
                    }
                    cells[month] = cell
                }
            }
            let grid = try analytics.cohorts(asOf: asOf, periods: periods)
            #expect(grid.cohorts.filter { $0.started > 0 }.count == cells.count)
            for row in grid.cohorts {
                let cell = cells[row.month] ?? (0, Array(repeating: 0, count: periods), Array(repeating: 0, count: periods))
                #expect(row.started == cell.started, "\(row.month) at \(asOf)")
                #expect(row.retained == cell.retained, "\(row.month) at \(asOf)")
                #expect(row.ended == cell.ended, "\(row.month) at \(asOf)")
                var product = 1.0
                var known = true
                for k in 0..<periods {
                    let denominator = cell.retained[k] + cell.ended[k]
                    if product > 0 && known {
                        if denominator == 0 { known = false } else { product *= Double(cell.retained[k]) / Double(denominator) }
                    }
                    let expected: Double? = known || product == 0 ? product : nil
                    if let expected, let rate = row.rate[k] {
                        #expect(abs(rate - expected) < 1e-12, "\(row.month) P\(k + 1) at \(asOf)")
                    } else {
                        #expect(row.rate[k] == nil && expected == nil, "\(row.month) P\(k + 1) at \(asOf)")
                    }
                }
            }
        }
    }

    /// docs/metrics.md, "Offer eligibility", read off one timeline (windows half-open).
    static func offers(_ t: SubscriptionTimeline, at: Instant) -> [OfferFlagKind] {
        guard let state = t.state(at: at) else { return [] }
        var result: [OfferFlagKind] = []
        let day = Instant.millisecondsPerDay
        if state == .expired, let run = t.latestRun(asOf: at), run.endedAt <= at,
            run.endedAt.milliseconds > at.milliseconds - 180 * day,
            run.expirationReason == .voluntary || run.expirationReason == .priceIncrease
        {
            result.append(.winBackOffer)
        }
        let paid = t.paidPeriods(asOf: at)
        let covering = t.periods.last { $0.covers(at) }
        if state.isActive, t.autoRenew(at: at) == false { result.append(.retention) }
        if state.isActive, let p = covering, p.expiresDate.milliseconds - p.start.milliseconds < 60 * day, paid >= 6 {
            result.append(.upgrade)
        }
        if state.isActive, paid >= 12, t.autoRenew(at: at) == true { result.append(.loyalty) }
        let recentFailures = t.billingFailures.filter { $0.at <= at && $0.at.milliseconds > at.milliseconds - 365 * day }
        if state == .gracePeriod || state == .billingRetry || recentFailures.count >= 2 { result.append(.service) }
        return result
    }
}
