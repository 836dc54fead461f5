import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// What sends Extend a Subscription Renewal Date to Apple for pane 2's `x`: given by the
/// executable (its App Store Server API client); nil without credentials. The checks before
/// sending and the audit entry are the dashboard's (``EffectRunner``), as `subdash extend` makes them.
public struct RenewalExtender: Sendable {
    /// The environment the credentials act on, as the audit log writes it (`production`, `sandbox`).
    public var environment: String
    /// The subscriptions it may act on: a sandbox key never acts on production data.
    public var storeEnvironment: StoreEnvironment
    /// The app the credentials are for; the store's must be the same.
    public var bundleId: String
    /// The request's JSON body, as `subdash extend` sends it.
    public var requestBody: @Sendable (_ days: Int, _ reason: String, _ requestIdentifier: String) -> String
    /// Sends `body` for the subscription; Apple's answer, a refusal (with its code) included.
    public var send: @Sendable (_ originalTransactionId: String, _ body: String) async throws -> SupportAnswer

    public init(
        environment: String, storeEnvironment: StoreEnvironment, bundleId: String,
        requestBody: @escaping @Sendable (Int, String, String) -> String,
        send: @escaping @Sendable (String, String) async throws -> SupportAnswer
    ) {
        self.environment = environment
        self.storeEnvironment = storeEnvironment
        self.bundleId = bundleId
        self.requestBody = requestBody
        self.send = send
    }

    /// Apple's reasons, in the order `r` cycles them.
    public static let reasons = ["customer-satisfaction", "service-issue", "other", "undeclared"]
}

/// What the store says about extending a subscription now (read before the dialog opens and
/// again before sending).
public struct ExtensionCheck: Equatable, Sendable {
    public var id: String
    public var productId: String?
    /// The renewal date now; nil outside a period.
    public var renewal: Instant?
    /// Why it is not sent whatever the days; nil: it may be.
    public var refusal: String?
    /// Extensions counted in the last 365 days.
    public var counted: Int
    /// The environment it acts on.
    public var environment: String
}

/// One extension confirmed in the dialog.
public struct ExtensionOrder: Equatable, Sendable {
    public var id: String
    public var days: Int
    public var reason: String
    public var operatorName: String
}

/// Pane 2's `x` dialog: days (typed), reason (`r`), the resulting renewal date and the environment.
public struct ExtensionDialog: Equatable, Sendable {
    public var check: ExtensionCheck
    public var daysText = "30"
    /// The first digit typed replaces the proposed 30 rather than appending to it.
    public var daysTyped = false
    public var reason = RenewalExtender.reasons[0]
    public var selectedButton = 0

    public init(check: ExtensionCheck) { self.check = check }

    public var days: Int? { Int(daysText) }

    /// Why enter would send nothing; nil: it sends.
    public var refusal: String? {
        if let refusal = check.refusal { return refusal }
        guard let days else { return "give the number of days (1 to 90)" }
        return ExtensionEligibility.daysRefusal(days)
    }

    public var dialog: Dialog {
        var lines = ["Extend \(check.id) (\(check.productId.map(TextSanitizer.visible) ?? "?"), \(check.environment))?"]
        lines.append("Days: \(daysText.isEmpty ? "_" : daysText) (1–90) · reason: \(reason)")
        if let renewal = check.renewal, let days, check.refusal == nil, (1...90).contains(days) {
            lines.append("Renewal date \(renewal.iso8601) → \(renewal.adding(days: Int64(days)).iso8601).")
        }
        if let refusal {
            lines.append("Not sent: \(TextSanitizer.visible(refusal))")
        } else {
            lines.append(
                "Apple emails the customer; an extension cannot be undone. "
                    + "Extensions in the last 365 days: \(check.counted) of \(ExtensionEligibility.maxPerYear).")
        }
        lines.append("0-9: days (replaces 30) · backspace · r: reason · enter: extend · esc: cancel")
        return Dialog(
            title: "Extend the renewal date", message: lines.joined(separator: "\n"), buttons: ["Extend", "Cancel"],
            selectedButton: selectedButton)
    }

    /// What a key does to the dialog: nil while it stays open, else whether it was confirmed.
    mutating func handle(_ event: KeyEvent) -> Bool? {
        switch event.key {
        case .char(let c) where c.isASCII && c.isNumber:
            if !daysTyped { daysText = "" }
            daysTyped = true
            if daysText.count < 3 { daysText = (daysText == "0" ? "" : daysText) + String(c) }
            return nil
        case .backspace:
            daysTyped = true
            daysText = String(daysText.dropLast())
            return nil
        case .char("r"), .char("R"):
            let all = RenewalExtender.reasons
            let index = all.firstIndex(of: reason) ?? 0
            reason = all[(index + (event.key == .char("r") ? 1 : all.count - 1)) % all.count]
            return nil
        default: break
        }
        var dialog = dialog
        switch dialog.handle(event) {
        case .pending:
            selectedButton = dialog.selectedButton
            return nil
        case .chosen(let button): return button == 0
        case .cancelled: return false
        }
    }
}

/// `x`: the store is read (state, earlier extensions) before the dialog opens.
func startExtension(_ state: inout AppState) -> [Effect] {
    guard let report = state.subscriber.report else { return [] }
    guard !state.readOnly else {
        state.notice = "read-only: extend is off (\(state.readOnlyReason))"
        return []
    }
    if let unavailable = state.appleFetchUnavailable {
        state.status = "extend: \(unavailable)"
        return []
    }
    guard state.extending == nil else {
        state.notice = "an extension of \(state.extending ?? "") is being sent to Apple"
        return []
    }
    return [.checkExtension(report.originalTransactionId)]
}

