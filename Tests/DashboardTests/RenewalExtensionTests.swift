import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import Synchronization
import TerminalUI
import Testing

@testable import Dashboard

/// Pane 2's `x`: the dialog, the checks `subdash extend` makes, and an extension sent through a
/// stand-in for Apple, audited.
@Suite(.serialized) struct RenewalExtensionScreens {
    /// What the stand-in for Apple received: (original transaction id, body).
    final class Sent: Sendable {
        let requests = Mutex<[(String, String)]>([])
    }

    /// 8100 active (renews 2025-04-01), 8200 expired on 2025-02-01; now is 2025-03-10.
    static func runner(sent: Sent = Sent(), credentials: Bool = true) throws -> EffectRunner {
        let database = try AppDatabase.inMemory()
        func document(_ name: String, _ t: TransactionFact) -> IncomingDocument {
            IncomingDocument(
                sha256: String(repeating: "0", count: 64 - name.count) + name, source: name, byteCount: 1, body: nil,
                content: .facts(DocumentFacts(format: .v2Notification, transactions: [t])))
        }
        try database.apply([
            document(
                "ext-8101",
                TransactionFact(
                    transactionId: "8101", originalTransactionId: "8100", productId: "pro.monthly",
                    purchaseDate: Instant(parsing: "2025-03-01")!, expiresDate: Instant(parsing: "2025-04-01")!,
                    environment: .production)),
            document(
                "ext-8201",
                TransactionFact(
                    transactionId: "8201", originalTransactionId: "8200", productId: "pro.monthly",
                    purchaseDate: Instant(parsing: "2025-01-01")!, expiresDate: Instant(parsing: "2025-02-01")!,
                    environment: .production)),
        ])
        let extender = RenewalExtender(
            environment: "production", storeEnvironment: .production, bundleId: "com.example.app",
            requestBody: { days, reason, id in "{\"days\":\(days),\"reason\":\"\(reason)\",\"requestIdentifier\":\"\(id)\"}" },
            send: { id, body in
                sent.requests.withLock { $0.append((id, body)) }
                return SupportAnswer(
                    outcome: .done, answer: "success true", effectiveDate: Instant(parsing: "2025-04-08")!,
                    at: Instant(parsing: "2025-03-10")!)
            })
        return EffectRunner(
            analytics: SubscriberAnalytics(database: database), now: { Instant(parsing: "2025-03-10")! },
            extender: credentials ? extender : nil)
    }

    static func screen(_ state: AppState) -> String {
        let backend = TestBackend(width: 120, height: 30, colorSupport: .none)
        Terminal(backend: backend).draw { buffer in render(state, into: &buffer, palette: .builtinDefault(.none)) }
        return backend.lines.joined(separator: "\n")
    }

    /// Pane 2 showing `id`, as alice, with credentials.
    static func showing(_ id: String, _ runner: EffectRunner, credentials: Bool = true, readOnly: Bool = false) -> AppState {
        var state = AppState(asOf: Instant(parsing: "2025-03-10")!, readOnly: readOnly, operatorName: "alice")
        if credentials { state.appleFetchUnavailable = nil }
        drive(.start, &state, runner)
        drive(.switchPane(.subscriber), &state, runner)
        state.subscriber = SubscriberPane(id: id)
        drive(.reload, &state, runner)
        return state
    }

    static func type(_ text: String, _ state: inout AppState, _ runner: EffectRunner) {
        for c in text { drive(.key(KeyEvent(.char(c))), &state, runner) }
    }

