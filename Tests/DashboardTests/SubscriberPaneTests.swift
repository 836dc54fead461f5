import Dashboard
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI
import Testing

/// Pane 2 as a support agent reads it, through the real update loop and a ``TestBackend``.
///
/// 7100: a billing failure on 02-01 recovered on 02-06 (retry would have run to 04-02), a renewal,
/// a period refunded on 04-20; a customer row, a pending price increase, renewing to the yearly plan.
/// 7200: fourteen monthly periods from 2024-01-01, then auto-renew off.
private enum PaneStore {
    static let now = Instant(parsing: "2025-03-10")!

    static func runner() throws -> EffectRunner {
        var documents: [IncomingDocument] = []
        func add(_ facts: DocumentFacts) {
            let name = "pane2-\(documents.count + 1)"
            documents.append(
                IncomingDocument(
                    sha256: String(repeating: "0", count: 64 - name.count) + name, source: name,
                    byteCount: 1, body: nil, content: .facts(facts)))
        }
        func day(_ text: String) -> Instant { Instant(parsing: text)! }
        func period(_ original: String, _ id: String, _ start: String, _ end: String, revoked: String? = nil) {
            var t = TransactionFact(
                transactionId: id, originalTransactionId: original, productId: "pro.monthly",
                purchaseDate: day(start), expiresDate: day(end), environment: .production)
            t.revocationDate = revoked.map(day)
            add(DocumentFacts(format: .v2Notification, transactions: [t]))
        }
        period("7100", "7101", "2025-01-01", "2025-02-01")
        add(
            DocumentFacts(
                format: .v2Notification,
                notifications: [
                    NotificationFact(
                        notificationId: "fail-7101", format: .v2Notification, notificationType: "DID_FAIL_TO_RENEW",
                        instant: day("2025-02-01"), originalTransactionId: "7100", transactionId: "7101")
                ]))
        period("7100", "7102", "2025-02-06", "2025-03-06")
        period("7100", "7103", "2025-03-06", "2025-04-06")
        period("7100", "7104", "2025-04-06", "2025-05-06", revoked: "2025-04-20")
        add(
            DocumentFacts(
                format: .v2Notification,
                renewals: [
                    RenewalFact(
                        originalTransactionId: "7100", instant: day("2025-03-07"), autoRenewProductId: "pro.yearly",
                        autoRenewStatus: true, priceIncreaseStatus: 0)
                ]))
        add(
            DocumentFacts(
                format: .customersCSV,
                customers: [
                    CustomerFact(
                        userId: "u-77", email: "ann@example.com", appAccountToken: "5F2C9A40-1B7E-4C55-9D2A-0C4E8B1F3A77",
                        originalTransactionId: "7100")
                ]))
        var start = day("2024-01-01")
        for n in 1...14 {
            let end = start.adding(days: 30)
            period("7200", "\(7200 + n)", start.isoDate, end.isoDate)
            start = end
        }
        add(
            DocumentFacts(
                format: .v2Notification,
                notifications: [
                    NotificationFact(
                        notificationId: "off-7200", format: .v2Notification, notificationType: "DID_CHANGE_RENEWAL_STATUS",
                        subtype: "AUTO_RENEW_DISABLED", instant: day("2025-01-20"), originalTransactionId: "7200",
                        autoRenewStatus: false)
                ]))
        let db = try AppDatabase.inMemory()
        try db.apply(documents)
        return EffectRunner(analytics: SubscriberAnalytics(database: db), now: { now })
    }

    /// The dashboard at `asOf` with subscriber `id` open on pane 2.
    static func open(_ id: String, asOf: String = "2025-03-10", runner: EffectRunner, readOnly: Bool = false) throws -> AppState {
        var state = AppState(asOf: Instant(parsing: asOf)!, readOnly: readOnly, operatorName: "alice")
        drive(.start, &state, runner)
        drive(.key(.char(":")), &state, runner)
        for c in "user \(id)" { drive(.key(.char(c)), &state, runner) }
        try keys("enter", state: &state, runner: runner)
        #expect(state.pane == .subscriber && state.subscriber.report?.originalTransactionId == id)
        return state
    }
}

private func screen(_ state: AppState, width: Int = 80, height: Int = 24, palette: Palette = .builtinDefault(.none))
    -> TestBackend
{
    let backend = TestBackend(width: width, height: height, colorSupport: palette.support)
    Terminal(backend: backend).draw { buffer in render(state, into: &buffer, palette: palette) }
    return backend
}

