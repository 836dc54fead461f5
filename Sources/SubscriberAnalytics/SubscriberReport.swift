import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// Everything a support agent needs about one subscription at an instant (docs/metrics.md), as
/// `report subscriber` prints it and the Subscriber pane shows it, with the full timeline.
public struct SubscriberReport: Sendable, Equatable {
    public var originalTransactionId: String
    public var userId: String?
    public var email: String?
    public var appAccountToken: String?
    public var productId: String?
    public var asOf: Instant
    /// Nil before the subscription started.
    public var state: SubscriptionState?
    public var autoRenew: Bool?
    public var autoRenewProductId: String?
    public var inBillingRetry: Bool
    public var gracePeriodExpires: Instant?
    /// Of the latest run; nil while it is open.
    public var expirationReason: ExpirationReason?
    /// nil none known, "pending" consent, "accepted"; only while a renewal is ahead (a price
    /// rise of an expired subscription or one not renewing concerns nobody).
    public var priceIncrease: String?
    public var paidPeriods: Int
    /// Paid periods started by as-of in every run (`paidPeriods` counts the latest run's only).
    public var paidPeriodsInAllRuns = 0
    /// Runs started by as-of (a resubscription after an expiry starts a new one).
    public var runs = 0
    public var billingFailures: Int
    /// When access ends or ended, seen from as-of; nil before the subscription started, while in a
    /// retry window (see `billingRetrySince`) and in a gap of up to 24 h before a renewal.
    public var accessEnd: AccessEnd?
    /// T of the billing failure whose retry window holds as-of (grace period included).
    public var billingRetrySince: Instant?
    /// The latest that retry can go on for that failure (its retry end).
    public var billingRetryEnds: Instant?
    /// The timeline bar: from the first period's start up to as-of.
    public var segments: [TimelineSegment]
    public var timeline: SubscriptionTimeline
    /// The money of each period, in `timeline.periods` order (docs/metrics.md "Money").
    public var money: [PeriodMoney]
    /// Charges minus returned money at or before as-of, per currency.
    public var paid: [String: Int64]
    /// Charged periods started by as-of without a price: what `paid` leaves out.
    public var unpricedPeriods = 0
    /// Paid service up to as-of, in whole days rounded down (what sets the 85 % proceeds rate).
    public var paidServiceDays: Int
    /// Events at or before as-of.
    public var events: [TimelineEvent]
    public var flags: [OfferFlag]
    /// Unsigned documents about this subscription archived without being applied, because it
    /// has signed data ("unverified, not applied to a signed subscription").
    public var unverifiedDocuments = 0
    /// Apple's renewal details at as-of (docs/metrics.md, "Renewal details from Apple").
    public var renewal = RenewalDetails()
    /// The commitment running at as-of (monthly payments), nil when none does.
    public var commitment: CommitmentStatus? = nil
    /// In the retry window of a failed payment of a commitment that is still owed: no grace period.
    public var owedPaymentFailed = false
}

/// When a subscriber's access ends, as a support agent says it.
public enum AccessEnd: Sendable, Equatable {
    /// In a period with auto-renew on: it renews at the period's end.
    case renewsOn(Instant)
    /// In a period with auto-renew off: access ends at the period's end.
    case expiresOn(Instant)
    /// The latest run ended at this instant, at or before as-of.
    case expiredOn(Instant)

    public var at: Instant {
        switch self {
        case .renewsOn(let t), .expiresOn(let t), .expiredOn(let t): t
        }
    }

    /// "renews on", "expires on", "expired on".
    public var label: String {
        switch self {
        case .renewsOn: "renews on"
        case .expiresOn: "expires on"
        case .expiredOn: "expired on"
        }
    }
}

extension SubscriberReport {
    /// How far `t` lies from as-of, in whole days (whole hours under a day): "in 10 days", "3 h ago".
    public func fromAsOf(_ t: Instant) -> String {
        let delta = t.milliseconds - asOf.milliseconds
        let size = abs(delta)
        let days = size / Instant.millisecondsPerDay
        let hours = size / Instant.millisecondsPerHour
        let amount = days > 0 ? "\(days) day\(days == 1 ? "" : "s")" : hours > 0 ? "\(hours) h" : nil
        guard let amount else { return "now" }
        return delta > 0 ? "in " + amount : amount + " ago"
    }
}

/// The answer to "who is this id?".
public enum SubscriberLookup: Sendable, Equatable {
    case found(SubscriberReport)
    case notFound(String)
    /// The query and the originalTransactionIds it matches, sorted (at most the search's limit).
    case ambiguous(String, [String])
}

