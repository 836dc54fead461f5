import Foundation
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// One answer of Get Status of Subscription-Renewal-Date Extensions, as the dashboard's poller
/// got it: what the audit log keeps, and what the watch needs to plan the next poll.
public struct MassExtensionPoll: Equatable, Sendable {
    /// What is stored (Apple's JSON when it answered, the error in words otherwise).
    public var answer: SupportAnswer
    public var complete: Bool
    public var succeeded: Int64?
    public var failed: Int64?
    /// Apple's `Retry-After` (seconds) of a 429 the client did not wait out itself.
    public var retryAfter: Double?

    public init(
        answer: SupportAnswer, complete: Bool = false, succeeded: Int64? = nil, failed: Int64? = nil,
        retryAfter: Double? = nil
    ) {
        self.answer = answer
        self.complete = complete
        self.succeeded = succeeded
        self.failed = failed
        self.retryAfter = retryAfter
    }
}

/// What polls a mass extension's status for the dashboard: given by the executable (its App Store
/// Server API client); nil without credentials.
public struct MassExtensionPoller: Sendable {
    /// The environment the credentials act on: only mass extensions asked there are polled.
    public var environment: String
    public var poll: @Sendable (_ productId: String, _ requestIdentifier: String) async -> MassExtensionPoll

    public init(
        environment: String,
        poll: @escaping @Sendable (_ productId: String, _ requestIdentifier: String) async -> MassExtensionPoll
    ) {
        self.environment = environment
        self.poll = poll
    }
}

/// The mass extensions still running (no RENEWAL_EXTENSION/SUMMARY, no complete status), polled
/// in the background while the dashboard runs with credentials and not read-only: at once when
/// first seen, then after a wait that doubles from ``firstWait`` to ``longestWait`` seconds,
/// never sooner than Apple's `Retry-After`; a complete status, Apple's SUMMARY or a refusal
/// stops it. Each answer is stored (the audit log, as `subdash extend --status` stores it) and
/// said on the status line; `:support` shows the last one (README, "Support actions").
public struct MassExtensionWatch: Equatable, Sendable {
    /// Seconds before the second poll of a mass extension.
    public var firstWait = 60
    /// The longest wait between two polls (Apple: a mass extension can take hours or days).
    public var longestWait = 3600
    /// The running ones as last read or polled.
    public var running: [MassExtensionRow] = []
    /// Ticks (about a second each: ``DashboardSession/tickInterval``) since the dashboard started.
    public var ticks = 0
    /// Per mass extension (``key(_:)``): the tick it is polled at next, and the wait after that poll.
    public var due: [String: Int] = [:]
    public var wait: [String: Int] = [:]
    /// Polls sent and not answered yet.
    public var polling: Set<String> = []

    public init() {}

    static func key(_ product: String, _ request: String) -> String { product + "/" + request }

    /// The line under the tabs while one runs: which and its last counts.
    public var line: String? {
        guard let row = running.first else { return nil }
        var text = "mass extension \(TextSanitizer.visible(row.requestIdentifier)) running"
        if let polled = row.polled {
            text += ": \(polled.succeeded.map(String.init) ?? "?") succeeded, \(polled.failed.map(String.init) ?? "?") failed"
        }
        if running.count > 1 { text += " (+\(running.count - 1) more: :support)" }
        return text
    }
}

/// Whether the dashboard polls at all: credentials configured, not read-only.
func pollsMassExtensions(_ state: AppState) -> Bool { !state.readOnly && state.appleFetchUnavailable == nil }

/// The mass extensions as the store has them now (the same rows `:support` lists).
func massExtensionsLoaded(_ state: inout AppState, _ rows: [MassExtensionRow]) -> [Effect] {
    var watch = state.massExtensions
    for row in rows {
        let wasRunning = watch.running.contains { $0.requestIdentifier == row.requestIdentifier && $0.productId == row.productId }
        if wasRunning, let summary = row.summary {
            state.notice =
                "Apple's RENEWAL_EXTENSION/SUMMARY of mass extension \(TextSanitizer.visible(row.requestIdentifier)): "
                + "\(summary.succeeded.map(String.init) ?? "?") succeeded, \(summary.failed.map(String.init) ?? "?") failed"
        }
    }
    watch.running = rows.filter { $0.summary == nil && $0.refused == nil && $0.polled?.complete != true }
    let keys = Set(watch.running.map { MassExtensionWatch.key($0.productId, $0.requestIdentifier) })
    watch.due = watch.due.filter { keys.contains($0.key) }
    watch.wait = watch.wait.filter { keys.contains($0.key) }
    for key in keys where watch.due[key] == nil { watch.due[key] = watch.ticks }
    state.massExtensions = watch
    return duePolls(&state)
}