/// The row of the periods table showing `transactionId`, if any.
private func row(_ lines: [String], _ text: String) -> Int? { lines.firstIndex { $0.contains(text) } }

@Suite struct SubscriberPaneTests {
    @Test func retryWindowEndsWhereTheNextPeriodStarts() throws {
        let runner = try PaneStore.runner()
        let lines = screen(try PaneStore.open("7100", asOf: "2025-05-01", runner: runner)).lines
        // 54 columns for 120 days: paid to 02-01, retry to 02-06 (not to 04-02), paid to 04-06,
        // refunded to 04-20, then nothing (no access) to as-of.
        let bar = String(repeating: "█", count: 14) + "xx" + String(repeating: "█", count: 27) + "!!!!!!" + "─────"
        #expect(lines.contains("│ 2025-01-01 \(bar) 2025-05-01 │"), "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.hasPrefix("│ ░ trial  █ paid  ┅ grace  x retry  ! refund  ─ gap") })
    }

    @Test func legendInColour() throws {
        let palette = Palette.builtinDefault(.truecolor)
        let runner = try PaneStore.runner()
        let backend = screen(try PaneStore.open("7100", asOf: "2025-05-01", runner: runner), palette: palette)
        let y = try #require(row(backend.lines, "trial  "))
        let line = backend.lines[y]
        for (name, role) in [
            ("trial", ThemeRole.freeTrial), ("paid", .standard), ("grace", .gracePeriod),
            ("retry", .billingRetry), ("refund", .refund), ("gap", .gap),
        ] {
            let label = try #require(line.range(of: " \(name) "), "legend has no \(name)")
            let x = line.distance(from: line.startIndex, to: label.lowerBound) - 1
            #expect(backend.screen[x, y].style == palette[role], "the glyph before \(name) is not in its colour")
            #expect(backend.screen[x, y].symbol == (role == .gap ? "─" : "█"))
        }
    }

    @Test func headerAtEightyColumns() throws {
        let runner = try PaneStore.runner()
        let lines = screen(try PaneStore.open("7100", runner: runner)).lines
        for expected in [
            "│ State        active, paid at full price",
            "│ Subscription 7100                      User id      u-77",
            "│ Email        ann@example.com           Renews on    2025-04-06 (in 27 days)",
            "│ Product      pro.monthly               Auto-renew   on",
            "│ Renews to    pro.yearly                Price rise   pending consent",
            "│ Paid periods 3 · 1 billing failure     Flags        none",
            "│ Token        5F2C9A40-1B7E-4C55-9D2A-0C4E8B1F3A77",
            // the cursor starts on the period as-of lies in; the later one is known, not yet started
            "│ ▸ Periods 3/4",
            "│ Transaction      Start      End        Offer        Class           Status",
            "│ 7102             2025-02-06 2025-03-06 standard     billingRecovery paid",
            "│ 7104             2025-04-06 2025-04-20 standard     renewal         refund",
            "│   Events 4/4",
            "│ At               Event           Reason        Product",
            "│ 2025-03-06 00:00 renewal                       pro.monthly",
        ] {
            #expect(lines.contains { $0.hasPrefix(expected) }, "no line \(expected)\n\(lines.joined(separator: "\n"))")
        }
    }

    @Test func headerAtOneHundredTwentyColumns() throws {
        let runner = try PaneStore.runner()
        var state = try PaneStore.open("7100", asOf: "2025-02-03", runner: runner)
        var lines = screen(state, width: 120, height: 40).lines
        for expected in [
            "│ State        billing failed, in billing retry (no access)",
            "│ Retry since  2025-02-01 (2 days ago), retried until 2025-04-02 at most",
            "│ Token        5F2C9A40-1B7E-4C55-9D2A-0C4E8B1F3A77",
            "│   # Transaction      Start      End        Product",
            "│ 2025-02-01T00:00:00Z billingIssue",
        ] {
            #expect(lines.contains { $0.hasPrefix(expected) }, "no line \(expected)\n\(lines.joined(separator: "\n"))")
        }
        #expect(lines.contains { $0.contains("Offer        Class           Status") })
        #expect(
            lines.contains {
                $0.hasPrefix("│   1 7101             2025-01-01 2025-02-01 pro.monthly") && $0.contains("activation")
            })
        #expect(!lines.contains { $0.contains("Renews on") })

