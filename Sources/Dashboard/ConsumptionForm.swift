import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// Apple's rules for Send Consumption Information and the body sent, shared by `subdash
/// consumption` and the dashboard's `:answer` form (README, "Support actions").
public enum ConsumptionRules {
    /// Apple's `deliveryStatus` values as subdash names them, in the order the form cycles them.
    public static let deliveries: [(name: String, apple: String)] = [
        ("delivered", "DELIVERED"), ("undelivered-quality", "UNDELIVERED_QUALITY_ISSUE"),
        ("undelivered-wrong-item", "UNDELIVERED_WRONG_ITEM"), ("undelivered-outage", "UNDELIVERED_SERVER_OUTAGE"),
        ("undelivered-other", "UNDELIVERED_OTHER"),
    ]
    /// Apple's `refundPreference` values as subdash names them.
    public static let refunds: [(name: String, apple: String)] = [
        ("decline", "DECLINE"), ("grant-full", "GRANT_FULL"), ("grant-prorated", "GRANT_PRORATED"),
    ]

    /// What Apple would refuse in an answer, before it is sent.
    public enum Refusal: Equatable, Sendable {
        case noConsent
        case percentOutOfRange(Int)
        case percentUndelivered
        case percentProrated
    }

    public static func refusal(delivery: String, consumed: Int?, refund: String, consented: Bool) -> Refusal? {
        guard consented else { return .noConsent }
        guard let consumed else { return nil }
        guard (0...100).contains(consumed) else { return .percentOutOfRange(consumed) }
        guard delivery == "delivered" else { return .percentUndelivered }
        guard refund != "grant-prorated" else { return .percentProrated }
        return nil
    }

