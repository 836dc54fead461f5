import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI
import Testing

@testable import Dashboard

/// `:support`: Apple's consumption requests and the mass extensions, as the store holds them.
@Suite(.serialized) struct SupportViewScreens {
    static func day(_ text: String) -> Instant { Instant(parsing: text)! }

    /// A signed notification document (`{"signedPayload": …}`) whose payload is `payload`: the
    /// store reads the reason and the summary from the archived body.
    static func signed(_ payload: String) -> Data {
        let segment = Data(payload.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return Data(#"{"signedPayload":"eyJhbGciOiJFUzI1NiJ9.\#(segment).c2ln"}"#.utf8)
    }

    static func document(_ name: String, body: Data? = nil, _ facts: DocumentFacts) -> IncomingDocument {
        IncomingDocument(
            sha256: String(repeating: "0", count: 64 - name.count) + name, source: name, byteCount: body?.count ?? 1, body: body,
            content: .facts(facts))
    }

    /// 8100 (pro.monthly): a request about its February period (28 days) on 2025-02-16, not
    /// answered. 9100 (pro.yearly): a request answered by bob, then REFUND_DECLINED. Two mass
    /// extensions: req-1 with Apple's SUMMARY (30 succeeded, 2 failed), req-2 polled once while
    /// running. Now is 2025-03-10.
    static func runner() throws -> EffectRunner {
        let database = try AppDatabase.inMemory()
        func transaction(_ id: String, _ original: String, _ product: String, _ start: String, _ end: String) -> TransactionFact {
            TransactionFact(
                transactionId: id, originalTransactionId: original, productId: product, purchaseDate: day(start),
                expiresDate: day(end), environment: .production)
        }
        func notification(
            _ id: String, _ type: String, subtype: String? = nil, _ at: String, _ transaction: String?, _ original: String?
        )
            -> NotificationFact
        {
            NotificationFact(
                notificationId: id, format: .v2Notification, notificationType: type, subtype: subtype, instant: day(at),
                originalTransactionId: original, transactionId: transaction)
        }
        try database.apply([
            document(
                "sv-8100",
                DocumentFacts(
                    format: .v2Notification,
                    transactions: [
                        transaction("8101", "8100", "pro.monthly", "2025-01-01", "2025-02-01"),
                        transaction("8102", "8100", "pro.monthly", "2025-02-01", "2025-03-01"),
                    ])),
            document(
                "sv-9100",
                DocumentFacts(
                    format: .v2Notification,
                    transactions: [transaction("9101", "9100", "pro.yearly", "2025-01-10", "2026-01-10")])),
            document(
                "sv-cr-8102",
                body: signed(
                    #"{"notificationType":"CONSUMPTION_REQUEST","notificationUUID":"cr-8102","data":{"consumptionRequestReason":"UNINTENDED_PURCHASE"}}"#
                ),
                DocumentFacts(
                    format: .v2Notification,
                    notifications: [notification("cr-8102", "CONSUMPTION_REQUEST", "2025-02-16", "8102", "8100")])),
            document(
                "sv-cr-9101",
                body: signed(
                    #"{"notificationType":"CONSUMPTION_REQUEST","notificationUUID":"cr-9101","data":{"consumptionRequestReason":"LEGAL"}}"#
                ),
                DocumentFacts(
                    format: .v2Notification,
                    notifications: [notification("cr-9101", "CONSUMPTION_REQUEST", "2025-02-20", "9101", "9100")])),
            document(
                "sv-rd-9101",
                DocumentFacts(
                    format: .v2Notification,
                    notifications: [notification("rd-9101", "REFUND_DECLINED", "2025-02-25", "9101", "9100")])),
            document(
                "sv-summary",
                body: signed(
                    #"{"notificationType":"RENEWAL_EXTENSION","subtype":"SUMMARY","notificationUUID":"sum-1","summary":{"requestIdentifier":"req-1","productId":"pro.monthly","storefrontCountryCodes":["USA"],"succeededCount":30,"failedCount":2}}"#
                ),
                DocumentFacts(
                    format: .v2Notification,
                    notifications: [notification("sum-1", "RENEWAL_EXTENSION", subtype: "SUMMARY", "2025-03-05", nil, nil)])),
        ])
        let answered = try database.beginSupportAction(
            kind: .consumption, target: "9101", environment: "production",
            summary: "consumption: delivered, 10 % consumed, refund decline", request: "{}", requestIdentifier: nil,
            operatorName: "bob", at: day("2025-02-21"))
        try database.recordSupportAnswer(
            SupportAnswer(outcome: .done, answer: "accepted", at: day("2025-02-21")), action: answered)
        let first = try database.beginSupportAction(
            kind: .massExtend, target: "pro.monthly", environment: "production",
            summary: "extend every active subscriber by 7 days (service-issue, storefronts USA)", request: "{}",
            requestIdentifier: "req-1", operatorName: "alice", at: day("2025-03-01"))
        try database.recordSupportAnswer(
            SupportAnswer(outcome: .done, answer: "accepted: requestIdentifier req-1", at: day("2025-03-01")), action: first)
        let second = try database.beginSupportAction(
            kind: .massExtend, target: "pro.monthly", environment: "production",
            summary: "extend every active subscriber by 3 days (other, every storefront)", request: "{}",
            requestIdentifier: "req-2", operatorName: "carol", at: day("2025-03-08"))
        try database.recordSupportAnswer(
            SupportAnswer(outcome: .done, answer: "accepted: requestIdentifier req-2", at: day("2025-03-08")), action: second)
        let poll = try database.beginSupportAction(
            kind: .massExtendStatus, target: "pro.monthly", environment: "production", summary: "status of mass extension req-2",
            request: nil, requestIdentifier: "req-2", operatorName: "carol", at: day("2025-03-09"))
        try database.recordSupportAnswer(
            SupportAnswer(
                outcome: .done, answer: #"{"requestIdentifier":"req-2","complete":false,"succeededCount":5,"failedCount":0}"#,
                at: day("2025-03-09")), action: poll)
        return EffectRunner(analytics: SubscriberAnalytics(database: database), now: { day("2025-03-10") })
    }

    static func open(_ runner: EffectRunner) -> AppState {
        var state = AppState(asOf: day("2025-03-10"), operatorName: "alice")
        drive(.start, &state, runner)
        drive(.key(KeyEvent(.char(":"))), &state, runner)
        for c in "support" { drive(.key(KeyEvent(.char(c))), &state, runner) }
        drive(.key(KeyEvent(.enter)), &state, runner)
        return state
    }

    static func text(_ state: AppState) -> String? {
        guard case .message(_, let text) = state.overlay else { return nil }
        return text
    }

    @Test func theQueueListsTheWaitingRequestFirstWithWhatTheAgentShouldKnowThenTheAnsweredOne() throws {
        let state = Self.open(try Self.runner())
        let text = try #require(Self.text(state))
        // 15 of February's 28 days had passed on 2025-02-16 (53 %), 22 days before now; 41 of
        // 9101's 365 days (11 %).
        #expect(
            text.hasPrefix(
                """
                Consumption requests: 1 waiting, 1 answered
                • transaction 8102 of 8100 · pro.monthly
                  UNINTENDED_PURCHASE · asked 22 d ago
                  on 2025-02-16T00:00:00Z · 53 % of the period used
                  2 paid periods
                  waiting for an answer
                • transaction 9101 of 9100 · pro.yearly
                  LEGAL · asked 18 d ago
                  on 2025-02-20T00:00:00Z · 11 % of the period used
                  1 paid period
                  answered by bob at 2025-02-21T00:00:00Z: consumption: delivered, 10 % consumed, refund decline
                  REFUND_DECLINED 2025-02-25T00:00:00Z
                  answer: :answer TRANSACTION_ID

                """), "\(text)")
        let screen = RenewalExtensionScreens.screen(state)
        #expect(screen.contains("┌ Support"), "\(screen)")
        #expect(screen.contains("Consumption requests: 1 waiting, 1 answered"), "\(screen)")
        #expect(screen.contains("• transaction 8102 of 8100 · pro.monthly"), "\(screen)")
        #expect(screen.contains("waiting for an answer"), "\(screen)")
    }

    @Test func massExtensionsShowApplesSummaryWhenItArrivedAndTheLastPollOtherwise() throws {
        let state = Self.open(try Self.runner())
        let text = try #require(Self.text(state))
        // Newest first.
        #expect(
            text.hasSuffix(
                """
                Mass extensions: 2
                • request req-2
                  pro.monthly · production
                  asked by carol at 2025-03-08T00:00:00Z
                  extend every active subscriber by 3 days (other, every storefront)
                  running: 5 succeeded, 0 failed
                  (polled 2025-03-09T00:00:00Z)
                • request req-1
                  pro.monthly · production
                  asked by alice at 2025-03-01T00:00:00Z
                  extend every active subscriber by 7 days (service-issue, storefronts USA)
                  done: Apple's summary of 2025-03-05T00:00:00Z
                  30 succeeded, 2 failed
                """), "\(text)")
    }