        state = try PaneStore.open("7100", asOf: "2025-05-01", runner: runner)
        lines = screen(state, width: 120, height: 40).lines
        for expected in [
            "│ State        expired (no access)",
            "Expired on   2025-04-20 (11 days ago)",
            "Ended        refunded",
            "│ 2025-04-20T00:00:00Z expiration      refund",
        ] {
            #expect(lines.contains { $0.contains(expected) }, "no line \(expected)\n\(lines.joined(separator: "\n"))")
        }
    }

    @Test func periodsScrollWithoutRunningPastTheirEnd() throws {
        let runner = try PaneStore.runner()
        var state = try PaneStore.open("7200", runner: runner)
        var lines = screen(state).lines
        #expect(lines.contains { $0.hasPrefix("│ ▸ Periods 14/14") })
        try keys("g g", state: &state, runner: runner)
        lines = screen(state).lines
        #expect(lines.contains { $0.hasPrefix("│ ▸ Periods 1/14") })
        #expect(row(lines, "│ 7201 ") != nil)

        try keys("G", state: &state, runner: runner)
        lines = screen(state).lines
        #expect(lines.contains { $0.hasPrefix("│ ▸ Periods 14/14") })
        // The last period is the last row of the list: nothing blank scrolled into view below it.
        let last = try #require(row(lines, "│ 7214 "))
        #expect(lines[last + 1].hasPrefix("│   Events "))
        #expect(row(lines, "│ 7213 ") == last - 1)

        // A taller screen shows every period again, the cursor still on the last.
        lines = screen(state, width: 120, height: 40).lines
        #expect(row(lines, "│   1 7201 ") != nil && row(lines, "│  14 7214 ") != nil)
        #expect(lines.contains { $0.hasPrefix("│ ▸ Periods 14/14") })
    }

    @Test func eventsTakeTheFocusAndReachTheOldest() throws {
        let runner = try PaneStore.runner()
        var state = try PaneStore.open("7200", runner: runner)
        try keys("e", state: &state, runner: runner)
        var lines = screen(state).lines
        // Oldest first, as `report subscriber` lists them; the cursor starts on the newest.
        #expect(lines.contains { $0.hasPrefix("│ ▸ Events 16/16") })
        #expect(lines.contains { $0.hasPrefix("│   Periods 14/14") })
        #expect(lines.contains { $0.hasPrefix("│ 2025-02-24 00:00 expiration      voluntary") })

        try keys("g g", state: &state, runner: runner)
        lines = screen(state).lines
        #expect(lines.contains { $0.hasPrefix("│ ▸ Events 1/16") })
        #expect(lines.contains { $0.hasPrefix("│ 2024-01-01 00:00 activation") })
        try keys("j", "e", "k", state: &state, runner: runner)
        #expect(state.subscriber.eventRow == 1 && state.subscriber.periodRow == 12)
        lines = screen(state).lines
        #expect(lines.contains { $0.hasPrefix("│ ▸ Periods 13/14") } && lines.contains { $0.hasPrefix("│   Events 2/16") })
        #expect(lines[23].hasPrefix("e periods/events  f flag"))
    }

    @Test func flagAndClearFromThePane() throws {
        let runner = try PaneStore.runner()
        var state = try PaneStore.open("7100", runner: runner)
        try keys("f", state: &state, runner: runner)
        #expect(screen(state).lines.contains { $0.contains("Flag 1 subscriber for service?") })
        try keys("enter", state: &state, runner: runner)
        let flags = try runner.analytics.database.flags(originalTransactionId: "7100")
        #expect(flags.map(\.offer) == [.service] && flags.map(\.operatorName) == ["alice"])
        #expect(state.pane == .subscriber)
        var lines = screen(state).lines
        #expect(lines.contains { $0.hasPrefix("│ Flags        service by alice 2025-03-10") })
        #expect(lines.contains { $0.contains("flagged for service: 1 subscription as alice") })

        try keys("F", state: &state, runner: runner)
        #expect(screen(state).lines.contains { $0.contains("Clear the service flag on 1 subscriber?") })
        try keys("enter", state: &state, runner: runner)
        #expect(try runner.analytics.database.flags(originalTransactionId: "7100").isEmpty)
        lines = screen(state).lines
        #expect(lines.contains { $0.contains("Flags        none") })
    }

    @Test func flaggingFromThePaneKeepsAnEarlierFlagUnlessReplaced() throws {
        let runner = try PaneStore.runner()
        try runner.analytics.database.setFlags(
            OfferFlagWrite(offer: .service, ids: ["7100"], operatorName: "bob", note: "called twice"),
            at: Instant(parsing: "2025-03-03T10:00:00Z")!)
        var state = try PaneStore.open("7100", runner: runner)
        try keys("f", state: &state, runner: runner)
        #expect(
            screen(state, width: 120, height: 40).lines.contains {
                $0.contains("Already flagged for service by bob on 2025-03-03")
            })
        try keys("enter", state: &state, runner: runner)
        let flags = try runner.analytics.database.flags(originalTransactionId: "7100")
        #expect(flags.map(\.operatorName) == ["bob"], "the earlier flag is kept")
        #expect(flags.map(\.note) == ["called twice"])
    }

    @Test func flagKeysAreRefusedReadOnly() throws {
        let runner = try PaneStore.runner()
        var state = try PaneStore.open("7100", runner: runner, readOnly: true)
        try keys("f", state: &state, runner: runner)
        #expect(state.confirmation == nil)
        #expect(try runner.analytics.database.flags(originalTransactionId: "7100").isEmpty)
        #expect(!screen(state).lines[23].contains("f flag"))
    }
}