    /// The JSON body (keys sorted); the percentage in Apple's thousandths.
    public static func body(delivery: String, consumed: Int?, refund: String, sampleContent: Bool) -> String {
        var fields = [
            #""customerConsented":true"#,
            #""deliveryStatus":"\#(deliveries.first { $0.name == delivery }?.apple ?? "")""#,
            #""refundPreference":"\#(refunds.first { $0.name == refund }?.apple ?? "")""#,
            #""sampleContentProvided":\#(sampleContent)"#,
        ]
        if let consumed { fields.insert(#""consumptionPercentage":\#(consumed * 1000)"#, at: 0) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// What the audit log says was asked.
    public static func summary(delivery: String, consumed: Int?, refund: String, sampleContent: Bool) -> String {
        "consumption: \(delivery)" + (consumed.map { ", \($0) % consumed" } ?? "") + ", refund \(refund)"
            + (sampleContent ? ", sample content" : "")
    }
}

/// What sends Send Consumption Information for the `:answer` form: given by the executable (its
/// App Store Server API client); nil without credentials.
public struct ConsumptionAnswerer: Sendable {
    public var environment: String
    public var storeEnvironment: StoreEnvironment
    public var bundleId: String
    /// Sends `body` about the transaction; Apple's answer, a refusal (with its code) included.
    public var send: @Sendable (_ transactionId: String, _ body: String) async throws -> SupportAnswer

    public init(
        environment: String, storeEnvironment: StoreEnvironment, bundleId: String,
        send: @escaping @Sendable (String, String) async throws -> SupportAnswer
    ) {
        self.environment = environment
        self.storeEnvironment = storeEnvironment
        self.bundleId = bundleId
        self.send = send
    }
}

/// What the store says about answering the request about a transaction now (read before the
/// form opens and again before sending).
public struct ConsumptionCheck: Equatable, Sendable {
    public var transactionId: String
    public var productId: String?
    /// Apple's `consumptionRequestReason`.
    public var reason: String?
    public var environment: String
    /// Why nothing is sent whatever the answer; nil: it may be.
    public var refusal: String?
}

/// One answer confirmed in the form.
public struct ConsumptionOrder: Equatable, Sendable {
    public var transactionId: String
    public var delivery: String
    public var consumed: Int?
    public var refund: String
    public var sampleContent: Bool
    public var operatorName: String
}

/// `:answer TRANSACTION_ID`: delivery (`d`), consumed percent (typed), refund preference (`r`),
/// the customer's consent (`c`) and sample content (`s`); enter checks Apple's rules, then asks
/// for confirmation naming the environment; a second enter sends.
public struct ConsumptionForm: Equatable, Sendable {
    public var check: ConsumptionCheck
    public var delivery = 0
    public var consumedText = ""
    public var refund = 0
    public var consented = false
    public var sampleContent = false
    /// Enter was pressed once with an answer Apple takes: the form asks to confirm.
    public var confirming = false
    /// What enter refused, shown until the next change.
    public var shownRefusal: String?

    public init(check: ConsumptionCheck) { self.check = check }

    var deliveryName: String { ConsumptionRules.deliveries[delivery].name }
    var refundName: String { ConsumptionRules.refunds[refund].name }
    var consumed: Int? { Int(consumedText) }

    /// Why enter would send nothing, in the form's words; nil: it may be sent.
    public var refusal: String? {
        if let refusal = check.refusal { return refusal }
        switch ConsumptionRules.refusal(delivery: deliveryName, consumed: consumed, refund: refundName, consented: consented) {
        case nil: return nil
        case .noConsent: return "Apple takes consumption information only with the customer's consent: c once they gave it"
        case .percentOutOfRange(let value): return "\(value) %: a percentage is 0 to 100"
        case .percentUndelivered:
            return "a consumed percentage goes only with delivery delivered (Apple: an undelivered purchase was not consumed)"
        case .percentProrated:
            return "no consumed percentage with refund grant-prorated: Apple prorates a subscription by itself"
        }
    }

    var order: ConsumptionOrder {
        ConsumptionOrder(
            transactionId: check.transactionId, delivery: deliveryName, consumed: consumed, refund: refundName,
            sampleContent: sampleContent, operatorName: "")
    }

    public var dialog: Dialog {
        let product = check.productId.map(TextSanitizer.visible) ?? "?"
        var lines = [
            "About \(TextSanitizer.visible(check.transactionId)) (\(product), \(check.environment)); Apple's reason: "
                + (check.reason.map(TextSanitizer.visible) ?? "none given")
        ]
        lines.append("Delivery: \(deliveryName) (d)")
        lines.append("Consumed: \(consumedText.isEmpty ? "not said" : consumedText + " %") (0-9, backspace)")
        lines.append("Refund preference: \(refundName) (r)")
        lines.append("Customer consented: \(consented ? "yes" : "no") (c) · sample content: \(sampleContent ? "yes" : "no") (s)")
        if let refusal = check.refusal ?? shownRefusal {
            lines.append("Not sent: \(TextSanitizer.visible(refusal))")
        } else if confirming {
            lines.append(
                "Send this to Apple (\(check.environment))? Apple weighs it to decide the refund; it cannot be taken back. "
                    + "enter: send · esc: change it")
        } else {
            lines.append("enter: check and confirm · esc: cancel")
        }
        return Dialog(
            title: "Answer Apple's consumption request", message: lines.joined(separator: "\n"),
            buttons: confirming ? ["Send", "Back"] : ["Check", "Cancel"], selectedButton: 0)
    }

    /// What a key does: nil while the form stays open, else whether the answer is to be sent.
    mutating func handle(_ event: KeyEvent) -> Bool? {
        if confirming {
            switch event.key {
            case .enter: return true
            case .esc:
                confirming = false
                return nil
            default: return nil
            }
        }
        switch event.key {
        case .char(let c) where c.isASCII && c.isNumber:
            if consumedText.count < 3 { consumedText = (consumedText == "0" ? "" : consumedText) + String(c) }
        case .backspace: consumedText = String(consumedText.dropLast())
        case .char("d"): delivery = (delivery + 1) % ConsumptionRules.deliveries.count
        case .char("D"): delivery = (delivery + ConsumptionRules.deliveries.count - 1) % ConsumptionRules.deliveries.count
        case .char("r"): refund = (refund + 1) % ConsumptionRules.refunds.count
        case .char("R"): refund = (refund + ConsumptionRules.refunds.count - 1) % ConsumptionRules.refunds.count
        case .char("c"): consented.toggle()
        case .char("s"): sampleContent.toggle()
        case .esc: return false
        case .enter:
            shownRefusal = refusal
            if shownRefusal == nil { confirming = true }
            return nil
        default: return nil
        }
        shownRefusal = nil
        return nil
    }
}

/// `:answer ID`: the store is read (the request, whether it was answered) before the form opens.
func startConsumptionAnswer(_ state: inout AppState, _ transactionId: String) -> [Effect] {
    guard !transactionId.isEmpty else {
        state.status = "usage: :answer TRANSACTION_ID (the requests waiting: :support)"
        return []
    }
    guard !state.readOnly else {
        state.notice = "read-only: answering is off (\(state.readOnlyReason))"
        return []
    }
    if let unavailable = state.appleFetchUnavailable {
        state.status = "answer: \(unavailable)"
        return []
    }
    return [.checkConsumption(transactionId)]
}

func consumptionChecked(_ state: inout AppState, _ check: ConsumptionCheck) -> [Effect] {
    guard state.confirmation == nil, state.extensionDialog == nil else { return [] }
    state.consumptionForm = ConsumptionForm(check: check)
    return []
}

/// A key in the form; a confirmed answer is sent in the background (keys keep working).
func consumptionFormKey(_ state: inout AppState, _ form: ConsumptionForm, _ event: KeyEvent) -> [Effect] {
    var form = form
    guard let send = form.handle(event) else {
        state.consumptionForm = form
        return []
    }
    state.consumptionForm = nil
    guard send, form.refusal == nil else {
        state.notice = "nothing sent"
        return []
    }
    var order = form.order
    order.operatorName = state.operatorName
    state.notice = "sending the answer about \(TextSanitizer.visible(order.transactionId)) to Apple…"
    return [.answerConsumption(order)]
}

func consumptionAnswered(_ state: inout AppState, message: String, success: Bool) -> [Effect] {
    if success { state.notice = TextSanitizer.visible(message) } else { state.status = TextSanitizer.visible(message) }
    return []
}

extension EffectRunner {
    /// What the store says about answering Apple's request about `transactionId` at `now`: the
    /// checks `subdash consumption` makes.
    func consumptionCheck(_ transactionId: String, now: Instant) throws -> ConsumptionCheck {
        let database = analytics.database
        let request = try database.consumptionRequests().last { $0.transactionId == transactionId }
        var check = ConsumptionCheck(
            transactionId: transactionId, productId: nil, reason: request?.reason,
            environment: consumptionAnswerer?.environment ?? "?")
        guard let request else {
            check.refusal =
                "Apple has asked for no consumption information about \(transactionId) (no CONSUMPTION_REQUEST stored)"
            return check
        }
        if let done = try database.supportActions(target: transactionId, kind: .consumption).last(where: {
            $0.settled?.outcome == .done
        }), done.at >= request.at {
            check.refusal = "\(transactionId) was answered by \(done.operatorName) at \(done.at.iso8601) (\(done.summary))"
            return check
        }
        guard let answerer = consumptionAnswerer else {
            check.refusal = "no App Store Server API credentials"
            return check
        }
        if let app = try database.storeApp(), app.bundleId != answerer.bundleId {
            check.refusal = "the credentials are for \(answerer.bundleId) and the store holds \(app.bundleId)'s subscriptions"
        } else if let original = request.originalTransactionId,
            let report = try? analytics.subscriber(originalTransactionId: original, asOf: now)
        {
            check.productId = report.timeline.periods.first { $0.transactionId == transactionId }?.productId ?? report.productId
            if report.timeline.environment != answerer.storeEnvironment {
                check.refusal =
                    "\(transactionId) is a \(report.timeline.environment.rawValue) purchase and the credentials act on \(answerer.environment)"
            }
        }
        return check
    }

    /// Checks again, writes the answer to the audit log before sending it, sends it and writes
    /// Apple's reply: as `subdash consumption` does.
    public func answerConsumption(_ order: ConsumptionOrder) async -> Action {
        let id = order.transactionId
        do {
            let check = try consumptionCheck(id, now: now())
            if let refusal = check.refusal {
                return .consumptionAnswered(message: "not sent: \(refusal)", success: false)
            }
            if ConsumptionRules.refusal(
                delivery: order.delivery, consumed: order.consumed, refund: order.refund, consented: true) != nil
            {
                return .consumptionAnswered(message: "not sent: Apple would refuse this answer", success: false)
            }
            guard let answerer = consumptionAnswerer else { return .consumptionAnswered(message: "not sent", success: false) }
            let body = ConsumptionRules.body(
                delivery: order.delivery, consumed: order.consumed, refund: order.refund, sampleContent: order.sampleContent)
            let summary = ConsumptionRules.summary(
                delivery: order.delivery, consumed: order.consumed, refund: order.refund, sampleContent: order.sampleContent)
            let database = analytics.database
            let action = try database.beginSupportAction(
                kind: .consumption, target: id, environment: answerer.environment, summary: summary, request: body,
                requestIdentifier: nil, operatorName: order.operatorName, at: now())
            let answer: SupportAnswer
            do {
                answer = try await answerer.send(id, body)
            } catch {
                try database.recordSupportAnswer(SupportAnswer(outcome: .failed, answer: "\(error)", at: now()), action: action)
                return .consumptionAnswered(message: "answer about \(id) at Apple: \(error)", success: false)
            }
            try database.recordSupportAnswer(answer, action: action)
            guard answer.outcome == .done else {
                return .consumptionAnswered(
                    message: "Apple did not take the answer about \(id): \(answer.answer)", success: false)
            }
            return .consumptionAnswered(message: "answered Apple's consumption request about \(id): accepted", success: true)
        } catch {
            log?("subdash: answer \(id) failed: \(error)")
            return .consumptionAnswered(message: "answer about \(id): \(error)", success: false)
        }
    }
}
