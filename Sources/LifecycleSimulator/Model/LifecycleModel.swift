import SubscriptionModel

/// The seeded model of subscriber behaviour. `subscriber(_:)` is a pure function of the
/// model's parameters and the index, so subscribers can be generated in any order and in
/// parallel.
public struct LifecycleModel: Sendable {
    public let seed: UInt64
    public let start: Instant
    /// Nothing is dated at or after the horizon.
    public let horizon: Instant
    /// From this instant on the app receives v2 notifications (win-back offers exist only there).
    public let v2From: Instant
    /// `com.example.pro.monthly` goes up in price (with consent) for renewals from here.
    public let priceIncreaseDate: Instant
    /// The chances of what happens within a run.
    public var runProbabilities = RunProbabilities()
    /// Share of all subscribers who pay monthly with a 12-month commitment, 0…0.4: drawn among
    /// those whose storefront offers commitments (``SimulatedStorefront/offersCommitments``), and
    /// only for runs that start in v2 time (commitments exist only in v2). 0 leaves every other
    /// subscriber's documents as they were.
    public var commitmentShare = 0.0
    /// The chances inside a commitment.
    public var commitmentProbabilities = CommitmentProbabilities()
    /// Chance, per renewal of a monthly upfront product in v2 time, that the month before is
    /// refunded a few days into the new one while the subscription goes on (a late refund).
    public var lateRefundRate = 0.0

    /// App Store Connect's example: share of paid subscribers still paying after 1…12 renewals.
    public static let retentionTargets: [Double] = [0.61, 0.49, 0.38, 0.32, 0.29, 0.25, 0.22, 0.17, 0.15, 0.12, 0.09, 0.07]
    /// Share of free trials that convert to a paid period.
    public static let trialConversion = 0.45

    public init(seed: UInt64, start: Month, months: Int, v2From: Instant) {
        self.seed = seed
        self.start = start.start
        self.horizon = start.adding(months: months).start
        self.v2From = v2From
        self.priceIncreaseDate = start.adding(months: max(1, months / 2)).start
    }

    /// Probability that a run with `paidPeriods` counted paid periods pays for one more.
    public static func continueProbability(afterPaidPeriods paidPeriods: Int) -> Double {
        let r = retentionTargets
        switch paidPeriods {
        case ...0: return 1
        case 1: return r[0]
        case 2...r.count: return r[paidPeriods - 1] / r[paidPeriods - 2]
        default: return 0.92
        }
    }

    public func subscriber(_ index: Int) -> SubscriberLifecycle {
        var generator = LifecycleGenerator(model: self, index: index)
        generator.generate()
        return generator.life
    }
}

/// Walks one subscriber through time: runs of periods, what happens inside each period, and
/// how each period ends.
struct LifecycleGenerator {
    private enum Outcome { case renew, recover, billingExpire, voluntary, priceIncrease, refundNext }
    private enum Action {
        case autoRenewOff, autoRenewOn
        case downgrade(Int)
        case offerRedeemed(SimulatedOffer)
        case priceIncreasePending, priceIncreaseAccepted
    }

    let model: LifecycleModel
    var rng: SplitMix64
    var life: SubscriberLifecycle
    private var renewal: RenewalSnapshot
    private let idBase: UInt64
    private var priceIncreaseSettled = false
    private var anchor = Instant(milliseconds: 0), anchorCount = 0, anchorProduct = -1
    /// Billing-plan choices (commitments, late refunds) on a random stream of their own, drawn
    /// only when they are enabled, so without them every document is the same as before.
    private var plans: SplitMix64
    /// Whether this subscriber's runs in v2 time are commitments.
    private var paysMonthlyWithCommitment = false
    /// Set when a notification was recorded ahead of ones dated before it.
    private var needsTimeOrder = false

    private static let hour = Instant.millisecondsPerHour, day = Instant.millisecondsPerDay, minute: Int64 = 60_000
    private static let maxTransactions = 900

    init(model: LifecycleModel, index: Int) {
        self.model = model
        var rng = SplitMix64(seed: model.seed, index: index, stream: 1)
        let sandbox = rng.chance(0.02)
        let token: String? = rng.chance(0.3) ? rng.uuid() : nil
        self.rng = rng
        plans = SplitMix64(seed: model.seed, index: index, stream: 4)
        if model.commitmentShare > 0, SimulatedStorefront.of(subscriber: index).offersCommitments {
            paysMonthlyWithCommitment = plans.chance(
                min(1, model.commitmentShare / SimulatedStorefront.commitmentStorefrontShare))
        }
        life = SubscriberLifecycle(index: index, environment: sandbox ? .sandbox : .production, appAccountToken: token)
        renewal = RenewalSnapshot(autoRenewProduct: 0, recentSubscriptionStartDate: model.start)
        idBase = 2_000_000_000_000_000 + UInt64(index) * 1000
    }

