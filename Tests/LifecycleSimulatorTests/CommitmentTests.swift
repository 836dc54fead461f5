import Foundation
import SubscriptionModel
import Testing

@testable import LifecycleSimulator

/// Monthly payments with a 12-month commitment and late refunds, as `generate --commitment-share`
/// and `--late-refund-rate` simulate them (docs/metrics.md, "Generated data").
@Suite("commitments and late refunds")
struct CommitmentTests {
    /// v2 throughout and three years long, so terms complete and renew.
    static let model: LifecycleModel = {
        var model = LifecycleModel(
            seed: 31, start: Month(year: 2023, month: 1), months: 36, v2From: Month(year: 2023, month: 1).start)
        model.commitmentShare = 0.4
        model.lateRefundRate = 0.05
        return model
    }()
    static let lives = (0..<1500).map { model.subscriber($0) }

    static func lives(with scenario: ScenarioEvent) -> [SubscriberLifecycle] {
        lives.filter { $0.scenarios.contains(scenario) }
    }

    static let yearly = Catalog.products[Catalog.proYearly].productId

    /// A JSON number as Int64 (nil when absent or not a number).
    func num(_ value: Any?) -> Int64? { (value as? NSNumber)?.int64Value }

    @Test func everyCommitmentCaseOccursAndNoneInTheUS() {
        let commitmentCases: [ScenarioEvent] = [
            .commitment, .commitmentRenewed, .commitmentCanceled, .commitmentExpiredAfterCancel,
            .commitmentBillingRecovery, .commitmentBillingExpired, .commitmentEarlierPaymentRefunded,
            .commitmentCurrentPaymentRefunded, .commitmentUpgrade, .lateRefund,
        ]
        for scenario in commitmentCases { #expect(!Self.lives(with: scenario).isEmpty, "no \(scenario.rawValue)") }
        let withCommitments = Self.lives.filter { $0.transactions.contains { $0.commitment != nil } }
        // 0.4 of all subscribers is every one outside the US (whose runs are all commitments here).
        #expect(
            withCommitments.count == Self.lives.filter { SimulatedStorefront.of(subscriber: $0.index).offersCommitments }.count)
        for life in withCommitments {
            #expect(SimulatedStorefront.of(subscriber: life.index).code != "USA", "subscriber \(life.index)")
            #expect(Self.model.familyMembers(of: life).isEmpty)
            for t in life.transactions where t.commitment != nil {
                #expect(t.productId == Self.yearly && t.price == 5_990 && t.offer == nil)
                #expect(t.commitment?.periods == 12 && t.commitment?.price == 71_880)
                // One month per payment (on the commitment's day of month, clamped: 28 to 31 days).
                let days = (t.expiresDate.milliseconds - t.purchaseDate.milliseconds) / Instant.millisecondsPerDay
                #expect((28...31).contains(days), "\(t.purchaseDate) to \(t.expiresDate)")
            }
        }
    }

    @Test func withoutTheOptionsNothingChanges() {
        let plain = LifecycleModel(seed: 31, start: Month(year: 2023, month: 1), months: 36, v2From: Self.model.v2From)
        var zero = plain
        zero.commitmentShare = 0
        zero.lateRefundRate = 0
        for index in 0..<200 {
            let a = plain.subscriber(index)
            let b = zero.subscriber(index)
            #expect(a.transactions == b.transactions && a.notifications == b.notifications)
            #expect(!a.transactions.contains { $0.commitment != nil || $0.isLateRefund })
        }
        // v1 never has them: the same options with v2 never reached.
        let v1Plain = LifecycleModel(
            seed: 31, start: Month(year: 2023, month: 1), months: 36, v2From: Instant(milliseconds: .max))
        var v1Only = LifecycleModel(
            seed: 31, start: Month(year: 2023, month: 1), months: 36, v2From: Instant(milliseconds: .max))
        v1Only.commitmentShare = 0.4
        v1Only.lateRefundRate = 0.5
        for index in 0..<200 {
            let life = v1Only.subscriber(index)
            #expect(!life.transactions.contains { $0.commitment != nil || $0.isLateRefund })
            #expect(life.transactions == v1Plain.subscriber(index).transactions)
        }
    }

