import Dashboard
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI
import Testing

/// Apple's renewal details on pane 2 and the Offers pane (docs/metrics.md, "Renewal details from
/// Apple"), through the real update loop and a ``TestBackend``.
///
/// 8100: pro.monthly from 2025-01-05 at 7.99 USD (bought), renewed 02-05 at 7.99 (by Apple) to
/// 03-05; Apple's renewal info of 02-20 says the next renewal charges 9.99 USD; app download 704-1.
/// 8200: pro.yearly from 2025-02-01 (to 2026-02-01), same app download. 8300: one month to
/// 2025-01-01, auto-renew off on 12-20; its renewal info of 01-02 lists win-back offers
/// winback.half, winback.month.
private enum RenewalStore {
    static let asOf = Instant(parsing: "2025-02-20")!

    static func runner() throws -> EffectRunner {
        var documents: [IncomingDocument] = []
        func add(_ facts: DocumentFacts) {
            let name = "renewal-\(documents.count + 1)"
            documents.append(
                IncomingDocument(
                    sha256: String(repeating: "0", count: 64 - name.count) + name, source: name,
                    byteCount: 1, body: nil, content: .facts(facts)))
        }
        func day(_ text: String) -> Instant { Instant(parsing: text)! }
        func period(
            _ original: String, _ id: String, _ product: String, _ start: String, _ end: String, reason: String,
            offerPeriod: String? = nil
        ) {
            var t = TransactionFact(
                transactionId: id, originalTransactionId: original, productId: product,
                purchaseDate: day(start), expiresDate: day(end), environment: .production, price: 7990, currency: "USD")
            t.appTransactionId = original == "8300" ? "704-3" : "704-1"
            t.transactionReason = reason
            t.offerPeriod = offerPeriod
            add(DocumentFacts(format: .v2Notification, transactions: [t]))
        }
        period("8100", "8101", "pro.monthly", "2025-01-05", "2025-02-05", reason: "PURCHASE", offerPeriod: "P1M")
        period("8100", "8102", "pro.monthly", "2025-02-05", "2025-03-05", reason: "RENEWAL")
        period("8200", "8201", "pro.yearly", "2025-02-01", "2026-02-01", reason: "PURCHASE")
        period("8300", "8301", "pro.monthly", "2024-12-01", "2025-01-01", reason: "PURCHASE")
        var renewal = RenewalFact(
            originalTransactionId: "8100", instant: day("2025-02-20"), autoRenewProductId: "pro.monthly", autoRenewStatus: true)
        renewal.renewalPrice = 9990
        renewal.renewalCurrency = "USD"
        renewal.appTransactionId = "704-1"
        var lapsed = RenewalFact(
            originalTransactionId: "8300", instant: day("2025-01-02"), autoRenewProductId: "pro.monthly",
            autoRenewStatus: false, expirationIntent: 1)
        lapsed.eligibleWinBackOfferIds = ["winback.half", "winback.month"]
        add(DocumentFacts(format: .v2Notification, renewals: [renewal, lapsed]))
        let db = try AppDatabase.inMemory()
        try db.apply(documents)
        return EffectRunner(analytics: SubscriberAnalytics(database: db), now: { asOf })
    }
}

private func screen(_ state: AppState, width: Int, height: Int) -> [String] {
    let backend = TestBackend(width: width, height: height, colorSupport: .none)
    Terminal(backend: backend).draw { buffer in render(state, into: &buffer, palette: .builtinDefault(.none)) }
    return backend.lines
}

@Suite struct RenewalDetailsPaneTests {
    @Test func subscriberPaneSaysTheNextChargeAndTheAccount() throws {
        let runner = try RenewalStore.runner()
        var state = AppState(asOf: RenewalStore.asOf, operatorName: "alice")
        drive(.start, &state, runner)
        drive(.key(.char(":")), &state, runner)
        for c in "user 8100" { drive(.key(.char(c)), &state, runner) }
        try keys("enter", state: &state, runner: runner)
        #expect(state.pane == .subscriber && state.subscriber.report?.originalTransactionId == "8100")
        let lines = screen(state, width: 120, height: 40)
        for expected in [
            "│ Renewal      Next charge 9.99 USD on 2025-03-05 (last charge 7.99 USD: price increase)",
            "│ Account      704-1 · 2 subscriptions of this Apple Account: also 8200",
        ] {
            #expect(lines.contains { $0.hasPrefix(expected) }, "no line \(expected)\n\(lines.joined(separator: "\n"))")
        }
        // The period under the cursor (the one as-of lies in, then the one before): who started
        // it, and the offer's length, after the list's position.
        #expect(lines.contains { $0.hasPrefix("│ ▸ Periods 2/2  by Apple ") }, "\(lines.joined(separator: "\n"))")
        try keys("k", state: &state, runner: runner)
        #expect(screen(state, width: 80, height: 24).contains { $0.hasPrefix("│ ▸ Periods 1/2  1 month offer, by customer ") })
    }

