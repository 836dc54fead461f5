import SubscriptionModel

/// The counting rules of the kept tables of counts, each written once (docs/architecture.md,
/// "Where counting rules live"): what one subscription's derived timeline adds to every table the
/// store keeps per day and month so that population figures are sums of a few rows. The store
/// writes these rows (`Materializer`), takes the same rows away when a subscription is derived
/// again (from the rule's inputs read back from its stored rows), and its as-of-day reads apply
/// the same rules to the few subscriptions changing on as-of's day; a migration that changes a
/// rule marks subscriptions pending rather than restating the rule in SQL.
public struct CountDelta: Hashable, Sendable {
    /// A kept table of counts. `segment`, `event`, `subscriptionStart` and `charge` are kept per UTC day;
    /// `cohortStep`, `mrr`, `ltvMember`, `ltvPrice`, `committed` and `money` per UTC day and per UTC month;
    /// `productDuration` not by time; `movement` by the month in its key, `mrrChange` by the instant in its key.
    public enum Table: String, CaseIterable, Hashable, Sendable {
        /// Segments by state: `[environment, ownership]`, day, `[productId, state, billingPlan]`; starts (0),
        /// ends (1).
        case segment
        /// Events: `[environment, ownership]`, day, `[productId, type, expirationReason or '', billingPlan]`.
        case event
        /// Upfront standard periods by billing length: `[]`, no time, `[productId, billingDays]`.
        case productDuration
        /// Subscriptions by their first start: `[environment, ownership]`, day, `[productId]`.
        case subscriptionStart
        /// Cohort steps (``CohortMember``): `[environment]`, time,
        /// `[firstPaidProductId, cohortMonth, step, billingPlan]`.
        case cohortStep
        /// MRR intervals (``MRRInterval``): `[environment]`, time, ``MRRKey/values`` (with the billing
        /// plan); starts (0), ends (1).
        case mrr
        /// Realized-LTV member states (``LTVMember``): `[environment]`, time,
        /// `[firstPaidProductId, cohortMonth, currencyGroup, paidPeriods, ended, billingPlan]`.
        case ltvMember
        /// Realized-LTV prices: `[environment]`, time,
        /// `[firstPaidProductId, cohortMonth, currencyGroup, period, currency, priceMonth, price, billingPlan]`.
        case ltvPrice
        /// Committed revenue (``KeptCommitment``): `[environment]`, time, ``CommittedKey/values``;
        /// a signed count.
        case committed
        /// MRR movement by month (``MovementMonths``): `[environment]`, no time,
        /// `[month, startKeys, endKeys, isNew]`.
        case movement
        /// Changes of a subscription's MRR keys (``MRRChanges``): `[environment]`, no time,
        /// `[instant, originalTransactionId, keys before, keys at, first charge]`.
        case mrrChange
        /// Charges, refunds and upgrade credits (``MoneyAmount``): `[environment]`, the amount's own
        /// time, `[kind, productId, billingPlan, storefront or 'unknown', currency or '', amount or -1,
        /// proceedsRate]`.
        case money
        /// Charged periods (``MoneyAmount``): `[environment]`, the start's time,
        /// `[refund day or ``noRefundDay``, productId, billingPlan]`.
        case charge
    }

    /// The refund day `charge` rows of a period never refunded are kept under: after every day.
    public static let noRefundDay = Int64.max

    /// The UTC day number of `instant` (rounded down), as the store keys its days.
    public static func day(of instant: Instant) -> Int64 {
        let ms = instant.milliseconds
        let day = Instant.millisecondsPerDay
        return ms >= 0 ? ms / day : -((-ms + day - 1) / day)
    }

    /// One column value of a key.
    public enum Value: Hashable, Sendable {
        case text(String)
        case integer(Int64)
    }