    mutating func generate() {
        generateRuns()
        // A late refund is recorded when its period renews, before what happens later inside the
        // new period: put the notifications back in time order (ties keep their order).
        if needsTimeOrder {
            life.notifications = life.notifications.enumerated()
                .sorted { ($0.element.instant, $0.offset) < ($1.element.instant, $1.offset) }.map(\.element)
        }
    }

    private mutating func generateRuns() {
        if life.environment == .sandbox { life.scenarios.append(.sandbox) }
        if life.appAccountToken != nil { life.scenarios.append(.appAccountToken) }
        var t = Instant(milliseconds: rng.int64(in: model.start.milliseconds..<model.horizon.milliseconds))
        var product = rng.pick([0.15, 0.20, 0.55, 0.10])
        var previous: RunEnd?
        while t < model.horizon, life.transactions.count < Self.maxTransactions {
            guard let ended = simulateRun(from: t, product: product, previous: previous) else { return }
            previous = ended
            let comeBack: Double
            switch ended.reason {
            case .voluntary, .priceIncrease: comeBack = 0.25
            case .billing: comeBack = 0.2
            default: comeBack = 0.1
            }
            guard rng.chance(ended.paid ? comeBack : 0.12) else { return }
            let gapDays: Range<Int64> = [2..<30, 30..<120, 120..<365][rng.pick([0.4, 0.35, 0.25])]
            t = ended.end.adding(milliseconds: rng.int64(in: gapDays.lowerBound * Self.day..<gapDays.upperBound * Self.day))
            if rng.chance(0.25) { product = rng.pick([0.15, 0.20, 0.55, 0.10]) }
        }
    }

    // MARK: - Runs

    /// How a run ended: when, why, and whether it had a paid period.
    typealias RunEnd = (end: Instant, reason: ExpirationReason, paid: Bool)

    /// What the end of one period leads to.
    private enum PeriodEnd {
        /// The run goes on with another period.
        case continues
        /// The run ended.
        case ended(RunEnd)
        /// What comes next falls at or after the horizon: the run is still open there.
        case openAtHorizon
    }

    /// The run being simulated: its index, its current product, and the pay-as-you-go
    /// introductory periods still to come.
    private struct RunCursor {
        let index: Int
        var product: Int
        var introRemaining: Int
    }

    /// Simulates one run from its first purchase; returns how it ended, or nil when it is still
    /// open at the horizon. Each period may be cut by an upgrade; otherwise its outcome is drawn
    /// first, then what happens inside it, then how it ends.
    private mutating func simulateRun(from t: Instant, product: Int, previous: RunEnd?) -> RunEnd? {
        if paysMonthlyWithCommitment, t >= model.v2From { return simulateCommitmentRun(from: t) }
        var run = startRun(at: t, product: product, previous: previous)
        return continueRun(&run)
    }

    /// Simulates the rest of a run whose latest period is the last transaction.
    private mutating func continueRun(_ run: inout RunCursor) -> RunEnd? {
        while life.transactions.count < Self.maxTransactions {
            let current = life.transactions.count - 1
            switch upgradeIfChosen(current: current, run: &run) {
            case .continues: continue
            case .openAtHorizon: return nil
            case .ended(let end): return end
            case nil: break
            }
            let e = life.transactions[current].expiresDate
            let isFree = life.transactions[current].isFree
            let paid = life.runs[run.index].paidPeriods
            let priceIncreaseDue =
                !priceIncreaseSettled && !isFree && Catalog.products[run.product].increasedPrice != nil
                && e >= model.priceIncreaseDate
            let outcome = chooseOutcome(isFree: isFree, paidPeriods: paid, priceIncreaseDue: priceIncreaseDue)
            playPeriod(current: current, outcome: outcome, priceIncreaseDue: priceIncreaseDue, run: run)
            guard e < model.horizon else { return nil }

            let next: PeriodEnd
            switch outcome {
            case .voluntary:
                expire(.expiredVoluntary, at: e, intent: 1)
                life.scenarios.append(.voluntaryExpiration)
                next = .ended((e, .voluntary, paid > 0))
            case .priceIncrease:
                expire(.expiredPriceIncrease, at: e, intent: 3)
                life.scenarios.append(.priceIncreaseExpiration)
                next = .ended((e, .priceIncrease, paid > 0))
            case .billingExpire:
                next = lapseAfterBillingFailure(at: e, isFree: isFree, paid: paid, product: run.product)
            case .recover:
                next = recoverAfterBillingFailure(at: e, isFree: isFree, run: &run)
            case .renew, .refundNext:
                next = renew(at: e, thenRefund: outcome == .refundNext, run: &run)
            }
            switch next {
            case .continues: continue
            case .ended(let end): return end
            case .openAtHorizon: return nil
            }
        }
        return nil
    }