/// `R` on pane 2: the subscriber's history and statuses fetched from Apple in the background.
@Suite struct FetchFromAppleKeyTests {
    /// PaneStore's runner, with a fetch that "receives" the renewal 7105 of 7100 and stores it.
    static func runner() throws -> EffectRunner {
        let base = try PaneStore.runner()
        let database = base.analytics.database
        return EffectRunner(
            analytics: base.analytics, now: base.now,
            fetchFromApple: { id in
                let t = TransactionFact(
                    transactionId: "7105", originalTransactionId: id, productId: "pro.monthly",
                    purchaseDate: Instant(parsing: "2025-05-06")!, expiresDate: Instant(parsing: "2025-06-06")!,
                    environment: .production)
                let name = "fetched-7105"
                let result = try database.apply([
                    IncomingDocument(
                        sha256: String(repeating: "0", count: 64 - name.count) + name, source: name,
                        byteCount: 1, body: nil, content: .facts(DocumentFacts(format: .v2Notification, transactions: [t])))
                ])
                return "1 transaction; \(result.applied) applied"
            })
    }

    @Test func rFetchesInTheBackgroundWhileKeysStillWorkAndThePaneUpdatesInPlace() throws {
        let runner = try Self.runner()
        var state = try PaneStore.open("7100", asOf: "2025-06-01", runner: runner)
        state.appleFetchUnavailable = nil
        #expect(!screen(state).lines.joined().contains("7105"))
        #expect(screen(state).lines[23].hasPrefix("e periods/events  f flag  R fetch  q quit"))

        let effects = update(&state, .key(.char("R")))
        #expect(effects == [.fetchFromApple(id: "7100")])
        #expect(state.notice == "fetching 7100's history and statuses from Apple…")
        #expect(screen(state).lines[2].contains("Subscriber · ⠋ fetching from Apple"))
        // A second R while it runs starts nothing.
        #expect(update(&state, .key(.char("R"))) == [])
        #expect(state.notice == "already fetching 7100 from Apple")
        // Input stays live: the focus moves while the fetch runs, and the spinner turns on each tick.
        drive(.key(.char("e")), &state, runner)
        #expect(state.subscriber.focus == .events)
        _ = update(&state, .tick)
        #expect(screen(state).lines[2].contains("Subscriber · ⠙ fetching from Apple"))

        for effect in effects { drive(runner.perform(effect), &state, runner) }
        #expect(state.notice == "7100 from Apple: 1 transaction; 1 applied")
        let lines = screen(state).lines
        #expect(!lines[2].contains("fetching"))
        #expect(lines.contains { $0.contains("7105") }, "\(lines.joined(separator: "\n"))")
        #expect(state.subscriber.focus == .events, "updated in place")
    }

    @Test func withoutCredentialsTheBarAndTheKeySayWhy() throws {
        let runner = try PaneStore.runner()
        var state = try PaneStore.open("7100", runner: runner)
        #expect(screen(state).lines[23].hasPrefix("e periods/events  f flag  R fetch: no credentials  q quit"))
        #expect(update(&state, .key(.char("R"))) == [])
        #expect(state.notice == "fetch from Apple is unavailable: no App Store Server API credentials")
    }

