import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// One of Apple's CONSUMPTION_REQUESTs as `:support` lists it (the rows of `subdash consumption`).
public struct ConsumptionQueueRow: Equatable, Sendable {
    public var requestedAt: Instant
    public var transactionId: String
    public var subscription: String?
    public var productId: String?
    /// Apple's `consumptionRequestReason`.
    public var reason: String?
    /// How much of the refunded period had passed when Apple asked, in percent.
    public var periodUsed: Int64?
    public var paidPeriods: Int?
    /// Who answered, when and what; nil while it waits.
    public var answered: String?
    /// The REFUND or REFUND_DECLINED that followed, and when.
    public var outcome: String?
}

/// One `subdash extend --all` as `:support` shows it: what was asked, the last status polled
/// (`subdash extend --status`) and Apple's RENEWAL_EXTENSION/SUMMARY once it arrives.
public struct MassExtensionRow: Equatable, Sendable {
    public var requestIdentifier: String
    public var productId: String
    /// What was asked, in words (days, reason, storefronts).
    public var asked: String
    public var operatorName: String
    public var at: Instant
    public var environment: String
    /// Apple's answer to the request itself when it was refused or got none.
    public var refused: String?
    /// The last status polled: (complete, succeeded, failed, when polled).
    public var polled: (complete: Bool, succeeded: Int64?, failed: Int64?, at: Instant)?
    public var summary: MassExtensionSummary?

    public static func == (a: Self, b: Self) -> Bool {
        a.requestIdentifier == b.requestIdentifier && a.asked == b.asked && a.refused == b.refused
            && a.polled?.complete == b.polled?.complete && a.polled?.succeeded == b.polled?.succeeded
            && a.polled?.failed == b.polled?.failed && a.polled?.at == b.polled?.at && a.summary == b.summary
    }
}

/// What `:support` shows: Apple's consumption requests (waiting first) and the mass extensions.
public struct SupportQueue: Equatable, Sendable {
    public var consumption: [ConsumptionQueueRow]
    public var massExtensions: [MassExtensionRow]
    public var now: Instant
}

/// Entries `:support` shows of each list at most (the overlay scrolls when they are more than the
/// screen holds: MessageOverlay.swift); the commands print them all.
let supportRowsShown = 20

/// `:support`: the consumption queue (each request's subscriber, product, Apple's reason, age,
/// how much of the period was used, the subscriber's paid periods, who answered and the outcome)
/// and the mass extensions with their status; an overlay that scrolls with the list keys and that
/// any other key closes. Sanitised. Each entry is a few short lines: the dialog is at most 60
/// columns wide.
func supportOverlay(_ queue: SupportQueue) -> Overlay {
    var lines: [String] = []
    func add(_ parts: [String], indent: Bool = true) {
        lines.append((indent ? "  " : "• ") + parts.map(TextSanitizer.visible).joined(separator: " · "))
    }
    let waiting = queue.consumption.filter { $0.answered == nil }
    lines.append("Consumption requests: \(waiting.count) waiting, \(queue.consumption.count - waiting.count) answered")
    if queue.consumption.isEmpty { lines.append("  none stored") }
    // Waiting ones first (oldest first: the one Apple has waited on longest), then the answered, newest first.
    let ordered = waiting + queue.consumption.filter { $0.answered != nil }.reversed()
    for row in ordered.prefix(supportRowsShown) {
        var first = ["transaction " + row.transactionId]
        if let subscription = row.subscription, subscription != row.transactionId { first[0] += " of " + subscription }
        first.append(row.productId ?? "product unknown")
        add(first, indent: false)
        add([row.reason ?? "no reason given", "asked \(age(from: row.requestedAt, to: queue.now)) ago"])
        var known = ["on " + row.requestedAt.iso8601]
        if let used = row.periodUsed { known.append("\(used) % of the period used") }
        add(known)
        if let paid = row.paidPeriods { add(["\(paid) paid period\(paid == 1 ? "" : "s")"]) }
        add([row.answered.map { "answered by " + $0 } ?? "waiting for an answer"])
        if let outcome = row.outcome { add([outcome]) }
    }
    if ordered.count > supportRowsShown { lines.append("  (\(ordered.count - supportRowsShown) more: subdash consumption)") }
    if !waiting.isEmpty { lines.append("  answer: :answer TRANSACTION_ID") }
    lines.append("")
    lines.append("Mass extensions: \(queue.massExtensions.count)")
    if queue.massExtensions.isEmpty { lines.append("  none asked (subdash extend --all)") }
    for row in queue.massExtensions.reversed().prefix(supportRowsShown) {
        add(["request " + row.requestIdentifier], indent: false)
        add([row.productId, row.environment])
        add(["asked by \(row.operatorName) at \(row.at.iso8601)"])
        add([row.asked])
        if let summary = row.summary {
            add(["done: Apple's summary of \(summary.at.iso8601)"])
            add(["\(count(summary.succeeded)) succeeded, \(count(summary.failed)) failed"])
        } else if let refused = row.refused {
            add([refused])
        } else if let polled = row.polled {
            add([
                "\(polled.complete ? "complete" : "running"): \(count(polled.succeeded)) succeeded, \(count(polled.failed)) failed"
            ])
            add(["(polled \(polled.at.iso8601))"])
        } else {
            add(["running: not polled yet (subdash extend --status)"])
        }
    }
    if queue.massExtensions.count > supportRowsShown {
        lines.append("  (\(queue.massExtensions.count - supportRowsShown) older: subdash log)")
    }
    return .message(title: "Support", text: lines.joined(separator: "\n"))
}