    /// The run's first purchase, with the offer it starts with.
    private mutating func startRun(at t: Instant, product: Int, previous: RunEnd?) -> RunCursor {
        let runIndex = life.runs.count
        life.runs.append(SimulatedRun(start: t))
        let offer = firstOffer(product: product, at: t, previous: previous)
        renewal = RenewalSnapshot(autoRenewProduct: product, recentSubscriptionStartDate: t)
        if priceIncreaseSettled { renewal.priceIncreaseStatus = 1 }
        if t >= model.priceIncreaseDate { priceIncreaseSettled = true }
        anchorProduct = -1
        let introRemaining = offer?.kind == .introductory && offer?.discount == .payAsYouGo ? (offer?.periodCount ?? 1) - 1 : 0
        let firstExpiry = offer?.duration.map { $0.advance(t) } ?? nextExpiry(after: t, product: product)
        if offer?.duration != nil { anchorProduct = -1 }
        addTransaction(product: product, purchase: t, expires: firstExpiry, offer: offer, isRenewal: false, run: runIndex)
        emit(runIndex == 0 ? .initialBuy : .resubscribe, at: t)
        life.scenarios.append(runIndex == 0 ? .activation : .reactivation)
        return RunCursor(index: runIndex, product: product, introRemaining: introRemaining)
    }

    /// By chance, an immediate upgrade to a higher level that cuts the current period short (more
    /// than 24 h before its end, so the overlap reads as an upgrade: docs/metrics.md, "Periods").
    /// Nil when there is none.
    private mutating func upgradeIfChosen(current: Int, run: inout RunCursor) -> PeriodEnd? {
        let chances = model.runProbabilities
        let s = life.transactions[current].purchaseDate
        let e = life.transactions[current].expiresDate
        guard Catalog.products[run.product].level > 1, e.milliseconds - s.milliseconds > 2 * Self.day, rng.chance(chances.upgrade)
        else { return nil }
        let u = s.adding(milliseconds: rng.int64(in: Self.hour..<(e.milliseconds - s.milliseconds - 25 * Self.hour)))
        guard u < model.horizon else { return .openAtHorizon }
        let target =
            run.product == Catalog.proWeekly && rng.chance(chances.weeklyUpgradeToProMonthly)
            ? Catalog.proMonthly : Catalog.premiumMonthly
        life.transactions[current].upgradedAt = u
        if !life.transactions[current].isFree { life.runs[run.index].paidPeriods -= 1 }
        run.product = target
        renewal.autoRenewProduct = target
        renewal.nextOffer = nil
        run.introRemaining = 0
        anchorProduct = -1
        addTransaction(
            product: target, purchase: u, expires: nextExpiry(after: u, product: target), offer: nil,
            isRenewal: false, run: run.index)
        emit(.upgrade, at: u)
        life.scenarios.append(.upgrade)
        return .continues
    }

    /// How a period ends, drawn before anything happens inside it.
    private mutating func chooseOutcome(isFree: Bool, paidPeriods paid: Int, priceIncreaseDue: Bool) -> Outcome {
        let chances = model.runProbabilities
        if rng.chance(isFree ? LifecycleModel.trialConversion : LifecycleModel.continueProbability(afterPaidPeriods: paid)) {
            return rng.chance(isFree ? chances.trialConversionThroughRecovery : chances.renewalThroughRecovery)
                ? .recover : .renew
        }
        if isFree { return rng.chance(chances.trialLapseVoluntary) ? .voluntary : .billingExpire }
        if priceIncreaseDue && rng.chance(chances.priceIncreaseLapse) { return .priceIncrease }
        return [.voluntary, .billingExpire, .refundNext][
            rng.pick([chances.paidEndVoluntary, chances.paidEndBilling, chances.paidEndRefund])]
    }

    /// What happens inside the period, all before a renewal charged up to a day early: a price
    /// increase's notice and consent, auto-renew turned off (and maybe on again), a downgrade, an
    /// offer redeemed.
    private mutating func playPeriod(current: Int, outcome: Outcome, priceIncreaseDue: Bool, run: RunCursor) {
        let chances = model.runProbabilities
        let s = life.transactions[current].purchaseDate
        let e = life.transactions[current].expiresDate
        let isFree = life.transactions[current].isFree
        let latest = e.adding(days: -1)
        var plan: [(at: Instant, action: Action)] = []
        func inside(_ from: Instant, _ to: Instant) -> Instant? {
            to.milliseconds - from.milliseconds > 2 * Self.minute
                ? Instant(milliseconds: rng.int64(in: from.milliseconds + Self.minute..<to.milliseconds - Self.minute)) : nil
        }
        if priceIncreaseDue, let notice = inside(max(s, e.adding(days: -25)), e.adding(days: -2)) {
            plan.append((notice, .priceIncreasePending))
            if outcome != .priceIncrease, let consent = inside(notice, latest) {
                plan.append((consent, .priceIncreaseAccepted))
            }
        }
        var lastOff = latest
        if outcome == .voluntary, let off = inside(s, latest) {
            plan.append((off, .autoRenewOff))
            lastOff = off
        }
        if rng.chance(chances.autoRenewToggle), let off = inside(s, lastOff), let on = inside(off, lastOff) {
            plan.append((off, .autoRenewOff))
            plan.append((on, .autoRenewOn))
        }
        let continuing = outcome == .renew || outcome == .recover
        if continuing, !isFree, let target = Catalog.downgradeTarget(from: run.product), rng.chance(chances.downgrade),
            let at = inside(s, latest)
        {
            plan.append((at, .downgrade(target)))
        }
        if continuing, !isFree, run.introRemaining == 0, case .months(1) = Catalog.products[run.product].duration,
            rng.chance(chances.offerRedemption),
            let at = inside(s, latest)
        {
            let offer =
                rng.chance(chances.promotionalRatherThanOfferCode)
                ? Catalog.promotional(for: run.product) : Catalog.offerCodeLoyalty(for: run.product)
            plan.append((at, .offerRedeemed(offer)))
        }
        plan.sort { $0.at < $1.at }
        for step in plan where step.at < model.horizon { apply(step.action, at: step.at) }
    }