    @Test func notOfferedReadOnly() throws {
        let runner = try Self.runner()
        var state = try PaneStore.open("7100", runner: runner, readOnly: true)
        state.appleFetchUnavailable = nil
        #expect(!screen(state).lines[23].contains("R fetch"))
        #expect(update(&state, .key(.char("R"))) == [])
        #expect(state.notice?.hasPrefix("read-only: fetch is off") == true)
    }
}

/// Money on pane 2 (docs/metrics.md "Money", "Per subscriber"): 9.99 EUR paid in France and
/// refunded on 02-20, once 10.99 USD had been paid in the US (a late refund: the run goes on);
/// each period's price in its own currency, what was paid per currency, never a sum of the two.
@Suite struct SubscriberPaneMoneyTests {
    static func runner() throws -> EffectRunner {
        func day(_ text: String) -> Instant { Instant(parsing: text)! }
        var documents: [IncomingDocument] = []
        func charge(_ id: String, _ start: String, _ end: String, _ price: Int64, _ currency: String, revoked: String? = nil) {
            var t = TransactionFact(
                transactionId: id, originalTransactionId: "7300", productId: "pro.monthly",
                purchaseDate: day(start), expiresDate: day(end), price: price, currency: currency)
            t.revocationDate = revoked.map(day)
            let name = "money-\(documents.count + 1)"
            documents.append(
                IncomingDocument(
                    sha256: String(repeating: "0", count: 64 - name.count) + name, source: name,
                    byteCount: 1, body: nil,
                    content: .facts(DocumentFacts(format: .v2Notification, transactions: [t]))))
        }
        charge("7301", "2025-01-10", "2025-02-10", 9990, "EUR", revoked: "2025-02-20")
        charge("7302", "2025-02-10", "2025-03-10", 10990, "USD")
        let db = try AppDatabase.inMemory()
        try db.apply(documents)
        let now = day("2025-03-01")
        return EffectRunner(analytics: SubscriberAnalytics(database: db), now: { now })
    }

    @Test func pricesPerPeriodAndPaidPerCurrency() throws {
        let runner = try Self.runner()
        let lines = screen(try PaneStore.open("7300", asOf: "2025-03-01", runner: runner), width: 120, height: 40).lines
        #expect(
            lines.contains { $0.contains("Paid         0.00 EUR · 10.99 USD · 19 d service") },
            "\(lines.joined(separator: "\n"))")
        // 7301 was refunded: its price, then what was returned (report subscriber's "returned").
        #expect(lines.contains { $0.contains("7301") && $0.hasSuffix("9.99 EUR    9.99 EUR │") })
        #expect(lines.contains { $0.contains("7302") && $0.contains(" 10.99 USD") && !$0.contains("−") })
    }

    /// docs/metrics.md "Late refunds": the subscription is active and never expired, so the header
    /// says which period was refunded and when, at 80 columns too; not before the refund's date.
    @Test func aLateRefundIsMarkedWithItsPeriodAndDate() throws {
        let runner = try Self.runner()
        var lines = screen(try PaneStore.open("7300", asOf: "2025-03-01", runner: runner)).lines
        for expected in [
            "│ State        active, paid at full price",
            "│ Refunded     period of 2025-01-10 on 2025-02-20 (late: the next had begun)",
            "│ 7301             2025-01-10 2025-02-10 standard     activation      refund",
            "│ 7302             2025-02-10 2025-03-10 standard     renewal         paid",
        ] {
            #expect(lines.contains { $0.hasPrefix(expected) }, "no line \(expected)\n\(lines.joined(separator: "\n"))")
        }
        #expect(!lines.contains { $0.contains("Expired") })
        lines = screen(try PaneStore.open("7300", asOf: "2025-02-19", runner: runner)).lines
        #expect(!lines.contains { $0.contains("Refunded") }, "\(lines.joined(separator: "\n"))")
    }
}