    public var table: Table
    /// The key's columns before the time (environment, ownership).
    public var scope: [Value]
    /// The instant the change happens: its UTC day (and month) is part of the key. Nil for a
    /// table not kept by time.
    public var at: Instant?
    /// The key's columns after the time.
    public var key: [Value]
    /// Which count column changes: 0 (`count`, `starts`) or 1 (`ends`).
    public var column: Int
    /// +1 or −1 (a member's state left and entered).
    public var change: Int

    public init(table: Table, scope: [Value], at: Instant?, key: [Value], column: Int = 0, change: Int = 1) {
        self.table = table
        self.scope = scope
        self.at = at
        self.key = key
        self.column = column
        self.change = change
    }

    /// Every row the subscription's timeline adds to every kept table (each with change +1, or
    /// ±1 for a realized-LTV member's state changes). `money` is `t.money(priceTable:)`,
    /// `segments` `t.segments()` when already at hand.
    public static func of(
        _ t: SubscriptionTimeline, money: [PeriodMoney], segments: [SubscriptionTimeline.Segment]? = nil
    ) -> [CountDelta] {
        guard !t.periods.isEmpty else { return [] }
        let env = t.environment.counted.rawValue
        let owner = t.ownership.rawValue
        var rows = subscription(
            environment: env, ownership: owner, firstStart: t.periods[0].start,
            productId: t.periods[t.periods.count - 1].productId)
        for p in t.periods { rows += period(productId: p.productId, billingDays: p.billingDays) }
        for s in segments ?? t.segments() {
            rows += segment(
                environment: env, ownership: owner, start: s.start, end: s.end, productId: s.productId, state: s.state.rawValue,
                billingPlan: s.billingPlan.rawValue)
        }
        for e in t.events {
            rows += event(
                environment: env, ownership: owner, at: e.at, productId: e.productId, type: e.type.rawValue,
                expirationReason: e.expirationReason?.rawValue, billingPlan: e.billingPlan.rawValue)
        }
        for m in t.cohortMembers() { rows += m.deltas(environment: env) }
        let intervals = MRRInterval.intervals(of: t, money: money)
        for i in intervals { rows += i.deltas(environment: env) }
        let charged = zip(t.periods, money).filter { $0.1.isCharged }.map(\.0.start.milliseconds)
        if let firstCharge = charged.min() {
            rows += MovementMonths.deltas(environment: env, intervals: intervals, firstCharge: firstCharge)
            rows += MRRChanges.deltas(
                environment: env, originalTransactionId: t.originalTransactionId, intervals: intervals, firstCharge: firstCharge)
        }
        for m in t.ltvMembers(money: money) { rows += m.deltas(environment: env) }
        for c in t.keptCommitments(money: money) { rows += c.deltas(environment: env) }
        for (p, m) in zip(t.periods, money) where m.isCharged {
            rows += MoneyAmount.deltas(
                environment: env, productId: p.productId, billingPlan: p.billingPlan.rawValue, storefront: p.storefront,
                start: p.start, price: m.price, currency: m.currency, proceedsRate: m.proceedsRate, refundAt: m.refundAt,
                refundAmount: m.refundAmount, creditAt: m.creditAt, upgradeCredit: m.upgradeCredit)
        }
        return rows
    }

    /// A subscription: counted on the day of its first start, by its latest product.
    public static func subscription(environment: String, ownership: String, firstStart: Instant, productId: String)
        -> [CountDelta]
    {
        [
            CountDelta(
                table: .subscriptionStart, scope: [.text(environment), .text(ownership)], at: firstStart, key: [.text(productId)])
        ]
    }

    /// A period: standard ones (`billingDays` not nil) count towards their product's billing length.
    public static func period(productId: String, billingDays: Int?) -> [CountDelta] {
        guard let billingDays else { return [] }
        return [CountDelta(table: .productDuration, scope: [], at: nil, key: [.text(productId), .integer(Int64(billingDays))])]
    }