    /// The renewal at `e` fails and is never recovered: billing retry (with a grace period where
    /// the product has one) until it expires after 60 days or the subscriber cancels.
    private mutating func lapseAfterBillingFailure(at e: Instant, isFree: Bool, paid: Int, product: Int) -> PeriodEnd {
        let chances = model.runProbabilities
        let graceEnd = failToRenew(at: e, afterFreePeriod: isFree, product: product)
        let cancels = rng.chance(chances.cancelDuringBillingRetry)
        let end = cancels ? e.adding(milliseconds: rng.int64(in: Self.day..<59 * Self.day)) : e.adding(days: 60)
        if let graceEnd, graceEnd < end {
            guard graceEnd < model.horizon else { return .openAtHorizon }
            graceExpired(at: graceEnd)
        }
        guard end < model.horizon else { return .openAtHorizon }
        if cancels {
            renewal.autoRenewStatus = false
            emit(.autoRenewDisabled, at: end)
            life.scenarios.append(.canceledDuringBillingRetry)
            expire(.expiredVoluntary, at: end, intent: 1)
        } else {
            expire(.expiredBillingRetry, at: end, intent: 2)
            life.scenarios.append(.billingRetryExpired)
        }
        return .ended((end, .billing, paid > 0))
    }

    /// The renewal at `e` fails, then is recovered: within the grace period (keeping the
    /// anniversary) or later in billing retry (a new one).
    private mutating func recoverAfterBillingFailure(at e: Instant, isFree: Bool, run: inout RunCursor) -> PeriodEnd {
        let chances = model.runProbabilities
        let graceEnd = failToRenew(at: e, afterFreePeriod: isFree, product: run.product)
        let delay: Int64
        if let graceEnd, rng.chance(chances.recoveryWithinGrace) {
            delay = rng.int64(in: Self.hour..<(graceEnd.milliseconds - e.milliseconds))
        } else {
            delay =
                rng.chance(chances.recoveryWithin16Days)
                ? rng.int64(in: Self.hour..<16 * Self.day) : rng.int64(in: 16 * Self.day..<59 * Self.day)
        }
        let r = e.adding(milliseconds: delay)
        if let graceEnd, graceEnd < r {
            guard graceEnd < model.horizon else { return .openAtHorizon }
            graceExpired(at: graceEnd)
        }
        guard r < model.horizon else { return .openAtHorizon }
        let keepsAnniversary = graceEnd.map { r <= $0 } ?? false
        let next = renewal.autoRenewProduct
        if !keepsAnniversary { anchorProduct = -1 }
        let expires = nextExpiry(after: keepsAnniversary ? e : r, product: next)
        renewal.isInBillingRetry = false
        renewal.gracePeriodExpiresDate = nil
        renewal.status = 1
        renewPeriod(product: next, purchase: r, expires: expires, run: run.index, introRemaining: &run.introRemaining)
        run.product = next
        emit(.billingRecovery, at: r)
        life.scenarios.append(keepsAnniversary ? .recoveryInGracePeriod : .recoveryWithNewAnniversary)
        return .continues
    }

