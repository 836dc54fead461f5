import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import Synchronization
import TerminalUI
import Testing

@testable import Dashboard

/// `:answer ID`: the form, Apple's rules before sending, the confirmation naming the environment,
/// and the answer sent through a stand-in for Apple, audited.
@Suite(.serialized) struct ConsumptionFormScreens {
    final class Sent: Sendable {
        let requests = Mutex<[(String, String)]>([])
    }

    /// SupportViewScreens' store (8102 waits for an answer, 9101 was answered by bob) with an
    /// answerer for com.example.app in production; the store's app is not recorded.
    static func runner(sent: Sent, credentials: Bool = true) throws -> EffectRunner {
        let database = try SupportViewScreens.runner().analytics.database
        let answerer = ConsumptionAnswerer(
            environment: "production", storeEnvironment: .production, bundleId: "com.example.app",
            send: { id, body in
                sent.requests.withLock { $0.append((id, body)) }
                return SupportAnswer(outcome: .done, answer: "accepted", at: SupportViewScreens.day("2025-03-10"))
            })
        return EffectRunner(
            analytics: SubscriberAnalytics(database: database), now: { SupportViewScreens.day("2025-03-10") },
            consumptionAnswerer: credentials ? answerer : nil)
    }

    static func command(_ text: String, _ state: inout AppState, _ runner: EffectRunner) {
        drive(.key(KeyEvent(.char(":"))), &state, runner)
        for c in text { drive(.key(KeyEvent(.char(c))), &state, runner) }
        drive(.key(KeyEvent(.enter)), &state, runner)
    }

    static func type(_ text: String, _ state: inout AppState, _ runner: EffectRunner) {
        for c in text { drive(.key(KeyEvent(.char(c))), &state, runner) }
    }

    static func state(_ runner: EffectRunner, credentials: Bool = true) -> AppState {
        var state = AppState(asOf: SupportViewScreens.day("2025-03-10"), operatorName: "alice")
        if credentials { state.appleFetchUnavailable = nil }
        drive(.start, &state, runner)
        return state
    }

    @Test func theFormRefusesWhatAppleWouldRefuseWithTheReasonAndSendsNothing() throws {
        let sent = Sent()
        let runner = try Self.runner(sent: sent)
        var state = Self.state(runner)
        Self.command("answer 8102", &state, runner)
        let opened = RenewalExtensionScreens.screen(state)
        #expect(opened.contains("Answer Apple's consumption request"), "\(opened)")
        #expect(opened.contains("About 8102 (pro.monthly, production); Apple's reason:"), "\(opened)")
        #expect(opened.contains("UNINTENDED_PURCHASE"), "\(opened)")
        #expect(opened.contains("Delivery: delivered (d)"), "\(opened)")
        #expect(opened.contains("Customer consented: no (c)"), "\(opened)")

        // No consent.
        drive(.key(KeyEvent(.enter)), &state, runner)
        #expect(
            state.consumptionForm?.shownRefusal
                == "Apple takes consumption information only with the customer's consent: c once they gave it")
        #expect(RenewalExtensionScreens.screen(state).contains("Not sent: Apple takes consumption information only"))
        // A percentage with an undelivered purchase.
        Self.type("c40d", &state, runner)
        drive(.key(KeyEvent(.enter)), &state, runner)
        #expect(
            state.consumptionForm?.shownRefusal
                == "a consumed percentage goes only with delivery delivered (Apple: an undelivered purchase was not consumed)")
        // Delivered, but refund grant-prorated with a percentage.
        Self.type("Drr", &state, runner)
        drive(.key(KeyEvent(.enter)), &state, runner)
        #expect(
            state.consumptionForm?.shownRefusal
                == "no consumed percentage with refund grant-prorated: Apple prorates a subscription by itself")
        #expect(state.consumptionForm?.confirming == false)
        drive(.key(KeyEvent(.esc)), &state, runner)
        #expect(state.consumptionForm == nil)
        #expect(state.notice == "nothing sent")
        #expect(sent.requests.withLock { $0.isEmpty })
        #expect(try runner.analytics.database.supportActions(kind: .consumption).count == 1)  // bob's only

        // An answered request and one Apple never asked about are refused when the form opens.
        Self.command("answer 9101", &state, runner)
        let answered = RenewalExtensionScreens.screen(state)
        #expect(answered.contains("Not sent: 9101 was answered by bob at 2025-02-21T00:00:00Z"), "\(answered)")
        drive(.key(KeyEvent(.esc)), &state, runner)
        Self.command("answer 7777", &state, runner)
        #expect(
            state.consumptionForm?.check.refusal
                == "Apple has asked for no consumption information about 7777 (no CONSUMPTION_REQUEST stored)")
    }

    @Test func aConfirmedAnswerNamesTheEnvironmentIsSentInTheBackgroundAndAudited() async throws {
        let sent = Sent()
        let runner = try Self.runner(sent: sent)
        var state = Self.state(runner)
        Self.command("answer 8102", &state, runner)
        Self.type("c30s", &state, runner)
        drive(.key(KeyEvent(.enter)), &state, runner)
        let confirming = RenewalExtensionScreens.screen(state)
        #expect(confirming.contains("Send this to Apple (production)?"), "\(confirming)")
        #expect(sent.requests.withLock { $0.isEmpty })

        let order = ConsumptionOrder(
            transactionId: "8102", delivery: "delivered", consumed: 30, refund: "decline", sampleContent: true,
            operatorName: "alice")
        #expect(update(&state, .key(KeyEvent(.enter))) == [.answerConsumption(order)])
        #expect(state.consumptionForm == nil)
        #expect(state.notice == "sending the answer about 8102 to Apple…")
        drive(await runner.answerConsumption(order), &state, runner)
        #expect(state.notice == "answered Apple's consumption request about 8102: accepted")
        let requests = sent.requests.withLock { $0 }
        #expect(requests.count == 1)
        #expect(requests.first?.0 == "8102")
        #expect(
            requests.first?.1
                == #"{"consumptionPercentage":30000,"customerConsented":true,"deliveryStatus":"DELIVERED","refundPreference":"DECLINE","sampleContentProvided":true}"#
        )
        let asked = try runner.analytics.database.supportActions(target: "8102", kind: .consumption)
        #expect(asked.count == 1)
        #expect(asked.first?.operatorName == "alice")
        #expect(asked.first?.summary == "consumption: delivered, 30 % consumed, refund decline, sample content")
        #expect(asked.first?.request == requests.first?.1)
        #expect(asked.first?.settled?.outcome == .done)

        // The queue now shows it answered.
        Self.command("support", &state, runner)
        let text = try #require(SupportViewScreens.text(state))
        #expect(text.hasPrefix("Consumption requests: 0 waiting, 2 answered"), "\(text)")
        #expect(text.contains("answered by alice at 2025-03-10T00:00:00Z: consumption: delivered, 30 % consumed"))
    }

    @Test func withoutCredentialsOrReadOnlyTheFormIsNotOffered() throws {
        let runner = try Self.runner(sent: Sent(), credentials: false)
        var state = Self.state(runner, credentials: false)
        Self.command("answer 8102", &state, runner)
        #expect(state.consumptionForm == nil)
        #expect(state.status == "answer: no App Store Server API credentials")
        var readOnly = AppState(asOf: SupportViewScreens.day("2025-03-10"), readOnly: true, operatorName: "alice")
        readOnly.appleFetchUnavailable = nil
        Self.command("answer 8102", &readOnly, runner)
        #expect(readOnly.consumptionForm == nil)
        #expect(readOnly.notice?.hasPrefix("read-only: answering is off") == true)
    }
}