    /// A segment: its start on its start day, its end on its end day unless open-ended (nil), under
    /// the product and billing plan of the period its state is about (``StateInterval``).
    public static func segment(
        environment: String, ownership: String, start: Instant, end: Instant?, productId: String, state: String,
        billingPlan: String
    ) -> [CountDelta] {
        let scope: [Value] = [.text(environment), .text(ownership)]
        let key: [Value] = [.text(productId), .text(state), .text(billingPlan)]
        var rows = [CountDelta(table: .segment, scope: scope, at: start, key: key)]
        if let end { rows.append(CountDelta(table: .segment, scope: scope, at: end, key: key, column: 1)) }
        return rows
    }

    /// An event, on its day, under the product and billing plan of the period it belongs to
    /// (``TimelineEvent``).
    public static func event(
        environment: String, ownership: String, at: Instant, productId: String, type: String, expirationReason: String?,
        billingPlan: String
    ) -> [CountDelta] {
        [
            CountDelta(
                table: .event, scope: [.text(environment), .text(ownership)], at: at,
                key: [.text(productId), .text(type), .text(expirationReason ?? ""), .text(billingPlan)])
        ]
    }
}

extension Period {
    /// The billing length in whole days an upfront standard period tells its product (an offer can
    /// run for another length; a monthly payment of a commitment is a month of an annual product):
    /// nil for other periods.
    public var billingDays: Int? {
        guard offerKind == .standard, billingPlan == .upfront else { return nil }
        return BillingDuration(lengthMilliseconds: expiresDate.milliseconds - start.milliseconds).days
    }
}

/// A retention-cohort member (a run with a paid period) as the cohort grid counts it
/// (docs/metrics.md, "Retention cohorts"): the steps it passes, each at an instant. Step 0 is its
/// first paid start (`started`), step k ≥ 1 the start of paid period k+1 (`retained[k]`), step −n
/// its end with n paid periods (`ended` from n on). At as-of a member has passed the steps dated
/// at or before as-of; the grid's counts, the as-of-day reads and the drill-down lists all select
/// by these steps. A member's billing plan is its first paid period's (as its product is), so a
/// member stays in one plan's grid for life, whatever plan its later periods have.
public struct CohortMember: Hashable, Sendable {
    public struct Step: Hashable, Sendable {
        public var at: Instant
        public var step: Int

        func delta(environment: String, member: CohortMember) -> CountDelta {
            CountDelta(
                table: .cohortStep, scope: [.text(environment)], at: at,
                key: [
                    .text(member.firstPaidProductId), .integer(Int64(member.cohortMonth.index)), .integer(Int64(step)),
                    .text(member.billingPlan.rawValue),
                ])
        }
    }

    public var firstPaidStart: Instant
    public var firstPaidProductId: String
    /// The billing plan of the first paid period (``SubscriptionTimeline/firstPaidBillingPlan(of:)``).
    public var billingPlan: BillingPlan
    /// Starts of the paid periods counted for retention (``Period/countsForRetention``), sorted.
    public var paidPeriodStarts: [Instant]
    public var endedAt: Instant

    public init(
        firstPaidStart: Instant, firstPaidProductId: String, billingPlan: BillingPlan = .upfront, paidPeriodStarts: [Instant],
        endedAt: Instant
    ) {
        self.firstPaidStart = firstPaidStart
        self.firstPaidProductId = firstPaidProductId
        self.billingPlan = billingPlan
        self.paidPeriodStarts = paidPeriodStarts.sorted()
        self.endedAt = endedAt
    }

    public var cohortMonth: Month { firstPaidStart.month }

    /// Every step, in no particular order.
    public var steps: [Step] {
        var steps = [Step(at: firstPaidStart, step: 0)]
        for (k, start) in paidPeriodStarts.enumerated() where k > 0 { steps.append(Step(at: start, step: k)) }
        if !paidPeriodStarts.isEmpty { steps.append(Step(at: endedAt, step: -paidPeriodStarts.count)) }
        return steps
    }

