import Foundation
import SubscriptionModel
import Testing

@testable import LifecycleSimulator

@Suite("lifecycle model")
struct LifecycleModelTests {
    static let model = LifecycleModel(
        seed: 2024, start: Month(year: 2024, month: 1), months: 24,
        v2From: Month(year: 2025, month: 1).start)

    @Test func everyScenarioAndNotificationKindOccurs() {
        var scenarios = Set<ScenarioEvent>()
        var kinds = Set<NotificationKind>()
        for index in 0..<3000 {
            let life = Self.model.subscriber(index)
            for one in [life] + Self.model.familyMembers(of: life) {
                scenarios.formUnion(one.scenarios)
                kinds.formUnion(one.notifications.map(\.kind))
            }
        }
        // Commitments and late refunds come only with their options (CommitmentTests).
        let optional: Set<ScenarioEvent> = [
            .lateRefund, .commitment, .commitmentRenewed, .commitmentCanceled, .commitmentExpiredAfterCancel,
            .commitmentBillingRecovery, .commitmentBillingExpired, .commitmentEarlierPaymentRefunded,
            .commitmentCurrentPaymentRefunded, .commitmentUpgrade,
        ]
        #expect(scenarios.isDisjoint(with: optional))
        #expect(
            Set(ScenarioEvent.allCases).subtracting(optional).subtracting(scenarios).isEmpty,
            "missing: \(Set(ScenarioEvent.allCases).subtracting(optional).subtracting(scenarios).map(\.rawValue).sorted())")
        #expect(
            Set(NotificationKind.allCases).subtracting(kinds).isEmpty,
            "missing: \(Set(NotificationKind.allCases).subtracting(kinds).map(\.rawValue).sorted())")
    }

    @Test func sameIndexSameLifecycleInAnyOrder() {
        let forward = (0..<50).map { Self.model.subscriber($0) }
        let backward = (0..<50).reversed().map { Self.model.subscriber($0) }.reversed()
        for (a, b) in zip(forward, backward) {
            #expect(a.transactions == b.transactions)
            #expect(a.notifications == b.notifications)
        }
        let other = LifecycleModel(seed: 2025, start: Month(year: 2024, month: 1), months: 24, v2From: Self.model.v2From)
        #expect((0..<20).contains { other.subscriber($0).transactions != forward[$0].transactions })
    }

    @Test func nothingIsDatedAfterTheHorizonAndTimeRunsForward() {
        var openAtHorizon = 0
        for index in 0..<2000 {
            let life = Self.model.subscriber(index)
            #expect(!life.transactions.isEmpty)
            for t in life.transactions {
                #expect(t.purchaseDate >= Self.model.start && t.purchaseDate < Self.model.horizon)
                #expect(t.expiresDate > t.purchaseDate)
                if let revoked = t.revocationDate { #expect(revoked < Self.model.horizon && revoked > t.purchaseDate) }
                if let cut = t.upgradedAt { #expect(cut < t.expiresDate) }
            }
            // Renewals may be charged up to a day early, never more.
            for (a, b) in zip(life.transactions, life.transactions.dropFirst()) where b.run == a.run && a.upgradedAt == nil {
                #expect(b.purchaseDate.milliseconds >= a.expiresDate.milliseconds - Instant.millisecondsPerDay)
            }
            #expect(life.notifications.allSatisfy { $0.instant < Self.model.horizon })
            #expect(zip(life.notifications, life.notifications.dropFirst()).allSatisfy { $0.instant <= $1.instant })
            #expect(life.notifications.first?.kind == .initialBuy)
            if life.runs.last?.end == nil { openAtHorizon += 1 }
        }
        #expect(openAtHorizon > 0)
    }

    /// App Store Connect's example: 61/49/38/32 % of paid subscribers still paying after 1…4
    /// renewals. Counted on runs old enough that k renewals (plus a 60-day retry) fit before
    /// the horizon, so censoring does not bias the figure.
    @Test func retentionFollowsAppStoreConnectsExample() {
        let model = LifecycleModel(seed: 77, start: Month(year: 2022, month: 1), months: 36, v2From: Instant(milliseconds: 0))
        var retained = [Int](repeating: 0, count: 5)
        var eligible = [Int](repeating: 0, count: 5)
        for index in 0..<20_000 {
            let life = model.subscriber(index)
            for run in life.runs {
                guard let firstPaid = run.firstPaidStart else { continue }
                let product = life.transactions.first { $0.run == life.runs.firstIndex(of: run) && !$0.isFree }?.product ?? 0
                for k in 1...4 {
                    let needed = Catalog.products[product].duration.advance(firstPaid, by: k + 1).adding(days: 61)
                    guard needed < model.horizon else { continue }
                    eligible[k] += 1
                    if run.paidPeriods >= k + 1 { retained[k] += 1 }
                }
            }
        }
        for k in 1...4 {
            let rate = Double(retained[k]) / Double(max(1, eligible[k]))
            #expect(eligible[k] > 2000)
            #expect(
                abs(rate - LifecycleModel.retentionTargets[k - 1]) < 0.03,
                "after \(k) renewals: \(rate) against \(LifecycleModel.retentionTargets[k - 1]) (\(retained[k])/\(eligible[k]))")
        }
    }
}