extension SubscriberAnalytics {
    /// Finds the subscription by any id and reports it at `asOf` (default: the data horizon).
    public func subscriber(_ id: String, asOf: Instant? = nil) throws -> SubscriberLookup {
        let matches = try subscriptions(lookingUp: id)
        switch matches.count {
        case 0: return .notFound(id)
        case 1: return .found(try subscriber(originalTransactionId: matches[0], asOf: try resolveAsOf(asOf)))
        default: return .ambiguous(id, matches)
        }
    }

    /// The subscriptions `query` names, as `report subscriber` and the dashboard's `:user` both
    /// read it: those it names exactly (any id, a user id, an email in any case), else those the
    /// dashboard's `/` search finds for it (a prefix or part of any id, user id, email or
    /// appAccountToken, in any case). Every environment and ownership.
    public func subscriptions(lookingUp query: String) throws -> [String] {
        let exact = try database.subscriptions(matching: query)
        if !exact.isEmpty { return exact }
        return try database.subscriptions(searching: query)
    }

    public func subscriber(originalTransactionId id: String, asOf: Instant) throws -> SubscriberReport {
        let facts = try database.facts(of: id)
        let timeline = SubscriptionTimeline.derive(facts)
        let money = timeline.money(priceTable: try database.priceTable())
        let customer = try database.customer(of: id)
        let latestPeriod = timeline.periods.last { $0.start <= asOf } ?? timeline.periods.first
        let state = timeline.state(at: asOf)
        let failure = timeline.billingFailure(at: asOf)
        // A renewal is ahead: active with auto-renew on, or in a billing retry window.
        let renewalAhead = (state?.isActive == true && timeline.autoRenew(at: asOf) != false) || failure != nil
        let priceIncrease: String? =
            switch renewalAhead ? timeline.priceIncreaseStatus(asOf: asOf) : nil {
            case 0: "pending"
            case 1: "accepted"
            default: nil
            }
        var accessEnd: AccessEnd?
        if failure == nil {
            if let period = timeline.periods.last(where: { $0.covers(asOf) }) {
                accessEnd = timeline.autoRenew(at: asOf) == true ? .renewsOn(period.end) : .expiresOn(period.end)
            } else if let run = timeline.latestRun(asOf: asOf), !run.isOpen(at: asOf) {
                accessEnd = .expiredOn(run.endedAt)
            }
        }
        var report = SubscriberReport(
            originalTransactionId: id, userId: customer.userId, email: customer.email,
            appAccountToken: customer.appAccountToken ?? timeline.appAccountToken,
            productId: timeline.productId(at: asOf) ?? latestPeriod?.productId, asOf: asOf, state: state,
            autoRenew: timeline.autoRenew(at: asOf), autoRenewProductId: timeline.autoRenewProductId(asOf: asOf),
            inBillingRetry: timeline.inBillingRetry(at: asOf), gracePeriodExpires: timeline.gracePeriodExpires(at: asOf),
            expirationReason: timeline.expirationReason(asOf: asOf), priceIncrease: priceIncrease,
            paidPeriods: timeline.paidPeriods(asOf: asOf), billingFailures: timeline.billingFailureCount(asOf: asOf),
            accessEnd: accessEnd, billingRetrySince: failure?.at, billingRetryEnds: failure?.retryEnd,
            segments: TimelineSegment.segments(of: timeline, asOf: asOf), timeline: timeline, money: money,
            paid: timeline.paid(asOf: asOf, money: money),
            paidServiceDays: Int(timeline.paidService(asOf: asOf) / Instant.millisecondsPerDay),
            events: timeline.events.filter { $0.at <= asOf },
            flags: try database.flags(originalTransactionId: id))
        report.unverifiedDocuments = try database.unverifiedDocumentCount(originalTransactionId: id)
        report.unpricedPeriods = zip(timeline.periods, money).filter { $0.start <= asOf && $1.isCharged && $1.price == nil }.count
        report.commitment = CommitmentStatus(timeline, money: money, asOf: asOf)
        report.owedPaymentFailed = failure.map { timeline.periods[$0.periodIndex].isOwedCommitmentPayment } ?? false
        let runs = timeline.runs.filter { $0.start <= asOf }
        report.runs = runs.count
        report.paidPeriodsInAllRuns = runs.reduce(0) { $0 + $1.paidPeriods(asOf: asOf) }
        report.renewal = RenewalDetails(facts: facts, asOf: asOf)
        if let account = report.renewal.appTransactionId {
            report.renewal.sameAccount = try database.subscriptions(sharingAppTransactionId: account)
        }
        return report
    }
}