    /// The rows the member adds to the kept cohort steps.
    public func deltas(environment: String) -> [CountDelta] { steps.map { $0.delta(environment: environment, member: self) } }

    /// The steps passed at or before `asOf`.
    public func passed(asOf: Instant) -> [Int] { steps.filter { $0.at <= asOf }.map(\.step) }

    /// In `retained[k]` at `asOf`: step k passed.
    public func isRetained(_ k: Int, asOf: Instant) -> Bool { passed(asOf: asOf).contains(k) }

    /// In `ended[j]` for some j in 1…k at `asOf`: a step −n with 1 ≤ n ≤ k passed.
    public func hasEnded(within k: Int, asOf: Instant) -> Bool { passed(asOf: asOf).contains { $0 < 0 && -$0 <= k } }
}

extension SubscriptionTimeline {
    /// The billing plan of the run's first paid period, nil when it has none: the plan cohorts and
    /// realized LTV count the run's member by (docs/metrics.md, "Billing plans and commitments").
    public func firstPaidBillingPlan(of run: Run) -> BillingPlan? {
        guard run.firstPaidStart != nil else { return nil }
        return periods[run.firstPeriod...run.lastPeriod].first(where: \.isPaid)?.billingPlan
    }

    /// The runs that are cohort members (with a paid period), as ``CohortMember``s, with their run index.
    public func cohortMembers() -> [CohortMember] {
        runs.compactMap { r in
            guard let start = r.firstPaidStart, let product = r.firstPaidProductId else { return nil }
            return CohortMember(
                firstPaidStart: start, firstPaidProductId: product, billingPlan: firstPaidBillingPlan(of: r) ?? .upfront,
                paidPeriodStarts: r.paidPeriodStarts, endedAt: r.endedAt)
        }
    }

    /// The runs that are cohort members, as realized LTV sees them (their counted paid periods with
    /// the prices of `money`, `self.money(priceTable:)`).
    public func ltvMembers(money: [PeriodMoney]) -> [LTVMember] {
        var paidPeriods: [Int: [LTVMember.Period]] = [:]
        for (p, m) in zip(periods, money) where p.countsForRetention {
            let price = m.isCharged ? m.price.flatMap { a in m.currency.map { (a, $0) } } : nil
            paidPeriods[p.runIndex, default: []].append(
                LTVMember.Period(start: p.start.milliseconds, transactionId: p.transactionId, price: price))
        }
        return runs.enumerated().compactMap { i, r in
            guard let firstPaidStart = r.firstPaidStart, let product = r.firstPaidProductId else { return nil }
            return LTVMember(
                firstPaidStart: firstPaidStart.milliseconds, endedAt: r.endedAt.milliseconds,
                cohortMonth: firstPaidStart.month.index,
                firstPaidProductId: product, billingPlan: firstPaidBillingPlan(of: r) ?? .upfront, periods: paidPeriods[i] ?? [])
        }
    }
}

/// What MRR groups a charged period by.
public struct MRRKey: Hashable, Sendable {
    public var offerKind: String
    public var productId: String
    /// Nil with the price when the period is unpriced.
    public var currency: String?
    public var price: Int64?
    /// The period's own month multiplier in twelfths (``PeriodMoney/monthlyTwelfths``).
    public var monthlyTwelfths: Int
    /// The period's ``BillingPlan`` raw value: a `monthly` payment of a commitment is one month's MRR,
    /// whatever its annual product bills; `--plan` selects by it.
    public var billingPlan: String

    public init(
        offerKind: String, productId: String, currency: String?, price: Int64?, monthlyTwelfths: Int,
        billingPlan: String = BillingPlan.upfront.rawValue
    ) {
        self.offerKind = offerKind
        self.productId = productId
        (self.currency, self.price) = currency == nil || price == nil ? (nil, nil) : (currency, price)
        self.monthlyTwelfths = monthlyTwelfths
        self.billingPlan = billingPlan
    }