    /// The renewal at `e` (sometimes charged up to a day early); with `thenRefund`, the new period
    /// is refunded within 20 days and the run ends there.
    private mutating func renew(at e: Instant, thenRefund: Bool, run: inout RunCursor) -> PeriodEnd {
        let chances = model.runProbabilities
        let early = rng.chance(chances.earlyRenewal) ? rng.int64(in: Self.minute..<24 * Self.hour) : 0
        let purchase = e.adding(milliseconds: -early)
        let next = renewal.autoRenewProduct
        let expires = nextExpiry(after: e, product: next)
        renewPeriod(product: next, purchase: purchase, expires: expires, run: run.index, introRemaining: &run.introRemaining)
        run.product = next
        emit(.renew, at: purchase)
        life.scenarios.append(early > 0 ? .earlyRenewal : .renewal)
        guard thenRefund else { return refundPreviousMonthIfChosen(run: run) }
        let longest = min(20 * Self.day, expires.milliseconds - purchase.milliseconds - Self.hour)
        let r = purchase.adding(milliseconds: rng.int64(in: 3 * Self.hour..<max(4 * Self.hour, longest)))
        guard r < model.horizon else { return .openAtHorizon }
        let requested = r.adding(milliseconds: -rng.int64(in: Self.hour..<2 * Self.hour))
        renewal.autoRenewStatus = false
        emit(.autoRenewDisabledForRefund, at: requested)
        let refunded = life.transactions.count - 1
        life.transactions[refunded].revocationDate = r
        life.transactions[refunded].revocationReason = rng.chance(chances.refundForOtherReason) ? 0 : 1
        if !life.transactions[refunded].isFree { life.runs[run.index].paidPeriods -= 1 }
        renewal.status = 5
        emit(.refund, at: r)
        life.runs[run.index].end = r
        life.runs[run.index].reason = .refund
        life.scenarios.append(.refund)
        return .ended((r, .refund, life.runs[run.index].paidPeriods > 0))
    }

    // MARK: - Steps

    private mutating func firstOffer(
        product: Int, at t: Instant,
        previous: RunEnd?
    ) -> SimulatedOffer? {
        guard let previous else {
            switch product {
            case Catalog.proMonthly, Catalog.premiumMonthly:
                switch rng.pick([0.35, 0.10, 0.05, 0.04, 0.46]) {
                case 0:
                    life.scenarios.append(.freeTrial)
                    return Catalog.introductoryFreeTrial(for: product)
                case 1 where product == Catalog.proMonthly:
                    life.scenarios.append(.introPayAsYouGo)
                    return Catalog.introductoryPayAsYouGo(for: product)
                case 2 where product == Catalog.proMonthly:
                    life.scenarios.append(.introPayUpFront)
                    return Catalog.introductoryPayUpFront(for: product)
                case 3:
                    life.scenarios.append(.offerCode)
                    return Catalog.offerCodeFreeMonth
                default: return nil
                }
            case Catalog.proYearly:
                if rng.chance(0.4) {
                    life.scenarios.append(.freeTrial)
                    return Catalog.introductoryFreeTrial(for: product)
                }
                if rng.chance(0.05) {
                    life.scenarios.append(.offerCode)
                    return Catalog.offerCodeFreeMonth
                }
                return nil
            default:
                if rng.chance(0.3) {
                    life.scenarios.append(.freeTrial)
                    return Catalog.introductoryFreeTrial(for: product)
                }
                return nil
            }
        }
        let lapsedByChoice = previous.reason == .voluntary || previous.reason == .priceIncrease
        if lapsedByChoice, t >= model.v2From, rng.chance(0.35) {
            life.scenarios.append(.winBack)
            return Catalog.winBack(for: product)
        }
        if rng.chance(0.12) {
            life.scenarios.append(.promotionalOffer)
            return Catalog.promotional(for: product)
        }
        if rng.chance(0.05) {
            life.scenarios.append(.offerCode)
            return Catalog.offerCodeLoyalty(for: product)
        }
        return nil
    }

    private mutating func apply(_ action: Action, at instant: Instant) {
        switch action {
        case .autoRenewOff:
            renewal.autoRenewStatus = false
            emit(.autoRenewDisabled, at: instant)
            life.scenarios.append(.autoRenewOff)
        case .autoRenewOn:
            renewal.autoRenewStatus = true
            emit(.autoRenewEnabled, at: instant)
            life.scenarios.append(.autoRenewOn)
        case .downgrade(let target):
            renewal.autoRenewProduct = target
            emit(.downgrade, at: instant)
            life.scenarios.append(.downgrade)
        case .offerRedeemed(let offer):
            renewal.nextOffer = offer
            emit(.offerRedeemed, at: instant)
            life.scenarios.append(offer.kind == .promotional ? .promotionalOffer : .offerCode)
        case .priceIncreasePending:
            renewal.priceIncreaseStatus = 0
            emit(.priceIncreasePending, at: instant)
            life.scenarios.append(.priceIncreaseNotice)
        case .priceIncreaseAccepted:
            renewal.priceIncreaseStatus = 1
            priceIncreaseSettled = true
            emit(.priceIncreaseAccepted, at: instant)
            life.scenarios.append(.priceIncreaseConsent)
        }
    }

    /// Enters billing retry at `e`; returns the end of the grace period when there is one.
    /// Grace covers paid-to-paid renewals only (App Store Connect's `PAID_TO_PAID_ONLY`).
    private mutating func failToRenew(at e: Instant, afterFreePeriod: Bool, product: Int) -> Instant? {
        let graceDays = afterFreePeriod ? 0 : Catalog.products[product].graceDays
        let graceEnd: Instant? = graceDays > 0 ? e.adding(days: Int64(graceDays)) : nil
        renewal.isInBillingRetry = true
        renewal.gracePeriodExpiresDate = graceEnd
        renewal.status = graceEnd == nil ? 3 : 4
        emit(graceEnd == nil ? .failToRenew : .failToRenewGracePeriod, at: e)
        life.scenarios.append(graceEnd == nil ? .billingFailureWithoutGrace : .billingFailureWithGrace)
        return graceEnd
    }

