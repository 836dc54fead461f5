import Dashboard
import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI
import Testing

/// The Offers pane's campaigns list (docs/metrics.md, "Campaigns"), through the real update loop
/// and a ``TestBackend``.
///
/// A, B and C: pro.monthly from 2025-01-01 to 02-01, flagged winBack on 03-01 at 09:00 by ana; the
/// catalogue maps winBack to promotional:come-back-30. A and B were served it on 03-02 at 12:00.
/// A redeemed it on 03-03 (offerType 2, to 04-03) and paid full price from 04-03 to 05-03; A's
/// customer is user-a, a@example.com, appAccountToken 0a0a…. As of 2025-04-10: flagged 3,
/// served 2 (66.7 %), redeemed 1 (33.3 %), converted 1 (100.0 %), lapsed 0, 1 day to redeem
/// (03-01 09:00 to 03-03 00:00 is 1.6 days).
private enum CampaignStore {
    static let asOf = Instant(parsing: "2025-04-10")!
    static let token = "0a0a0a0a-0000-4000-8000-000000000001"

    static func runner() throws -> EffectRunner {
        var documents: [IncomingDocument] = []
        func add(_ facts: DocumentFacts) {
            let name = "campaign-\(documents.count + 1)"
            documents.append(
                IncomingDocument(
                    sha256: String(repeating: "0", count: 64 - name.count) + name, source: name,
                    byteCount: 1, body: nil, content: .facts(facts)))
        }
        func day(_ text: String) -> Instant { Instant(parsing: text)! }
        func period(_ original: String, _ id: String, _ start: String, _ end: String, offer: String? = nil) {
            var t = TransactionFact(
                transactionId: id, originalTransactionId: original, productId: "pro.monthly",
                purchaseDate: day(start), expiresDate: day(end), environment: .production, price: 9990, currency: "USD")
            if let offer {
                t.offerType = 2
                t.offerIdentifier = offer
            }
            if original == "A" { t.appAccountToken = token }
            add(DocumentFacts(format: .v2Notification, transactions: [t]))
        }
        for s in ["A", "B", "C"] { period(s, "\(s)0", "2025-01-01", "2025-02-01") }
        period("A", "A1", "2025-03-03", "2025-04-03", offer: "come-back-30")
        period("A", "A2", "2025-04-03", "2025-05-03")
        add(
            DocumentFacts(
                format: .customersCSV,
                customers: [CustomerFact(userId: "user-a", email: "a@example.com", originalTransactionId: "A")]))
        let db = try AppDatabase.inMemory()
        try db.apply(documents)
        let flagged = day("2025-03-01T09:00:00Z")
        try db.setFlags(.init(offer: .winBackOffer, ids: ["A", "B", "C"], operatorName: "ana"), at: flagged)
        for id in ["A", "B"] {
            try db.recordServed(
                ServedOffer(
                    originalTransactionId: id, flag: .winBackOffer, flagAt: flagged, offerKind: "promotional",
                    offerIdentifier: "come-back-30", productId: "pro.monthly", format: "signature", nonce: "nonce-\(id)",
                    client: "127.0.0.1", at: day("2025-03-02T12:00:00Z")))
        }
        return EffectRunner(analytics: SubscriberAnalytics(database: db), now: { asOf })
    }

    static func state() -> AppState {
        var state = AppState(asOf: asOf, operatorName: "alice")
        state.catalogueOffers = CatalogueOffers(
            source: "config.toml", lines: { _, _ in [] },
            campaignOffer: {
                { flag, product, _ in
                    flag == .winBackOffer && product == "pro.monthly"
                        ? .init(kind: .promotional, identifier: "come-back-30") : nil
                }
            })
        return state
    }
}

private func screen(_ state: AppState) -> [String] {
    let backend = TestBackend(width: 150, height: 24, colorSupport: .none)
    Terminal(backend: backend).draw { buffer in render(state, into: &buffer, palette: .builtinDefault(.none)) }
    return backend.lines
}

/// The cells of the screen line starting (after the border) with `first`, split on runs of spaces.
private func cells(_ lines: [String], startingWith first: String) -> [String]? {
    lines.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "│ ")) }
        .first { $0.hasPrefix(first) }
        .map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
}