    @Test func theDialogNamesTheNewDateAndTheEnvironmentAndTheExtensionIsSentAndAudited() async throws {
        let sent = Sent()
        let runner = try Self.runner(sent: sent)
        var state = Self.showing("8100", runner)
        #expect(state.subscriber.report?.originalTransactionId == "8100")
        drive(.key(KeyEvent(.char("x"))), &state, runner)
        let opened = Self.screen(state)
        #expect(opened.contains("Extend 8100 (pro.monthly, production)?"), "\(opened)")
        #expect(opened.contains("Days: 30 (1–90) · reason: customer-satisfaction"), "\(opened)")
        #expect(opened.contains("Renewal date 2025-04-01T00:00:00Z → 2025-05-01T00:00:00Z."), "\(opened)")
        #expect(opened.contains("Extensions in the last 365 days: 0 of 2."), "\(opened)")

        drive(.key(KeyEvent(.backspace)), &state, runner)
        drive(.key(KeyEvent(.backspace)), &state, runner)
        Self.type("7r", &state, runner)
        let edited = Self.screen(state)
        #expect(edited.contains("Days: 7 (1–90) · reason: service-issue"), "\(edited)")
        #expect(edited.contains("Renewal date 2025-04-01T00:00:00Z → 2025-04-08T00:00:00Z."), "\(edited)")

        let order = ExtensionOrder(id: "8100", days: 7, reason: "service-issue", operatorName: "alice")
        #expect(update(&state, .key(KeyEvent(.enter))) == [.extendRenewal(order)])
        #expect(state.notice == "extending 8100 by 7 days at Apple…")
        #expect(state.extensionDialog == nil)
        // Input stays live while Apple answers.
        drive(.key(KeyEvent(.char("e"))), &state, runner)
        #expect(state.subscriber.focus == .events)
        #expect(sent.requests.withLock { $0.isEmpty })

        drive(await runner.extend(order), &state, runner)
        #expect(state.notice == "extended 8100 by 7 days: Apple's new renewal date 2025-04-08T00:00:00Z")
        #expect(state.extending == nil)
        let requests = sent.requests.withLock { $0 }
        #expect(requests.count == 1)
        #expect(requests.first?.0 == "8100")
        #expect(requests.first?.1.hasPrefix("{\"days\":7,\"reason\":\"service-issue\",\"requestIdentifier\":\"") == true)

        let log = try runner.analytics.database.auditLog(target: "8100")
        #expect(log.count == 1)
        #expect(log.first?.operatorName == "alice")
        #expect(log.first?.what.contains("extend by 7 days (service-issue)") == true, "\(log)")
        #expect(log.first?.environment == "production")
        #expect(log.first?.answer.contains("success true") == true, "\(log)")
        let asked = try runner.analytics.database.supportActions(target: "8100", kind: .extend)
        #expect(asked.first?.request == requests.first?.1)
        #expect(asked.first?.requestIdentifier.map { requests.first?.1.contains($0) == true } == true)
    }

    @Test func anExpiredSubscriberOrNinetyOneDaysIsRefusedWithTheReasonAndNothingIsSent() throws {
        let sent = Sent()
        let runner = try Self.runner(sent: sent)
        var expired = Self.showing("8200", runner)
        drive(.key(KeyEvent(.char("x"))), &expired, runner)
        let said = Self.screen(expired)
        #expect(said.contains("Not sent: 8200 expired on 2025-02-01T00:00:00Z: Apple"), "\(said)")
        #expect(said.contains("extends only a subscription that is active"))
        #expect(!said.contains("Renewal date"))
        #expect(update(&expired, .key(KeyEvent(.enter))) == [])
        #expect(
            expired.status == "not sent: 8200 expired on 2025-02-01T00:00:00Z: Apple extends only a subscription that is active")