    private mutating func graceExpired(at instant: Instant) {
        renewal.status = 3
        emit(.gracePeriodExpired, at: instant)
        life.scenarios.append(.gracePeriodExpired)
    }

    private mutating func expire(_ kind: NotificationKind, at instant: Instant, intent: Int) {
        renewal.autoRenewStatus = false
        renewal.isInBillingRetry = false
        renewal.expirationIntent = intent
        renewal.status = 2
        emit(kind, at: instant)
        let run = life.runs.count - 1
        life.runs[run].end = instant
        life.runs[run].reason = ExpirationReason(expirationIntent: intent)
        if kind == .expiredBillingRetry || life.scenarios.last == .canceledDuringBillingRetry { life.runs[run].reason = .billing }
    }

    private mutating func renewPeriod(product: Int, purchase: Instant, expires: Instant, run: Int, introRemaining: inout Int) {
        let previousOffer = life.transactions.last?.offer
        var offer = renewal.nextOffer
        renewal.nextOffer = nil
        if offer == nil, introRemaining > 0, let intro = previousOffer, intro.discount == .payAsYouGo {
            offer = intro
            introRemaining -= 1
        } else {
            introRemaining = 0
        }
        addTransaction(product: product, purchase: purchase, expires: expires, offer: offer, isRenewal: true, run: run)
    }

    private mutating func addTransaction(
        product: Int, purchase: Instant, expires: Instant, offer: SimulatedOffer?,
        isRenewal: Bool, run: Int, price: Int64? = nil
    ) {
        let sequence = UInt64(life.transactions.count)
        let base = Catalog.products[product]
        if purchase >= model.priceIncreaseDate, !isRenewal { priceIncreaseSettled = true }
        let listPrice = base.increasedPrice.map { priceIncreaseSettled ? $0 : base.price } ?? base.price
        let transaction = SimulatedTransaction(
            transactionId: idBase + sequence, webOrderLineItemId: idBase + 500 + sequence, product: product,
            purchaseDate: purchase, expiresDate: expires, offer: offer, price: price ?? offer?.price ?? listPrice,
            isRenewal: isRenewal, run: run)
        life.transactions.append(transaction)
        if !transaction.isFree {
            life.runs[run].paidPeriods += 1
            if life.runs[run].firstPaidStart == nil { life.runs[run].firstPaidStart = purchase }
        }
    }

    /// The expiry of the period after one ending at `end`, keeping the anniversary while the
    /// product stays the same.
    private mutating func nextExpiry(after end: Instant, product: Int) -> Instant {
        let duration = Catalog.products[product].duration
        if product == anchorProduct, duration.advance(anchor, by: anchorCount) == end {
            anchorCount += 1
        } else {
            anchor = end
            anchorCount = 1
            anchorProduct = product
        }
        return duration.advance(anchor, by: anchorCount)
    }

    /// Records a notification about `transaction` (the latest one by default).
    private mutating func emit(
        _ kind: NotificationKind, at instant: Instant, transaction: Int? = nil, notificationUUID: String? = nil
    ) {
        guard instant < model.horizon else { return }
        life.notifications.append(
            SimulatedNotification(
                kind: kind, instant: instant, transaction: transaction ?? life.transactions.count - 1,
                renewal: renewal, notificationUUID: notificationUUID ?? rng.uuid()))
    }

    // MARK: - Late refunds

    /// By chance (in v2 time, for monthly products), a refund of last month's charge a few days
    /// into the month that just renewed: Apple returns the money and the subscription goes on.
    private mutating func refundPreviousMonthIfChosen(run: RunCursor) -> PeriodEnd {
        guard model.lateRefundRate > 0, life.ownership == .purchased else { return .continues }
        let current = life.transactions.count - 1
        let previous = current - 1
        guard previous >= 0 else { return .continues }
        let p = life.transactions[previous]
        let c = life.transactions[current]
        guard p.run == run.index, c.purchaseDate >= model.v2From, !p.isFree, p.revocationDate == nil,
            p.upgradedAt == nil, p.commitment == nil, case .months(1) = Catalog.products[p.product].duration,
            plans.chance(model.lateRefundRate)
        else { return .continues }
        let longest = min(10 * Self.day, c.expiresDate.milliseconds - c.purchaseDate.milliseconds - Self.hour)
        let r = c.purchaseDate.adding(milliseconds: plans.int64(in: Self.hour..<max(2 * Self.hour, longest)))
        guard r < model.horizon else { return .continues }
        refundEarlierPeriod(previous, at: r, run: run.index)
        life.scenarios.append(.lateRefund)
        return .continues
    }