    @Test func aFullTermRenewsIntoTheNextOne() throws {
        let life = try #require(Self.lives(with: .commitmentRenewed).first)
        let payments = life.transactions.filter { $0.commitment != nil }
        let twelfth = try #require(payments.firstIndex { $0.commitment?.period == 12 })
        let next = payments[twelfth + 1]
        let first = payments[twelfth - 11]
        #expect(payments[(twelfth - 11)...twelfth].map { $0.commitment!.period } == Array(1...12))
        #expect(first.commitment!.expires == BillingDuration.addMonths(first.purchaseDate, 12))
        #expect(payments[twelfth].expiresDate == first.commitment!.expires)
        #expect(next.commitment!.period == 1 && next.purchaseDate == payments[twelfth].expiresDate && next.isRenewal)
        #expect(next.commitment!.expires == BillingDuration.addMonths(next.purchaseDate, 12))
        let renewal = try #require(life.notifications.first { $0.transaction == life.transactions.firstIndex(of: next) })
        #expect(renewal.kind == .renew && renewal.renewal.commitmentAutoRenew == true)
    }

    @Test func aCancellationMidTermKeepsThePaymentsToTheTwelfth() throws {
        for life in Self.lives(with: .commitmentExpiredAfterCancel).prefix(5) {
            let off = try #require(
                life.notifications.first { $0.kind == .autoRenewDisabled && life.transactions[$0.transaction].commitment != nil })
            // Only the commitment's renewal is off: the renewal info's autoRenewStatus stays on.
            #expect(off.renewal.autoRenewStatus && off.renewal.commitmentAutoRenew == false)
            let atOff = life.transactions[off.transaction].commitment!.period
            #expect(atOff < 12)
            let run = life.transactions[off.transaction].run
            let after = life.transactions[(off.transaction + 1)...].prefix { $0.commitment != nil && $0.run == run }
            #expect(after.map { $0.commitment!.period } == Array((atOff + 1)...12))
            for n in life.notifications
            where n.kind == .renew && n.instant > off.instant && n.transaction <= off.transaction + after.count {
                #expect(n.renewal.autoRenewStatus && n.renewal.commitmentAutoRenew == false)
            }
            let expired = try #require(life.notifications.first { $0.kind == .expiredVoluntary && $0.instant > off.instant })
            #expect(expired.instant == life.transactions[off.transaction + after.count].expiresDate)
            #expect(expired.renewal.expirationIntent == 1)
            #expect(life.runs.contains { $0.end == expired.instant && $0.reason == .voluntary })
        }
    }

    @Test func aFailureRecoveredMovesTheEndDate() throws {
        let life = try #require(Self.lives(with: .commitmentBillingRecovery).first)
        let recovery = try #require(life.notifications.first { $0.kind == .billingRecovery })
        let failure = try #require(life.notifications.last { $0.kind == .failToRenew && $0.instant < recovery.instant })
        // No grace period for commitments.
        #expect(failure.renewal.isInBillingRetry && failure.renewal.gracePeriodExpiresDate == nil && failure.renewal.status == 3)
        let recovered = life.transactions[recovery.transaction]
        let before = life.transactions[recovery.transaction - 1]
        let k = recovered.commitment!.period
        #expect(k == before.commitment!.period + 1 && failure.instant == before.expiresDate)
        #expect(recovered.purchaseDate == recovery.instant && recovered.purchaseDate > before.expiresDate)
        // The schedule follows the recovery: the end is 12 − k + 1 payments after it.
        #expect(recovered.commitment!.expires == BillingDuration.addMonths(recovery.instant, 12 - k + 1))
        #expect(recovered.commitment!.expires > before.commitment!.expires)
    }

    @Test func aFailureExpiresAfterNinetyDays() throws {
        let life = try #require(Self.lives(with: .commitmentBillingExpired).first)
        let expired = try #require(life.notifications.first { $0.kind == .expiredBillingRetry })
        let failure = try #require(life.notifications.last { $0.kind == .failToRenew && $0.instant < expired.instant })
        #expect(expired.instant == failure.instant.adding(days: 90))
        #expect(failure.renewal.gracePeriodExpiresDate == nil)
        #expect(life.transactions[failure.transaction].commitment!.period < 11)
        #expect(
            expired.renewal.expirationIntent == 2 && life.runs.contains { $0.reason == .billing && $0.end == expired.instant })
    }

    @Test func refundsOfAnEarlierAndOfTheCurrentPayment() throws {
        let earlier = try #require(Self.lives(with: .commitmentEarlierPaymentRefunded).first)
        let lateIndex = try #require(earlier.transactions.firstIndex { $0.isLateRefund && $0.commitment != nil })
        let refund = try #require(earlier.notifications.first { $0.kind == .refund && $0.transaction == lateIndex })
        let next = earlier.transactions[lateIndex + 1]
        #expect(next.commitment!.period == earlier.transactions[lateIndex].commitment!.period + 1)
        #expect(next.purchaseDate < refund.instant && refund.instant < next.expiresDate)
        // The commitment goes on: still active, nothing turned off.
        #expect(refund.renewal.status == 1 && refund.renewal.autoRenewStatus && refund.renewal.commitmentAutoRenew != nil)

        let current = try #require(Self.lives(with: .commitmentCurrentPaymentRefunded).first)
        let ended = try #require(
            current.notifications.first {
                $0.kind == .refund && !current.transactions[$0.transaction].isLateRefund
                    && current.transactions[$0.transaction].commitment != nil
            })
        let t = current.transactions[ended.transaction]
        #expect(t.commitment != nil && !t.isLateRefund && t.revocationDate == ended.instant)
        #expect(ended.transaction == current.transactions.count - 1 || current.transactions[ended.transaction + 1].run != t.run)
        #expect(current.runs[t.run].reason == .refund && current.runs[t.run].end == ended.instant)
    }

    @Test func anUpgradeEndsTheTerm() throws {
        let life = try #require(Self.lives(with: .commitmentUpgrade).first)
        let upgrade = try #require(
            life.notifications.first { $0.kind == .upgrade && life.transactions[$0.transaction - 1].commitment != nil })
        let cut = life.transactions[upgrade.transaction - 1]
        let new = life.transactions[upgrade.transaction]
        #expect(cut.commitment != nil && cut.upgradedAt == upgrade.instant && cut.expiresDate > upgrade.instant.adding(days: 1))
        #expect(new.commitment == nil && new.product == Catalog.premiumMonthly && new.purchaseDate == upgrade.instant)
        #expect(upgrade.renewal.commitmentAutoRenew == nil && upgrade.renewal.autoRenewProduct == Catalog.premiumMonthly)
    }

    @Test func aLateRefundOfLastMonthLeavesTheSubscriptionGoingOn() throws {
        let life = try #require(Self.lives.first { $0.transactions.contains { $0.isLateRefund && $0.commitment == nil } })
        let index = try #require(life.transactions.firstIndex { $0.isLateRefund && $0.commitment == nil })
        let refunded = life.transactions[index]
        let next = life.transactions[index + 1]
        #expect(Catalog.products[refunded.product].duration == .months(1) && !refunded.isFree && refunded.isRefunded)
        #expect(next.run == refunded.run && next.purchaseDate < refunded.revocationDate!)
        let refund = try #require(life.notifications.first { $0.kind == .refund && $0.transaction == index })
        #expect(refund.instant == refunded.revocationDate && refund.renewal.status == 1 && refund.renewal.autoRenewStatus)
        #expect(!life.notifications.contains { $0.kind == .autoRenewDisabledForRefund && $0.transaction == index })
        // Delivered in time order although recorded at the renewal.
        #expect(life.notifications.map(\.instant) == life.notifications.map(\.instant).sorted())
    }

    /// What Apple's v2 documents carry: the transaction's billing plan and `commitmentInfo`, the
    /// renewal info's next billing plan and the commitment's own renewal.
    @Test func v2DocumentsCarryTheCommitmentFields() throws {
        let life = try #require(Self.lives(with: .commitmentCanceled).first)
        let simulator = try Simulator(
            configuration: {
                var c = SimulationConfiguration(seed: 31, subscribers: 1, start: Month(year: 2023, month: 1), months: 36)
                c.commitmentShare = 0.4
                return c
            }())
        let storefront = SimulatedStorefront.of(subscriber: life.index)
        let off = try #require(
            life.notifications.first { $0.kind == .autoRenewDisabled && life.transactions[$0.transaction].commitment != nil })
        for n in life.notifications.prefix(through: life.notifications.firstIndex(of: off)!) {
            let decoded = try V2Decoded(line: Data(simulator.v2Encoder.body(for: n, of: life)))
            let t = life.transactions[n.transaction]
            #expect(decoded.transaction["billingPlanType"] as? String == "MONTHLY")
            #expect(decoded.transaction["productId"] as? String == Self.yearly)
            #expect(num(decoded.transaction["price"]) == storefront.localPrice(5_990))
            let info = try #require(decoded.transaction["commitmentInfo"] as? [String: Any])
            #expect(num(info["billingPeriodNumber"]) == Int64(t.commitment!.period))
            #expect(num(info["totalBillingPeriods"]) == 12)
            #expect(num(info["commitmentExpiresDate"]) == t.commitment!.expires.milliseconds)
            #expect(num(info["commitmentPrice"]) == storefront.localPrice(5_990) * 12)
            #expect(decoded.renewal["renewalBillingPlanType"] as? String == "MONTHLY")
            #expect(num(decoded.renewal["autoRenewStatus"]) == 1)
            #expect(num(decoded.renewal["renewalPrice"]) == storefront.localPrice(5_990))
            let renewal = try #require(decoded.renewal["commitmentInfo"] as? [String: Any])
            #expect(num(renewal["commitmentAutoRenewStatus"]) == (n == off ? 0 : 1))
            #expect(renewal["commitmentAutoRenewProductId"] as? String == Self.yearly)
            #expect(num(renewal["commitmentRenewalDate"]) == t.commitment!.expires.milliseconds)
            if n == off {
                #expect(decoded.payload["notificationType"] as? String == "DID_CHANGE_RENEWAL_STATUS")
                #expect(decoded.payload["subtype"] as? String == "AUTO_RENEW_DISABLED")
            }
        }
        // An upfront transaction carries none of it.
        let plain = try #require(Self.lives.first { SimulatedStorefront.of(subscriber: $0.index).code == "USA" })
        let decoded = try V2Decoded(line: Data(simulator.v2Encoder.body(for: plain.notifications[0], of: plain)))
        #expect(decoded.transaction["billingPlanType"] == nil && decoded.transaction["commitmentInfo"] == nil)
        #expect(decoded.renewal["renewalBillingPlanType"] == nil && decoded.renewal["commitmentInfo"] == nil)
    }

    /// `--versions both`: the v1 half never mentions a commitment.
    @Test func v1OutputHasNoCommitments() throws {
        let dir = Scratch.directory("commit-both")
        defer { try? FileManager.default.removeItem(at: dir) }
        var configuration = SimulationConfiguration(seed: 4, subscribers: 120, format: .both)
        configuration.commitmentShare = 0.4
        configuration.lateRefundRate = 0.2
        configuration.subscribersPerChunk = 16
        let manifest = try Simulator(configuration: configuration).generate(into: dir)
        #expect((manifest.scenarios["commitment"] ?? 0) > 0 && manifest.commitmentShare == 0.4)
        let v1 = try Data(contentsOf: dir.appendingPathComponent("v1/notifications-0001.ndjson"))
        #expect(!v1.isEmpty && v1.range(of: Data("ommitment".utf8)) == nil && v1.range(of: Data("MONTHLY".utf8)) == nil)
        let v2 = Scratch.lines(try Data(contentsOf: dir.appendingPathComponent("v2/notifications-0001.ndjson")))
        let monthly = try v2.map { try V2Decoded(line: $0) }.filter { $0.transaction["billingPlanType"] as? String == "MONTHLY" }
        #expect(!monthly.isEmpty)
        #expect(monthly.allSatisfy { $0.transaction["storefront"] as? String != "USA" })
    }
}