@Suite struct OffersCampaignsTests {
    @Test func theFunnelShowsEachStepWithRatesAsReportCampaignsCountsThem() throws {
        let runner = try CampaignStore.runner()
        var state = CampaignStore.state()
        drive(.start, &state, runner)
        try keys("5", state: &state, runner: runner)
        try keys("<", state: &state, runner: runner)
        let lines = screen(state)
        let text = lines.joined(separator: "\n")
        #expect(text.contains("Offers · campaigns (1 shown) · flags set by 2025-04-10"), "\(text)")
        #expect(text.contains(" campaigns 1 "), "\(text)")
        let header = try #require(cells(lines, startingWith: "Flag "), "\(text)")
        #expect(
            header == [
                "Flag", "Offer", "Flagged", "Served", "Redeemed", "Converted", "Lapsed", "Served", "%", "Redeem", "%", "Convert",
                "%", "Days", "P3", "P6",
            ])
        let row = try #require(cells(lines, startingWith: "winBack promotional"), "\(text)")
        #expect(
            Array(row.prefix(11)) == [
                "winBack", "promotional:come-back-30", "3", "2", "1", "1", "0", "66.7%", "33.3%", "100.0%", "1",
            ], "\(text)")

        // The same figures as the analytics function `report campaigns` prints.
        let report = try #require(state.offers.campaigns?.report)
        let reported = try runner.analytics.campaigns(
            from: Instant(milliseconds: 0), to: CampaignStore.asOf.adding(milliseconds: 1), asOf: CampaignStore.asOf
        ) { flag, _, _ in flag == .winBackOffer ? .init(kind: .promotional, identifier: "come-back-30") : nil }
        #expect(report == reported)
    }

    @Test func enterOnAStepListsItsSubscribersAndEscComesBackToTheCell() throws {
        let runner = try CampaignStore.runner()
        var state = CampaignStore.state()
        drive(.start, &state, runner)
        try keys("5", state: &state, runner: runner)
        // `<` to the campaigns list (the last).
        try keys("<", state: &state, runner: runner)
        #expect(state.offers.list == .campaigns)
        // The Served column (the fourth): A and B.
        try keys("l", "l", "l", "enter", state: &state, runner: runner)
        var lines = screen(state)
        var text = lines.joined(separator: "\n")
        #expect(text.contains("Offers · campaigns › served · winBack promotional:come-back-30 (2 shown)"), "\(text)")
        #expect(
            cells(lines, startingWith: "A ")
                == ["A", "a@example.com", "user-a", "winBack", "promotional:come-back-30", "2025-03-01T09:00:00Z"], "\(text)")
        #expect(cells(lines, startingWith: "B ")?.first == "B", "\(text)")
        #expect(cells(lines, startingWith: "C ") == nil, "\(text)")
        // The export names the customer: user id, email and appAccountToken after the columns.
        let effects = update(&state, .offers(.export))
        #expect(
            effects == [
                .exportCSV(
                    stem: "offers-campaigns-2025-04-10-winBack-served",
                    header: ["originalTransactionId", "step", "flag", "offer", "flaggedAt"],
                    rows: [
                        ["A", "served", "winBack", "promotional:come-back-30", "2025-03-01T09:00:00Z"],
                        ["B", "served", "winBack", "promotional:come-back-30", "2025-03-01T09:00:00Z"],
                    ], idColumn: 0)
            ])
        let customer = try runner.analytics.database.customer(of: "A")
        #expect([customer.userId, customer.email, customer.appAccountToken] == ["user-a", "a@example.com", CampaignStore.token])

        // esc: the funnel, the cursor on the Served column it left; then the Converted step: A only.
        try keys("esc", state: &state, runner: runner)
        #expect(state.offers.list == .campaigns)
        #expect(state.offers.column == 3)
        try keys("l", "l", "enter", state: &state, runner: runner)
        lines = screen(state)
        text = lines.joined(separator: "\n")
        #expect(text.contains("Offers · campaigns › converted · winBack promotional:come-back-30 (1 shown)"), "\(text)")
        #expect(cells(lines, startingWith: "A ")?.first == "A", "\(text)")
        #expect(cells(lines, startingWith: "B ") == nil, "\(text)")
    }

    /// Flags set after as-of (today's flags on data that ends earlier) are not counted, and the
    /// list says so rather than "no flag".
    @Test func flagsSetAfterAsOfAreNamedNotCounted() throws {
        let runner = try CampaignStore.runner()
        var state = CampaignStore.state()
        state.asOf = Instant(parsing: "2025-02-15")!
        drive(.start, &state, runner)
        try keys("5", "<", state: &state, runner: runner)
        let text = screen(state).joined(separator: "\n")
        #expect(
            text.contains("Offers · campaigns (0 shown) · flags set by 2025-02-15 00:00 UTC (3 set later not counted)"), "\(text)"
        )
        #expect(text.contains("None by as-of: 3 set later (:asof a later date counts them)."), "\(text)")
    }

    /// A funnel read at an as-of that has moved on since (new data came while it was read) is
    /// not shown: it is asked for again at the new as-of.
    @Test func aFunnelReadAtAnOlderAsOfIsAskedForAgain() throws {
        let runner = try CampaignStore.runner()
        var state = CampaignStore.state()
        drive(.start, &state, runner)
        try keys("5", "<", state: &state, runner: runner)
        let old = try #require(state.offers.campaigns)
        state.asOf = Instant(parsing: "2025-04-20")!
        state.offers.campaignsLoading = true
        let effects = update(&state, .loadedCampaigns(old))
        #expect(effects == [.loadCampaigns(asOf: Instant(parsing: "2025-04-20")!, catalogue: state.catalogueOffers)])
        #expect(state.offers.campaigns?.report.asOf == CampaignStore.asOf)
        for effect in effects { drive(runner.perform(effect), &state, runner) }
        #expect(state.offers.campaigns?.report.asOf == Instant(parsing: "2025-04-20")!)
        #expect(!state.offers.campaignsLoading)
    }
}