    /// Revokes period `index` at `r` (after the next period started) and reports the refund.
    /// Drawn from the billing-plan stream only, and the run's paid periods (which the next
    /// renewal's chance reads) keep it, so the rest of the subscriber's life is the same as
    /// without the refund.
    private mutating func refundEarlierPeriod(_ index: Int, at r: Instant, run: Int) {
        life.transactions[index].revocationDate = r
        life.transactions[index].revocationReason = plans.chance(model.runProbabilities.refundForOtherReason) ? 0 : 1
        life.transactions[index].isLateRefund = true
        let id = plans.uuid()
        emit(.refund, at: r, transaction: index, notificationUUID: id)
        needsTimeOrder = true
    }

    // MARK: - Commitments

    /// How one commitment term ends, with the payment it happens in.
    private enum TermEnd: Equatable {
        case renews
        /// Commitment auto-renew turned off inside payment k; the payments go on to the last.
        case canceled(Int)
        /// Payment k fails and is never recovered.
        case billingExpires(Int)
        /// Payment k is refunded.
        case currentRefunded(Int)
        /// An upgrade inside payment k.
        case upgraded(Int)

        /// The payment in which the term stops early, if it does.
        var stopsAt: Int? {
            switch self {
            case .renews, .canceled: return nil
            case .billingExpires(let k), .currentRefunded(let k), .upgraded(let k): return k
            }
        }
    }

    /// A run of monthly payments with 12-month commitments of ``Catalog/commitmentProduct``, from
    /// its first purchase at `t`: terms renew into the next one until one ends (docs/metrics.md,
    /// "Billing plans and commitments"). Returns how the run ended, nil when still open at the
    /// horizon.
    private mutating func simulateCommitmentRun(from t: Instant) -> RunEnd? {
        let n = Catalog.commitmentPayments
        let product = Catalog.commitmentProduct
        let runIndex = life.runs.count
        life.runs.append(SimulatedRun(start: t))
        renewal = RenewalSnapshot(autoRenewProduct: product, recentSubscriptionStartDate: t)
        renewal.commitmentAutoRenew = true
        anchorProduct = -1
        var termStart = t
        var firstTerm = true
        while life.transactions.count < Self.maxTransactions {
            let end = drawTermEnd()
            let chances = model.commitmentProbabilities
            let stop = end.stopsAt ?? n + 1
            let recoveredAt: Int? =
                stop > 3 && plans.chance(chances.recoveredFailure) ? plans.int(in: 2..<min(stop, n)) : nil
            let earlierRefundAt: Int? =
                stop > 2 && plans.chance(chances.earlierPaymentRefunded) ? plans.int(in: 2..<min(stop, n + 1)) : nil
            // Payment k's period ends addMonths(anchor, k - anchorPayment); a recovery moves the anchor.
            var anchor = termStart
            var anchorPayment = 0
            var commitmentEnd = BillingDuration.addMonths(anchor, n)
            renewal.commitmentAutoRenew = true
            for k in 1...n {
                let purchase: Instant
                if k == 1 && firstTerm {
                    purchase = t
                } else {
                    let e = life.transactions[life.transactions.count - 1].expiresDate
                    guard e < model.horizon else { return nil }
                    if case .billingExpires(k) = end {
                        failCommitmentPayment(at: e)
                        let expiry = e.adding(days: 90)
                        guard expiry < model.horizon else { return nil }
                        expire(.expiredBillingRetry, at: expiry, intent: 2)
                        life.scenarios.append(.commitmentBillingExpired)
                        return (expiry, .billing, life.runs[runIndex].paidPeriods > 0)
                    }
                    if recoveredAt == k {
                        failCommitmentPayment(at: e)
                        let r = e.adding(milliseconds: rng.int64(in: Self.hour..<60 * Self.day))
                        guard r < model.horizon else { return nil }
                        anchor = r
                        anchorPayment = k - 1
                        commitmentEnd = BillingDuration.addMonths(anchor, n - anchorPayment)
                        renewal.isInBillingRetry = false
                        renewal.status = 1
                        purchase = r
                    } else {
                        purchase = e
                    }
                }
                let expires = BillingDuration.addMonths(anchor, k - anchorPayment)
                addTransaction(
                    product: product, purchase: purchase, expires: expires, offer: nil, isRenewal: !(k == 1 && firstTerm),
                    run: runIndex, price: Catalog.commitmentMonthlyPrice)
                life.transactions[life.transactions.count - 1].commitment = CommitmentPayment(
                    period: k, periods: n, expires: commitmentEnd, price: Catalog.commitmentMonthlyPrice * Int64(n))
                if k == 1 && firstTerm {
                    emit(runIndex == 0 ? .initialBuy : .resubscribe, at: t)
                    life.scenarios.append(runIndex == 0 ? .activation : .reactivation)
                    life.scenarios.append(.commitment)
                } else if recoveredAt == k {
                    emit(.billingRecovery, at: purchase)
                    life.scenarios.append(.commitmentBillingRecovery)
                } else {
                    emit(.renew, at: purchase)
                    life.scenarios.append(k == 1 ? .commitmentRenewed : .renewal)
                }
                // Inside payment k's period, in time order: a refund of the payment before it,
                // commitment auto-renew turned off, and the end of the term.
                let current = life.transactions.count - 1
                let s = purchase
                var cursor = s
                func later(_ from: Instant, _ to: Instant) -> Instant? {
                    to.milliseconds - from.milliseconds > 2 * Self.hour
                        ? Instant(milliseconds: rng.int64(in: from.milliseconds + Self.hour..<to.milliseconds - Self.hour))
                        : nil
                }
                let inside = min(expires, s.adding(days: 20))
                if earlierRefundAt == k, let r = later(cursor, inside) {
                    guard r < model.horizon else { return nil }
                    refundEarlierPeriod(current - 1, at: r, run: runIndex)
                    life.scenarios.append(.commitmentEarlierPaymentRefunded)
                    cursor = r
                }
                if case .canceled(k) = end, let off = later(cursor, expires.adding(days: -1)) {
                    guard off < model.horizon else { return nil }
                    renewal.commitmentAutoRenew = false
                    emit(.autoRenewDisabled, at: off)
                    life.scenarios.append(.commitmentCanceled)
                    cursor = off
                }
                if case .currentRefunded(k) = end, let r = later(cursor, inside) {
                    guard r < model.horizon else { return nil }
                    let requested = r.adding(milliseconds: -rng.int64(in: Self.minute..<Self.hour))
                    renewal.autoRenewStatus = false
                    renewal.commitmentAutoRenew = false
                    emit(.autoRenewDisabledForRefund, at: max(cursor, requested))
                    life.transactions[current].revocationDate = r
                    life.transactions[current].revocationReason =
                        rng.chance(model.runProbabilities.refundForOtherReason) ? 0 : 1
                    life.runs[runIndex].paidPeriods -= 1
                    renewal.status = 5
                    renewal.commitmentAutoRenew = nil
                    emit(.refund, at: r)
                    life.runs[runIndex].end = r
                    life.runs[runIndex].reason = .refund
                    life.scenarios.append(.refund)
                    life.scenarios.append(.commitmentCurrentPaymentRefunded)
                    return (r, .refund, life.runs[runIndex].paidPeriods > 0)
                }
                if case .upgraded(k) = end, let u = later(cursor, expires.adding(days: -2)) {
                    guard u < model.horizon else { return nil }
                    return upgradeOutOfCommitment(current: current, at: u, run: runIndex)
                }
            }
            let last = life.transactions[life.transactions.count - 1].expiresDate
            guard last < model.horizon else { return nil }
            if renewal.commitmentAutoRenew == false {
                expire(.expiredVoluntary, at: last, intent: 1)
                renewal.commitmentAutoRenew = nil
                life.scenarios.append(.voluntaryExpiration)
                life.scenarios.append(.commitmentExpiredAfterCancel)
                return (last, .voluntary, life.runs[runIndex].paidPeriods > 0)
            }
            termStart = last
            firstTerm = false
        }
        return nil
    }