private func count(_ value: Int64?) -> String { value.map(String.init) ?? "?" }

private func age(from: Instant, to now: Instant) -> String {
    let hours = max(0, now.milliseconds - from.milliseconds) / 3_600_000
    return hours < 48 ? "\(hours) h" : "\(hours / 24) d"
}

extension EffectRunner {
    /// The consumption queue and the mass extensions at `now`, as `subdash consumption` and
    /// `subdash log` read them from the store.
    func supportQueue(now: Instant) throws -> SupportQueue {
        let database = analytics.database
        var consumption: [ConsumptionQueueRow] = []
        for request in try database.consumptionRequests() {
            let id = request.transactionId ?? ""
            let answered = try database.supportActions(target: id, kind: .consumption).last {
                $0.settled?.outcome == .done && $0.at >= request.at
            }
            var row = ConsumptionQueueRow(
                requestedAt: request.at, transactionId: id, subscription: request.originalTransactionId, reason: request.reason,
                answered: answered.map { "\($0.operatorName) at \($0.at.iso8601): \($0.summary)" },
                outcome: request.outcome.map { "\($0.type) \($0.at.iso8601)" })
            if let original = request.originalTransactionId,
                let report = try? analytics.subscriber(originalTransactionId: original, asOf: now)
            {
                row.paidPeriods = report.paidPeriodsInAllRuns
                row.productId = report.productId
                if let period = report.timeline.periods.first(where: { $0.transactionId == id }) {
                    row.productId = period.productId
                    let length = max(1, period.end.milliseconds - period.start.milliseconds)
                    let elapsed = min(max(0, request.at.milliseconds - period.start.milliseconds), length)
                    row.periodUsed = elapsed * 100 / length
                }
            }
            consumption.append(row)
        }
        return SupportQueue(consumption: consumption, massExtensions: try massExtensionsInStore(), now: now)
    }

    /// Every mass extension asked (`subdash extend --all`), with its last polled status and Apple's summary.
    func massExtensionsInStore() throws -> [MassExtensionRow] {
        let database = analytics.database
        let summaries = try database.massExtensionSummaries()
        let statuses = try database.supportActions(kind: .massExtendStatus)
        var mass: [MassExtensionRow] = []
        for action in try database.supportActions(kind: .massExtend) {
            guard let request = action.requestIdentifier else { continue }
            var row = MassExtensionRow(
                requestIdentifier: request, productId: action.target, asked: action.summary, operatorName: action.operatorName,
                at: action.at, environment: action.environment)
            if let settled = action.settled, settled.outcome != .done {
                row.refused = "refused: " + settled.answer
            } else if action.settled == nil, !action.answers.isEmpty {
                row.refused = "no answer from Apple: " + (action.answers.last?.answer ?? "")
            }
            for status in statuses where status.requestIdentifier == request && status.target == action.target {
                guard let answer = status.settled, answer.outcome == .done,
                    let object = try? JSONSerialization.jsonObject(with: Data(answer.answer.utf8)) as? [String: Any]
                else { continue }
                row.polled = (
                    object["complete"] as? Bool ?? false, (object["succeededCount"] as? NSNumber)?.int64Value,
                    (object["failedCount"] as? NSNumber)?.int64Value, answer.at
                )
            }
            row.summary = summaries.last { $0.requestIdentifier.lowercased() == request.lowercased() }
            mass.append(row)
        }
        return mass
    }
}