    /// The months its price pays for, in twelfths of a year, as MRR counts them (docs/metrics.md,
    /// "MRR"): an upfront standard period bills for its product's billing length (`productLength`,
    /// nil when unknown); a monthly payment of a commitment, and an offer, for their own length.
    public func mrrTwelfths(productLength: BillingDuration?) -> Int {
        guard offerKind == OfferKind.standard.rawValue, billingPlan == BillingPlan.upfront.rawValue, let productLength
        else { return monthlyTwelfths }
        return productLength.monthlyTwelfths
    }

    /// The key as the kept MRR counts store it: an unpriced period is currency '' and price 0.
    public var values: [CountDelta.Value] {
        [
            .text(offerKind), .text(productId), .text(currency ?? ""), .integer(price ?? 0), .integer(Int64(monthlyTwelfths)),
            .text(billingPlan),
        ]
    }
}

/// An interval MRR counts (docs/metrics.md, "MRR"): a charged period `[start, end)`, or the grace
/// period after a charged period `[failure, min(retry window end, grace end))`. MRR at t counts
/// the intervals started at or before t less those ended at or before t; an empty interval covers
/// no instant and counts nowhere.
public struct MRRInterval: Hashable, Sendable {
    public var key: MRRKey
    public var start: Instant
    public var end: Instant

    /// A charged period's interval.
    public static func period(start: Instant, end: Instant, key: MRRKey) -> MRRInterval? {
        start < end ? MRRInterval(key: key, start: start, end: end) : nil
    }

    /// The grace period of a billing failure at `at` after a charged period with `key`.
    public static func grace(at: Instant, windowEnd: Instant, graceEnd: Instant?, key: MRRKey) -> MRRInterval? {
        guard let graceEnd else { return nil }
        return period(start: at, end: min(windowEnd, graceEnd), key: key)
    }

    /// The charged periods, and the grace after a charged period of the first failure of each
    /// transaction (as the store keeps failures: one per transaction).
    public static func intervals(of t: SubscriptionTimeline, money: [PeriodMoney]) -> [MRRInterval] {
        var result: [MRRInterval] = []
        var keys: [String: MRRKey] = [:]
        for (p, m) in zip(t.periods, money) where m.isCharged {
            let key = MRRKey(
                offerKind: p.offerKind.rawValue, productId: p.productId, currency: m.currency, price: m.price,
                monthlyTwelfths: m.monthlyTwelfths, billingPlan: p.billingPlan.rawValue)
            keys[p.transactionId] = key
            if let i = period(start: p.start, end: p.end, key: key) { result.append(i) }
        }
        var seen = Set<String>()
        for f in t.billingFailures where seen.insert(f.transactionId).inserted {
            guard let key = keys[f.transactionId],
                let i = grace(at: f.at, windowEnd: f.windowEnd, graceEnd: f.gracePeriodExpiresDate, key: key)
            else { continue }
            result.append(i)
        }
        return result
    }

    /// Its start (column 0) and its end (column 1).
    public func deltas(environment: String) -> [CountDelta] {
        [
            CountDelta(table: .mrr, scope: [.text(environment)], at: start, key: key.values),
            CountDelta(table: .mrr, scope: [.text(environment)], at: end, key: key.values, column: 1),
        ]
    }
}

/// One cohort member (a run with a paid start) as realized LTV sees it (docs/metrics.md,
/// "Realized LTV per cohort"): its currency group, its number of counted paid periods, whether it
/// ended, and the price of each, which change only at its first paid start, its later counted
/// paid starts and its end.
public struct LTVMember: Sendable {
    /// A member's currency group: the currency of all its priced periods, ``unpriced`` when none is
    /// priced, ``mixed`` when they are in two currencies or more.
    public static let unpriced = ""
    public static let mixed = "*"