/// 7300: two paid months in 2024-01 … 03, then, after six months without, one more from 2024-09-01
/// (a second run), a price increase pending since 2024-09-15, expired on 2024-10-01.
@Suite struct SubscriberPaneLabels {
    static func open(asOf: String) throws -> [String] {
        var documents: [IncomingDocument] = []
        func add(_ facts: DocumentFacts) {
            let name = "labels-\(documents.count + 1)"
            documents.append(
                IncomingDocument(
                    sha256: String(repeating: "0", count: 64 - name.count) + name, source: name,
                    byteCount: 1, body: nil, content: .facts(facts)))
        }
        for (id, start, end) in [
            ("7301", "2024-01-01", "2024-02-01"), ("7302", "2024-02-01", "2024-03-01"), ("7303", "2024-09-01", "2024-10-01"),
        ] {
            add(
                DocumentFacts(
                    format: .v2Notification,
                    transactions: [
                        TransactionFact(
                            transactionId: id, originalTransactionId: "7300", productId: "pro.monthly",
                            purchaseDate: Instant(parsing: start)!, expiresDate: Instant(parsing: end)!, environment: .production)
                    ]))
        }
        add(
            DocumentFacts(
                format: .v2Notification,
                renewals: [
                    RenewalFact(
                        originalTransactionId: "7300", instant: Instant(parsing: "2024-09-15")!,
                        autoRenewProductId: "pro.monthly",
                        autoRenewStatus: true, priceIncreaseStatus: 0)
                ]))
        let db = try AppDatabase.inMemory()
        try db.apply(documents)
        let runner = EffectRunner(analytics: SubscriberAnalytics(database: db))
        var state = AppState(asOf: Instant(parsing: asOf)!)
        drive(.start, &state, runner)
        try keys(":", state: &state, runner: runner)
        for c in "user 7300" { drive(.key(.char(c)), &state, runner) }
        try keys("enter", state: &state, runner: runner)
        let backend = TestBackend(width: 120, height: 40, colorSupport: .none)
        Terminal(backend: backend).draw { buffer in render(state, into: &buffer, palette: .builtinDefault(.none)) }
        return backend.lines
    }

    /// The latest run's paid periods say so beside every run's; a price rise concerns nobody once
    /// no renewal is ahead.
    @Test func paidPeriodsOfThisRunAndEveryRunAndNoStalePriceRise() throws {
        var lines = try Self.open(asOf: "2024-09-20")
        #expect(lines.contains { $0.contains("Paid periods 1 this run, 3 in 2 runs · 0 billing failures") })
        #expect(lines.contains { $0.contains("Price rise   pending consent") })
        lines = try Self.open(asOf: "2025-09-20")
        #expect(lines.contains { $0.contains("Paid periods 1 this run, 3 in 2 runs") })
        #expect(!lines.contains { $0.contains("Price rise") })
    }

    /// Pane 2 says what `report subscriber` says about unsigned documents set aside (issue 30
    /// §2.1): the periods shown may be missing facts.
    @Test func unverifiedDocumentsAreSaid() throws {
        let runner = try SampleStore.runner()
        var state = AppState(asOf: SampleStore.asOf)
        drive(.start, &state, runner)
        try keys("enter", state: &state, runner: runner)
        var report = try #require(state.subscriber.report)
        report.unverifiedDocuments = 3
        state.subscriber.report = report
        let backend = TestBackend(width: 120, height: 40, colorSupport: .none)
        Terminal(backend: backend).draw { buffer in render(state, into: &buffer, palette: .builtinDefault(.none)) }
        #expect(
            backend.lines.contains {
                $0.contains("Unverified   3 unsigned documents, not applied to a signed subscription")
            })
    }
}