    @Test func anEmptyStoreSaysThereIsNothing() throws {
        let runner = EffectRunner(
            analytics: SubscriberAnalytics(database: try AppDatabase.inMemory()), now: { Self.day("2025-03-10") })
        let text = try #require(Self.text(Self.open(runner)))
        #expect(text.contains("Consumption requests: 0 waiting, 0 answered\n  none stored"))
        #expect(text.contains("Mass extensions: 0\n  none asked (subdash extend --all)"))
    }

    @Test func theFirstDigitTypedInTheExtensionDialogReplacesTheProposedThirtyDays() throws {
        let runner = try RenewalExtensionScreens.runner()
        var state = RenewalExtensionScreens.showing("8100", runner)
        drive(.key(KeyEvent(.char("x"))), &state, runner)
        RenewalExtensionScreens.type("7", &state, runner)
        let screen = RenewalExtensionScreens.screen(state)
        #expect(screen.contains("Days: 7 (1–90) · reason: customer-satisfaction"), "\(screen)")
        #expect(screen.contains("Renewal date 2025-04-01T00:00:00Z → 2025-04-08T00:00:00Z."), "\(screen)")
        RenewalExtensionScreens.type("0", &state, runner)
        #expect(RenewalExtensionScreens.screen(state).contains("Days: 70 (1–90)"))
    }