/// A tick: the polls that are due.
func massExtensionTick(_ state: inout AppState) -> [Effect] {
    guard pollsMassExtensions(state), !state.massExtensions.running.isEmpty else { return [] }
    state.massExtensions.ticks += 1
    return duePolls(&state)
}

private func duePolls(_ state: inout AppState) -> [Effect] {
    guard pollsMassExtensions(state) else { return [] }
    var effects: [Effect] = []
    for row in state.massExtensions.running {
        let key = MassExtensionWatch.key(row.productId, row.requestIdentifier)
        guard let due = state.massExtensions.due[key], due <= state.massExtensions.ticks,
            !state.massExtensions.polling.contains(key)
        else { continue }
        state.massExtensions.polling.insert(key)
        effects.append(
            .pollMassExtension(
                productId: row.productId, requestIdentifier: row.requestIdentifier, operatorName: state.operatorName))
    }
    return effects
}

/// Apple's answer to one poll: shown, and the next poll planned (or none once complete or refused).
func massExtensionPolled(_ state: inout AppState, productId: String, requestIdentifier: String, _ poll: MassExtensionPoll)
    -> [Effect]
{
    var watch = state.massExtensions
    let key = MassExtensionWatch.key(productId, requestIdentifier)
    watch.polling.remove(key)
    let name = "mass extension \(TextSanitizer.visible(requestIdentifier)) (\(TextSanitizer.visible(productId)))"
    let counts = "\(poll.succeeded.map(String.init) ?? "?") succeeded, \(poll.failed.map(String.init) ?? "?") failed"
    let index = watch.running.firstIndex { $0.productId == productId && $0.requestIdentifier == requestIdentifier }
    // An answer replaces what an earlier poll of this one left on the status line.
    if poll.answer.outcome == .done, state.status?.hasPrefix(name + ": ") == true { state.status = nil }
    switch poll.answer.outcome {
    case .done where poll.complete:
        watch.running.removeAll { $0.productId == productId && $0.requestIdentifier == requestIdentifier }
        watch.due[key] = nil
        watch.wait[key] = nil
        state.notice = "\(name): complete: \(counts)"
    case .done, .failed:
        if poll.answer.outcome == .done, let index {
            watch.running[index].polled = (false, poll.succeeded, poll.failed, poll.answer.at)
        }
        let previous = watch.wait[key]
        var next = previous.map { min(watch.longestWait, $0 * 2) } ?? watch.firstWait
        if let retryAfter = poll.retryAfter { next = max(next, Int(retryAfter.rounded(.up))) }
        watch.wait[key] = next
        watch.due[key] = watch.ticks + next
        if poll.answer.outcome == .done {
            state.notice = "\(name): running: \(counts) so far"
        } else {
            state.status =
                "\(name): no status from Apple (\(TextSanitizer.visible(poll.answer.answer))); asking again in \(next) s"
        }
    case .refused:
        // Apple's refusal (an unknown request) does not change by asking again.
        watch.running.removeAll { $0.productId == productId && $0.requestIdentifier == requestIdentifier }
        watch.due[key] = nil
        watch.wait[key] = nil
        state.status = "\(name): Apple refused its status, no longer polled: \(TextSanitizer.visible(poll.answer.answer))"
    }
    state.massExtensions = watch
    return []
}

extension EffectRunner {
    /// The mass extensions the store holds, as `:support` reads them, that the credentials act on.
    func massExtensionRows() throws -> [MassExtensionRow] {
        guard let poller = massExtensionPoller else { return [] }
        return try massExtensionsInStore().filter { $0.environment == poller.environment }
    }

    /// One poll, audited as `subdash extend --status` is: written before it is sent, Apple's
    /// answer after.
    func pollMassExtension(productId: String, requestIdentifier: String, operatorName: String) async -> Action {
        let unanswered = MassExtensionPoll(answer: SupportAnswer(outcome: .failed, answer: "no credentials", at: now()))
        guard let poller = massExtensionPoller else {
            return .massExtensionPolled(productId: productId, requestIdentifier: requestIdentifier, unanswered)
        }
        do {
            let database = analytics.database
            let action = try database.beginSupportAction(
                kind: .massExtendStatus, target: productId, environment: poller.environment,
                summary: "status of mass extension \(requestIdentifier) (dashboard poll)", request: nil,
                requestIdentifier: requestIdentifier, operatorName: operatorName, at: now())
            let poll = await poller.poll(productId, requestIdentifier)
            try database.recordSupportAnswer(poll.answer, action: action)
            return .massExtensionPolled(productId: productId, requestIdentifier: requestIdentifier, poll)
        } catch {
            log?("subdash: polling mass extension \(requestIdentifier) failed: \(error)")
            var failed = unanswered
            failed.answer.answer = "\(error)"
            return .massExtensionPolled(productId: productId, requestIdentifier: requestIdentifier, failed)
        }
    }
}