/// docs/metrics.md "Billing plans and commitments": 8100 pays 10.99 EUR a month of a 12-month
/// commitment to `pro.annual` from 2026-03-02 and turns its renewal off on 2026-06-15, during
/// payment 4; 8200 fails to pay its sixth payment on 2026-09-02; 8300 pays for `pro.annual` upfront
/// (99.99 EUR from 2026-01-10).
@Suite struct SubscriberPaneCommitmentTests {
    static func runner() throws -> EffectRunner {
        func day(_ text: String) -> Instant { Instant(parsing: text)! }
        var documents: [IncomingDocument] = []
        func add(_ facts: DocumentFacts) {
            let name = "commitment-\(documents.count + 1)"
            documents.append(
                IncomingDocument(
                    sha256: String(repeating: "0", count: 64 - name.count) + name, source: name,
                    byteCount: 1, body: nil, content: .facts(facts)))
        }
        let starts = ["2026-03-02", "2026-04-02", "2026-05-02", "2026-06-02", "2026-07-02", "2026-08-02", "2026-09-02"]
        for original in ["8100", "8200"] {
            for k in 1...(original == "8100" ? 4 : 6) {
                var t = TransactionFact(
                    transactionId: "\(original)-\(k)", originalTransactionId: original, productId: "pro.annual",
                    purchaseDate: day(starts[k - 1]), expiresDate: day(starts[k]), price: 10_990, currency: "EUR")
                t.billingPlanType = "MONTHLY"
                t.commitment = TransactionCommitment(
                    billingPeriodNumber: k, totalBillingPeriods: 12, commitmentExpiresDate: day("2027-03-02"),
                    commitmentPrice: 131_880)
                add(DocumentFacts(format: .v2Notification, transactions: [t]))
            }
        }
        add(
            DocumentFacts(
                format: .v2Notification,
                transactions: [
                    TransactionFact(
                        transactionId: "8300-1", originalTransactionId: "8300", productId: "pro.annual",
                        purchaseDate: day("2026-01-10"), expiresDate: day("2027-01-10"), price: 99_990, currency: "EUR")
                ]))
        add(
            DocumentFacts(
                format: .v2Notification,
                notifications: [
                    NotificationFact(
                        notificationId: "off", format: .v2Notification, notificationType: "DID_CHANGE_RENEWAL_STATUS",
                        subtype: "AUTO_RENEW_DISABLED", instant: day("2026-06-15"), originalTransactionId: "8100",
                        autoRenewStatus: false),
                    NotificationFact(
                        notificationId: "fail", format: .v2Notification, notificationType: "DID_FAIL_TO_RENEW",
                        instant: day("2026-09-02"), originalTransactionId: "8200", transactionId: "8200-6"),
                ]))
        let db = try AppDatabase.inMemory()
        try db.apply(documents)
        let now = day("2026-09-10")
        return EffectRunner(analytics: SubscriberAnalytics(database: db), now: { now })
    }

    @Test func theCommitmentAtAGlance() throws {
        let runner = try Self.runner()
        let lines = screen(try PaneStore.open("8100", asOf: "2026-06-20", runner: runner), width: 200, height: 40).lines
        let expected =
            "│ Commitment   monthly payments, 12-month commitment — payment 4 of 12, commitment ends 2027-03-02; "
            + "renews: no (turned off 2026-06-15); 8 payments of 10.99 EUR remain (87.92)"
        #expect(lines.contains { $0.hasPrefix(expected) }, "\(lines.joined(separator: "\n"))")
    }

    /// Pane 1's Plan column: `12×` for the commitments' monthly payments, blank for 8300 (upfront);
    /// it brings the (blank) Env column with it.
    @Test func paneOneShowsEachSubscriptionsPlan() throws {
        let runner = try Self.runner()
        var state = AppState(asOf: Instant(parsing: "2026-06-20")!, operatorName: "alice")
        drive(.start, &state, runner)
        let lines = screen(state, width: 100, height: 24).lines
        let text = lines.joined(separator: "\n")
        #expect(
            Array(lines[3...6]) == [
                "│ Subscription     User       Email                State    Product      Paid Auto Flg Fam Env Plan│",
                "│ 8100                                             standard pro.annual      4 off              12× │",
                "│ 8200                                             standard pro.annual      4 on               12× │",
                "│ 8300                                             standard pro.annual      1 on                   │",
            ], "\(text)")
        // The Plan column sorts: upfront before monthly payments ascending, after them descending.
        for _ in 0..<10 { try keys("l", state: &state, runner: runner) }
        try keys("[", state: &state, runner: runner)
        #expect(state.subscribers.rows.map(\.id) == ["8300", "8100", "8200"])
        try keys("]", state: &state, runner: runner)
        #expect(state.subscribers.rows.map(\.id) == ["8100", "8200", "8300"])
    }

    @Test func aFailedPaymentHasNoGracePeriod() throws {
        let runner = try Self.runner()
        let lines = screen(try PaneStore.open("8200", asOf: "2026-09-10", runner: runner), width: 160, height: 40).lines
        #expect(
            lines.contains { $0.hasPrefix("│ Access       no access until paid (no grace period for commitments)") },
            "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.hasPrefix("│ State        billing failed, in billing retry (no access)") })
    }
}