    @Test func anExtensionsAnswerReadsAsTheNewRenewalDateInTheAuditView() {
        #expect(
            readableAnswer(#"done: {"originalTransactionId":"1","success":true,"effectiveDate":1741564800000}"#)
                == "done: Apple's new renewal date 2025-03-10T00:00:00Z")
        #expect(
            readableAnswer("refused: subscription max extension (errorCode 4030005)")
                == "refused: subscription max extension (errorCode 4030005)")
        #expect(readableAnswer("done: {not json") == "done: {not json")
    }
}

/// `:support` taller than the screen scrolls with the list keys (MessageOverlay.swift).
@Suite(.serialized) struct SupportOverlayScrolling {
    /// The dashboard at 80×24 (its smallest) on SupportViewScreens' store with `:support` open.
    static func session() throws -> (DashboardSession<TestBackend>, TestBackend) {
        let backend = TestBackend(width: 80, height: 24, colorSupport: .none)
        let session = DashboardSession(
            backend: backend, runner: try SupportViewScreens.runner(), palette: .builtinDefault(.none),
            state: AppState(asOf: SupportViewScreens.day("2025-03-10"), operatorName: "alice"))
        session.apply(.start)
        session.settle()
        press(":support", session)
        session.press(KeyEvent(.enter))
        session.settle()
        return (session, backend)
    }

    static func press(_ text: String, _ session: DashboardSession<TestBackend>) {
        for c in text { session.press(KeyEvent(.char(c))) }
        session.settle()
    }

    static func screen(_ session: DashboardSession<TestBackend>, _ backend: TestBackend) -> String {
        session.draw()
        return backend.lines.joined(separator: "\n")
    }

    /// The overlay's 30 lines (two consumption requests, two mass extensions; four lines wider
    /// than the dialog's 60 columns wrap) on 24 rows: 18 at a time and the line saying what lies below.
    @Test func onA24RowScreenTheListKeysScrollTheSupportOverlayAndAnyOtherKeyClosesIt() throws {
        let (session, backend) = try Self.session()
        var screen = Self.screen(session, backend)
        #expect(screen.contains("Support · 1–18 of 30"), "\(screen)")
        #expect(screen.contains("Consumption requests: 1 waiting, 1 answered"))
        #expect(screen.contains("↓ 12 more lines (j/k, pgdn/pgup, g/G)"), "\(screen)")
        #expect(screen.contains("Mass extensions: 2"))
        #expect(!screen.contains("asked by carol"))
        Self.press("j", session)
        screen = Self.screen(session, backend)
        #expect(screen.contains("Support · 2–19 of 30"), "\(screen)")
        #expect(!screen.contains("Consumption requests: 1 waiting"))
        Self.press("G", session)
        screen = Self.screen(session, backend)
        #expect(screen.contains("Support · 13–30 of 30"), "\(screen)")
        #expect(screen.contains("30 succeeded, 2 failed"), "\(screen)")
        #expect(screen.contains("end (30 lines; k, pgup or g scroll back)"), "\(screen)")
        // Past the end stays at the end; k moves back at once.
        Self.press("j", session)
        Self.press("k", session)
        #expect(Self.screen(session, backend).contains("Support · 12–29 of 30"))
        session.press(KeyEvent(.pageUp))
        #expect(Self.screen(session, backend).contains("Support · 1–18 of 30"))
        session.press(KeyEvent(.pageDown))
        #expect(Self.screen(session, backend).contains("Support · 13–30 of 30"))
        Self.press("g", session)
        #expect(Self.screen(session, backend).contains("Support · 1–18 of 30"))
        #expect(session.state.overlay != nil)
        Self.press("x", session)
        #expect(session.state.overlay == nil)
        #expect(!Self.screen(session, backend).contains("Consumption requests"))
    }

    @Test func onATallScreenEverythingShowsAndJClosesAsBefore() throws {
        let backend = TestBackend(width: 80, height: 40, colorSupport: .none)
        let session = DashboardSession(
            backend: backend, runner: try SupportViewScreens.runner(), palette: .builtinDefault(.none),
            state: AppState(asOf: SupportViewScreens.day("2025-03-10"), operatorName: "alice"))
        session.apply(.start)
        session.settle()
        Self.press(":support", session)
        session.press(KeyEvent(.enter))
        session.settle()
        let screen = Self.screen(session, backend)
        #expect(screen.contains("┌ Support ─"), "\(screen)")
        #expect(screen.contains("Consumption requests: 1 waiting, 1 answered"))
        #expect(screen.contains("30 succeeded, 2 failed"))
        #expect(!screen.contains("more line"))
        Self.press("j", session)
        #expect(session.state.overlay == nil)
    }
}