        var active = Self.showing("8100", runner)
        drive(.key(KeyEvent(.char("x"))), &active, runner)
        drive(.key(KeyEvent(.backspace)), &active, runner)
        drive(.key(KeyEvent(.backspace)), &active, runner)
        Self.type("91", &active, runner)
        #expect(Self.screen(active).contains("Not sent: 91 days: Apple extends by 1 to 90 days"))
        #expect(update(&active, .key(KeyEvent(.enter))) == [])
        #expect(active.status == "not sent: 91 days: Apple extends by 1 to 90 days")
        #expect(sent.requests.withLock { $0.isEmpty })
        #expect(try runner.analytics.database.auditLog().isEmpty)
    }

    @Test func anExtensionLeftWithoutAnAnswerIsAuditedAndTheNextIsRefusedUntilTheCLISendsItAgain() async throws {
        struct Timeout: Error, CustomStringConvertible { var description: String { "timed out" } }
        let base = try Self.runner()
        // The same store as `runner()`, with a stand-in for Apple that never answers.
        let runner = EffectRunner(
            analytics: base.analytics, now: { Instant(parsing: "2025-03-10")! },
            extender: RenewalExtender(
                environment: "production", storeEnvironment: .production, bundleId: "com.example.app",
                requestBody: { days, _, id in "{\"days\":\(days),\"requestIdentifier\":\"\(id)\"}" },
                send: { _, _ in throw Timeout() }))
        var state = Self.showing("8100", runner)
        let failed = await runner.extend(ExtensionOrder(id: "8100", days: 5, reason: "other", operatorName: "alice"))
        drive(failed, &state, runner)
        #expect(state.status?.hasPrefix("extend 8100 at Apple: timed out (request identifier ") == true, "\(state.status ?? "")")
        let asked = try runner.analytics.database.supportActions(target: "8100", kind: .extend)
        #expect(asked.count == 1)
        #expect(asked.first?.answers.map(\.outcome) == [.failed])

        drive(.key(KeyEvent(.char("x"))), &state, runner)
        let said = Self.screen(state)
        #expect(said.contains("Not sent: an extension asked by alice at"), "\(said)")
        #expect(update(&state, .key(KeyEvent(.enter))) == [])
        #expect(state.status?.contains("got no answer from Apple; send it again with `subdash extend 8100`") == true)
    }

    @Test func notOfferedReadOnlyOrWithoutCredentials() throws {
        let runner = try Self.runner()
        var readOnly = Self.showing("8100", runner, readOnly: true)
        #expect(update(&readOnly, .key(KeyEvent(.char("x")))) == [])
        #expect(readOnly.extensionDialog == nil)
        #expect(!KeyBindings.barItems(for: .subscriber, readOnly: true).contains { $0.description == "extend" })
        var without = Self.showing("8100", runner, credentials: false)
        #expect(update(&without, .key(KeyEvent(.char("x")))) == [])
        #expect(without.status == "extend: no App Store Server API credentials")
    }
}

/// `:log`: the rows `subdash log` prints, newest first, sanitised; on pane 2 the subscriber's own.
@Suite(.serialized) struct AuditLogScreens {
    @Test func logListsTheSubscribersEntriesNewestFirstAndEveryonesElsewhere() async throws {
        let runner = try RenewalExtensionScreens.runner()
        let database = runner.analytics.database
        _ = await runner.extend(ExtensionOrder(id: "8100", days: 7, reason: "service-issue", operatorName: "alice"))
        _ = try database.setFlags(
            OfferFlagWrite(offer: .retention, ids: ["8100"], operatorName: "bob", note: "call\u{1b}[2J back"),
            at: Instant(parsing: "2025-03-11")!)
        _ = try database.setFlags(
            OfferFlagWrite(offer: .loyalty, ids: ["8200"], operatorName: "carol"), at: Instant(parsing: "2025-03-12")!)

        var state = RenewalExtensionScreens.showing("8100", runner)
        drive(.key(KeyEvent(.char(":"))), &state, runner)
        for c in "log" { drive(.key(KeyEvent(.char(c))), &state, runner) }
        drive(.key(KeyEvent(.enter)), &state, runner)
        let screen = RenewalExtensionScreens.screen(state)
        #expect(screen.contains("Audit log of 8100"), "\(screen)")
        let flag = try #require(screen.range(of: "2025-03-11T00:00:00Z · bob · 8100 · flag retention set:"), "\(screen)")
        let extend = try #require(screen.range(of: "2025-03-10T00:00:00Z · alice · 8100 · extend by 7"), "\(screen)")
        #expect(flag.lowerBound < extend.lowerBound)
        #expect(screen.contains("(service-issue) · production · done: success true"), "\(screen)")
        #expect(screen.contains("call\\x1b[2J back"), "\(screen)")
        #expect(!screen.contains("\u{1b}"))
        #expect(!screen.contains("carol"))

        drive(.key(KeyEvent(.char("j"))), &state, runner)
        #expect(state.overlay == nil)
        drive(.key(KeyEvent(.char("1"))), &state, runner)
        drive(.key(KeyEvent(.char(":"))), &state, runner)
        for c in "log" { drive(.key(KeyEvent(.char(c))), &state, runner) }
        drive(.key(KeyEvent(.enter)), &state, runner)
        let everyone = RenewalExtensionScreens.screen(state)
        #expect(everyone.contains("Audit log ─"), "\(everyone)")
        let carol = try #require(everyone.range(of: "2025-03-12T00:00:00Z · carol · 8200"), "\(everyone)")
        let bob = try #require(everyone.range(of: "2025-03-11T00:00:00Z · bob · 8100"), "\(everyone)")
        #expect(carol.lowerBound < bob.lowerBound)
    }
}