    public struct Period: Sendable {
        public var start: Int64
        public var transactionId: String
        /// Nil when unpriced (no money row, or a money row without price or currency).
        public var price: (amount: Int64, currency: String)?

        public init(start: Int64, transactionId: String, price: (amount: Int64, currency: String)?) {
            self.start = start
            self.transactionId = transactionId
            self.price = price
        }
    }

    public var firstPaidStart: Int64
    public var endedAt: Int64
    public var cohortMonth: Int
    public var firstPaidProductId: String
    /// The billing plan of the first paid period, as for ``CohortMember/billingPlan``.
    public var billingPlan: BillingPlan
    /// The run's counted paid periods (``Period/countsForRetention``), in any order.
    public var periods: [Period]

    public init(
        firstPaidStart: Int64, endedAt: Int64, cohortMonth: Int, firstPaidProductId: String, billingPlan: BillingPlan = .upfront,
        periods: [Period]
    ) {
        self.firstPaidStart = firstPaidStart
        self.endedAt = endedAt
        self.cohortMonth = cohortMonth
        self.firstPaidProductId = firstPaidProductId
        self.billingPlan = billingPlan
        self.periods = periods
    }

    public struct MemberKey: Hashable, Sendable {
        public var group: String
        public var paidPeriods: Int
        public var ended: Bool

        public init(group: String, paidPeriods: Int, ended: Bool) {
            self.group = group
            self.paidPeriods = paidPeriods
            self.ended = ended
        }
    }

    public struct PriceKey: Hashable, Sendable {
        public var group: String
        /// The paid period's place in the member's run, from 1.
        public var period: Int
        public var currency: String
        /// `Month.index` of the period's start (what `--rates` converts by).
        public var priceMonth: Int
        public var price: Int64

        public init(group: String, period: Int, currency: String, priceMonth: Int, price: Int64) {
            self.group = group
            self.period = period
            self.currency = currency
            self.priceMonth = priceMonth
            self.price = price
        }
    }

    /// The member's rows at an instant: one member row and one price row per priced period.
    public struct State: Sendable {
        public var member: MemberKey
        public var prices: [PriceKey]
    }

    /// The periods in the order they are numbered: by start, then transaction id.
    var ordered: [Period] {
        periods.sorted { ($0.start, $0.transactionId) < ($1.start, $1.transactionId) }
    }

    /// The member's state at `t`, nil before its first paid start.
    public func state(at t: Int64) -> State? {
        firstPaidStart <= t ? Self.state(at: t, ordered: ordered, endedAt: endedAt) : nil
    }

    static func state(at t: Int64, ordered: [Period], endedAt: Int64) -> State {
        let started = ordered.prefix { $0.start <= t }
        var currencies = Set<String>()
        var first: String?
        for p in started {
            if let c = p.price?.currency {
                currencies.insert(c)
                if first == nil { first = c }
            }
        }
        let group = currencies.count > 1 ? mixed : (first ?? unpriced)
        var prices: [PriceKey] = []
        for (j, p) in started.enumerated() {
            guard let price = p.price else { continue }
            prices.append(
                PriceKey(
                    group: group, period: j + 1, currency: price.currency,
                    priceMonth: Instant(milliseconds: p.start).month.index, price: price.amount))
        }
        return State(member: MemberKey(group: group, paidPeriods: started.count, ended: endedAt <= t), prices: prices)
    }

    /// The instants the member's state changes, each with the rows removed (-1) and added (+1)
    /// then; their sum up to `t` is the state at `t`.
    public func changes(_ body: (Int64, State, Int) -> Void) {
        let ordered = self.ordered
        var instants = Set(ordered.map(\.start).filter { $0 > firstPaidStart })
        instants.insert(firstPaidStart)
        if endedAt > firstPaidStart { instants.insert(endedAt) }
        var previous: State?
        for t in instants.sorted() {
            let state = Self.state(at: t, ordered: ordered, endedAt: endedAt)
            if let old = previous {
                if old.member.group == state.member.group {
                    // Same group: the earlier periods' price rows stay as they are.
                    let kept = old.prices.count
                    body(t, State(member: old.member, prices: []), -1)
                    body(t, State(member: state.member, prices: Array(state.prices.dropFirst(kept))), 1)
                    previous = state
                    continue
                }
                body(t, old, -1)
            }
            body(t, state, 1)
            previous = state
        }
    }