func extensionChecked(_ state: inout AppState, _ check: ExtensionCheck) -> [Effect] {
    guard state.pane == .subscriber, state.subscriber.id == check.id, state.confirmation == nil else { return [] }
    state.extensionDialog = ExtensionDialog(check: check)
    return []
}

/// A key in the `x` dialog; a yes sends the extension in the background (keys keep working).
func extensionDialogKey(_ state: inout AppState, _ dialog: ExtensionDialog, _ event: KeyEvent) -> [Effect] {
    var dialog = dialog
    guard let confirmed = dialog.handle(event) else {
        state.extensionDialog = dialog
        return []
    }
    state.extensionDialog = nil
    guard confirmed else {
        state.notice = "nothing sent"
        return []
    }
    if let refusal = dialog.refusal {
        state.status = "not sent: " + TextSanitizer.visible(refusal)
        return []
    }
    guard let days = dialog.days else { return [] }
    state.extending = dialog.check.id
    state.notice = "extending \(dialog.check.id) by \(days) day\(days == 1 ? "" : "s") at Apple…"
    return [
        .extendRenewal(
            ExtensionOrder(id: dialog.check.id, days: days, reason: dialog.reason, operatorName: state.operatorName))
    ]
}

/// Apple answered (or the checks before sending refused): said on the status line; the
/// subscriber is read again.
func extensionAnswered(_ state: inout AppState, id: String, message: String, success: Bool) -> [Effect] {
    state.extending = nil
    if success {
        state.notice = TextSanitizer.visible(message)
    } else {
        state.status = TextSanitizer.visible(message)
    }
    guard state.subscriber.id == id, let asOf = state.asOf else { return [] }
    return [.loadSubscriber(id: id, asOf: asOf)]
}

extension EffectRunner {
    /// What the store says about extending `id` at `now`: the checks `subdash extend` makes.
    func extensionCheck(_ id: String, now: Instant) throws -> ExtensionCheck {
        let report = try analytics.subscriber(originalTransactionId: id, asOf: now)
        let database = analytics.database
        let counted = try database.extensionsCounted(originalTransactionId: id, since: now.adding(days: -365))
        var check = ExtensionCheck(
            id: id, productId: report.productId, renewal: ExtensionEligibility.renewalDate(report),
            refusal: ExtensionEligibility.refusal(report, counted: counted, now: now), counted: counted.count,
            environment: extender?.environment ?? "?")
        guard let extender else {
            check.refusal = "no App Store Server API credentials"
            return check
        }
        if let app = try database.storeApp(), app.bundleId != extender.bundleId {
            check.refusal = "the credentials are for \(extender.bundleId) and the store holds \(app.bundleId)'s subscriptions"
        } else if report.timeline.environment != extender.storeEnvironment {
            check.refusal =
                "\(id) is a \(report.timeline.environment.rawValue) subscription and the credentials act on \(extender.environment)"
        } else if check.refusal == nil, check.renewal == nil {
            check.refusal = "\(id) has no current period to extend"
        } else if check.refusal == nil,
            let open = try database.supportActions(target: id, kind: .extend).last(where: { $0.settled == nil })
        {
            // `subdash extend` sends an unanswered request again with its request identifier.
            check.refusal =
                "an extension asked by \(open.operatorName) at \(open.at.iso8601) got no answer from Apple; "
                + "send it again with `subdash extend \(id)` and the same days and reason"
        }
        return check
    }

    /// Checks again, writes the request to the audit log before sending it, sends it and writes
    /// Apple's answer: as `subdash extend` does.
    public func extend(_ order: ExtensionOrder) async -> Action {
        let now = now()
        let summary = "extend by \(order.days) days (\(order.reason))"
        do {
            let check = try extensionCheck(order.id, now: now)
            if let refusal = check.refusal ?? ExtensionEligibility.daysRefusal(order.days) {
                return .extensionAnswered(id: order.id, message: "not sent: \(refusal)", success: false)
            }
            guard let extender else { return .extensionAnswered(id: order.id, message: "not sent", success: false) }
            let requestIdentifier = UUID().uuidString
            let body = extender.requestBody(order.days, order.reason, requestIdentifier)
            let database = analytics.database
            let action = try database.beginSupportAction(
                kind: .extend, target: order.id, environment: extender.environment, summary: summary, request: body,
                requestIdentifier: requestIdentifier, operatorName: order.operatorName, at: now)
            let answer: SupportAnswer
            do {
                answer = try await extender.send(order.id, body)
            } catch {
                try database.recordSupportAnswer(
                    SupportAnswer(outcome: .failed, answer: "\(error)", at: self.now()), action: action)
                return .extensionAnswered(
                    id: order.id, message: "extend \(order.id) at Apple: \(error) (request identifier \(requestIdentifier))",
                    success: false)
            }
            try database.recordSupportAnswer(answer, action: action)
            guard answer.outcome == .done else {
                return .extensionAnswered(
                    id: order.id, message: "Apple did not extend \(order.id): \(answer.answer)", success: false)
            }
            let effective = answer.effectiveDate.map(\.iso8601) ?? "not given"
            return .extensionAnswered(
                id: order.id, message: "extended \(order.id) by \(order.days) days: Apple's new renewal date \(effective)",
                success: true)
        } catch {
            log?("subdash: extend \(order.id) failed: \(error)")
            return .extensionAnswered(id: order.id, message: "extend \(order.id): \(error)", success: false)
        }
    }
}