    @Test func userCommandFindsTheAccountsSubscriptions() throws {
        let runner = try RenewalStore.runner()
        let analytics = SubscriberAnalytics(database: runner.analytics.database)
        #expect(try analytics.subscriptions(lookingUp: "704-1") == ["8100", "8200"])
        #expect(try analytics.database.subscriptions(searching: "704-1") == ["8100", "8200"])
    }

    @Test func offersPaneShowsApplesWinBackOffers() throws {
        let runner = try RenewalStore.runner()
        var state = AppState(asOf: RenewalStore.asOf, operatorName: "alice")
        drive(.start, &state, runner)
        try keys("5", state: &state, runner: runner)
        let lines = screen(state, width: 160, height: 24)
        #expect(lines[2].contains("Offers · winBack (1 shown)"), "\(lines[2])")
        #expect(
            lines.contains {
                $0.hasPrefix("│ 8300") && $0.contains("ended voluntary 2025-01-01 · Apple offers winback.half, winback.month")
            },
            "\(lines.joined(separator: "\n"))")
        // Flagging it for win-back names the offer Apple will present.
        try keys("f", state: &state, runner: runner)
        let dialog = screen(state, width: 160, height: 24)
        #expect(
            dialog.contains { $0.contains("Apple will present winback.half (then winback.month).") },
            "\(dialog.joined(separator: "\n"))")
    }

    /// The flag dialog names the catalogue's offer for the subscriber's product, through the
    /// lookup the dashboard was given (the lines `subdash flag` prints), and again after `o`.
    @Test func flagDialogNamesTheCatalogueOfferForTheSubscribersProduct() throws {
        let runner = try RenewalStore.runner()
        let database = runner.analytics.database
        var state = AppState(asOf: RenewalStore.asOf, operatorName: "alice")
        // A catalogue with a win-back offer for pro.monthly only.
        state.catalogueOffers = CatalogueOffers(source: "config.toml") { offer, ids in
            var products: [String: Int] = [:]
            for id in ids {
                if let p = try? database.offerSubject(originalTransactionId: id)?.productId { products[p, default: 0] += 1 }
            }
            return products.sorted { $0.key < $1.key }.map { product, n in
                offer == .winBackOffer && product == "pro.monthly"
                    ? "winBack on \(product) means winBack:wb-half (\(n) subscription)"
                    : "\(offer.rawValue) on \(product) means no offer yet: the catalogue has none (\(n) subscription)"
            }
        }
        drive(.start, &state, runner)
        try keys("5", "f", state: &state, runner: runner)
        var dialog = screen(state, width: 160, height: 24)
        #expect(dialog.contains { $0.contains("Flag 1 subscriber for winBack?") }, "\(dialog.joined(separator: "\n"))")
        #expect(
            dialog.contains { $0.contains("winBack on pro.monthly means winBack:wb-half (1") },
            "\(dialog.joined(separator: "\n"))")
        // (The dialog wraps the line at its width.) `o`: another offer, and what that one means.
        try keys("o", state: &state, runner: runner)
        dialog = screen(state, width: 160, height: 24)
        #expect(
            dialog.contains {
                $0.contains("retention on pro.monthly means no offer yet: the")
            },
            "\(dialog.joined(separator: "\n"))")
        #expect(!dialog.contains { $0.contains("wb-half") })
        try keys("esc", state: &state, runner: runner)
        #expect(state.confirmation == nil)

        // Pane 2's subscriber: flagging starts at service.
        try keys(":", state: &state, runner: runner)
        for c in "user 8200" { drive(.key(.char(c)), &state, runner) }
        try keys("enter", "f", state: &state, runner: runner)
        dialog = screen(state, width: 160, height: 24)
        #expect(
            dialog.contains { $0.contains("service on pro.yearly means no offer yet:") },
            "\(dialog.joined(separator: "\n"))")
    }
}