    /// The rows a state adds (with `sign`) to the kept member and price counts, at `at`.
    public func deltas(_ state: State, at: Int64, _ sign: Int, environment: String) -> [CountDelta] {
        let instant = Instant(milliseconds: at)
        let (env, product, cohort) = (
            [CountDelta.Value.text(environment)], CountDelta.Value.text(firstPaidProductId), Int64(cohortMonth)
        )
        let m = state.member
        var rows = [
            CountDelta(
                table: .ltvMember, scope: env, at: instant,
                key: [
                    product, .integer(cohort), .text(m.group), .integer(Int64(m.paidPeriods)), .integer(m.ended ? 1 : 0),
                    .text(billingPlan.rawValue),
                ],
                change: sign)
        ]
        for p in state.prices {
            rows.append(
                CountDelta(
                    table: .ltvPrice, scope: env, at: instant,
                    key: [
                        product, .integer(cohort), .text(p.group), .integer(Int64(p.period)), .text(p.currency),
                        .integer(Int64(p.priceMonth)), .integer(p.price), .text(billingPlan.rawValue),
                    ], change: sign))
        }
        return rows
    }

    /// Every row the member adds to the kept member and price counts.
    public func deltas(environment: String) -> [CountDelta] {
        var rows: [CountDelta] = []
        changes { at, state, sign in rows += deltas(state, at: at, sign, environment: environment) }
        return rows
    }
}

/// What `report revenue` and `report refunds` count of a charged period (docs/metrics.md,
/// "Revenue", "Refund rate"): its charge at its start, its refund and upgrade credit at theirs,
/// each under the key revenue groups by (the day's month, product, storefront, currency, amount
/// and proceeds rate); and the period itself under its start day and its refund's day, so that
/// "refunded by as-of" is a range over the second day. Both rows are read as whole days, the
/// partial days at the range's ends and as-of's from `periodMoney` itself.
public enum MoneyAmount {
    /// The kind each amount is kept under: what `MoneyAmountKind` reads back.
    public static let kinds = (charge: "charge", refund: "refund", credit: "credit")

    /// Every row a charged period adds to `money` and `charge` (the arguments are its `periodMoney` row).
    public static func deltas(
        environment: String, productId: String, billingPlan: String, storefront: String?, start: Instant, price: Int64?,
        currency: String?, proceedsRate: Int, refundAt: Instant?, refundAmount: Int64?, creditAt: Instant?,
        upgradeCredit: Int64?
    ) -> [CountDelta] {
        let scope: [CountDelta.Value] = [.text(environment)]
        func amount(_ kind: String, at: Instant, _ amount: Int64?) -> CountDelta {
            CountDelta(
                table: .money, scope: scope, at: at,
                key: [
                    .text(kind), .text(productId), .text(billingPlan), .text(storefront ?? "unknown"), .text(currency ?? ""),
                    .integer(amount ?? -1), .integer(Int64(proceedsRate)),
                ])
        }
        var rows = [
            amount(kinds.charge, at: start, price),
            CountDelta(
                table: .charge, scope: scope, at: start,
                key: [
                    .integer(refundAt.map(CountDelta.day(of:)) ?? CountDelta.noRefundDay), .text(productId), .text(billingPlan),
                ]),
        ]
        if let refundAt { rows.append(amount(kinds.refund, at: refundAt, refundAmount)) }
        if let creditAt { rows.append(amount(kinds.credit, at: creditAt, upgradeCredit)) }
        return rows
    }
}