    private mutating func drawTermEnd() -> TermEnd {
        let c = model.commitmentProbabilities
        let n = Catalog.commitmentPayments
        switch plans.pick([c.termRenews, c.termCanceled, c.termBillingExpires, c.termCurrentRefunded, c.termUpgraded]) {
        case 1: return .canceled(plans.int(in: 1..<n))
        case 2: return .billingExpires(plans.int(in: 2..<n))
        case 3: return .currentRefunded(plans.int(in: 1..<n + 1))
        case 4: return .upgraded(plans.int(in: 1..<n + 1))
        default: return .renews
        }
    }

    /// A monthly payment fails at `e`: billing retry at once, no grace period for commitments.
    private mutating func failCommitmentPayment(at e: Instant) {
        renewal.isInBillingRetry = true
        renewal.gracePeriodExpiresDate = nil
        renewal.status = 3
        emit(.failToRenew, at: e)
        life.scenarios.append(.billingFailureWithoutGrace)
    }

    /// An immediate upgrade at `u` to the highest level, billed upfront: it cuts the current
    /// payment short and ends the commitment; the run goes on as any other.
    private mutating func upgradeOutOfCommitment(current: Int, at u: Instant, run runIndex: Int) -> RunEnd? {
        let target = Catalog.premiumMonthly
        life.transactions[current].upgradedAt = u
        life.runs[runIndex].paidPeriods -= 1
        renewal.autoRenewProduct = target
        renewal.commitmentAutoRenew = nil
        renewal.nextOffer = nil
        anchorProduct = -1
        addTransaction(
            product: target, purchase: u, expires: nextExpiry(after: u, product: target), offer: nil, isRenewal: false,
            run: runIndex)
        emit(.upgrade, at: u)
        life.scenarios.append(.upgrade)
        life.scenarios.append(.commitmentUpgrade)
        var run = RunCursor(index: runIndex, product: target, introRemaining: 0)
        return continueRun(&run)
    }
}
