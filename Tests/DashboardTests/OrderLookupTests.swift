import Dashboard
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI
import Testing

/// Pane 1's `/` with an order ID that matches nobody: the dashboard offers to look it up at Apple,
/// runs the lookup in the background and opens the subscriber it finds.
@Suite(.serialized) struct OrderLookupScreens {
    /// A store holding 7100, with a lookup that "receives" subscription 7500 for order MK4H9N2XQ1
    /// and stores it (what the real one does through the import path).
    static func runner() throws -> EffectRunner {
        let database = try AppDatabase.inMemory()
        @Sendable func document(_ name: String, _ t: TransactionFact) -> IncomingDocument {
            IncomingDocument(
                sha256: String(repeating: "0", count: 64 - name.count) + name, source: name, byteCount: 1, body: nil,
                content: .facts(DocumentFacts(format: .v2Notification, transactions: [t])))
        }
        // Someone else, so the store is not empty.
        try database.apply([
            document(
                "order-7101",
                TransactionFact(
                    transactionId: "7101", originalTransactionId: "7100", productId: "pro.monthly",
                    purchaseDate: Instant(parsing: "2025-03-01")!, expiresDate: Instant(parsing: "2025-04-01")!,
                    environment: .production))
        ])
        return EffectRunner(
            analytics: SubscriberAnalytics(database: database), now: { Instant(parsing: "2025-03-10")! },
            lookUpOrder: { order in
                guard order == "MK4H9N2XQ1" else {
                    throw LookupError(message: "Apple says \(order) is not a valid order ID (status 1)")
                }
                let t = TransactionFact(
                    transactionId: "7501", originalTransactionId: "7500", productId: "pro.monthly",
                    purchaseDate: Instant(parsing: "2025-03-01")!, expiresDate: Instant(parsing: "2025-04-01")!,
                    environment: .production)
                _ = try database.apply([document("order-7501", t)])
                return ["7500"]
            })
    }

    struct LookupError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    static func screen(_ state: AppState) -> [String] {
        let backend = TestBackend(width: 80, height: 24, colorSupport: .none)
        Terminal(backend: backend).draw { buffer in render(state, into: &buffer, palette: .builtinDefault(.none)) }
        return backend.lines
    }

    static func searching(_ text: String, runner: EffectRunner, credentials: Bool = true, readOnly: Bool = false) -> AppState {
        var state = AppState(asOf: Instant(parsing: "2025-03-10")!, readOnly: readOnly, operatorName: "alice")
        if credentials { state.appleFetchUnavailable = nil }
        drive(.start, &state, runner)
        drive(.key(KeyEvent(.char("/"))), &state, runner)
        for c in text { drive(.key(KeyEvent(.char(c))), &state, runner) }
        return state
    }

    /// What the runner sends back for `.lookUpOrder`, awaited here (a blocking wait would hold
    /// one of the few task threads the lookup itself needs).
    static func answer(_ order: String, _ runner: EffectRunner) async -> Action {
        do {
            return .orderLookedUp(order: order, ids: try await runner.lookUpOrder!(order))
        } catch {
            return .orderLookupFailed(order: order, message: "\(error)")
        }
    }

    @Test func anOrderIdNobodyMatchesIsLookedUpInTheBackgroundAndItsSubscriberOpens() async throws {
        let runner = try Self.runner()
        var state = Self.searching("mk4h9n2xq1", runner: runner)
        let offer = Self.screen(state).joined(separator: "\n")
        #expect(offer.contains("Nobody matches \"MK4H9N2XQ1\": look up order MK4H9N2XQ1 at Apple (enter)"), "\(offer)")

        let effects = update(&state, .key(KeyEvent(.enter)))
        #expect(effects == [.lookUpOrder("MK4H9N2XQ1")])
        #expect(state.notice == "looking up order MK4H9N2XQ1 at Apple…")
        // Input stays live while Apple answers: pane 3 opens, and nothing is looked up twice.
        drive(.key(KeyEvent(.char("3"))), &state, runner)
        #expect(state.pane == .cohorts)
        #expect(orderOffered(state) == false)

        drive(await Self.answer("MK4H9N2XQ1", runner), &state, runner)
        #expect(state.pane == .subscriber)
        #expect(state.subscriber.report?.originalTransactionId == "7500")
        #expect(state.notice == "order MK4H9N2XQ1 from Apple: 7500")
        #expect(Self.screen(state).contains { $0.contains("7501") })
    }

    @Test func applesRefusalIsSaidOnTheStatusLine() async throws {
        let runner = try Self.runner()
        var state = Self.searching("ZZ99ZZ99ZZ", runner: runner)
        #expect(update(&state, .key(KeyEvent(.enter))) == [.lookUpOrder("ZZ99ZZ99ZZ")])
        drive(await Self.answer("ZZ99ZZ99ZZ", runner), &state, runner)
        #expect(state.status == "look up order ZZ99ZZ99ZZ at Apple: Apple says ZZ99ZZ99ZZ is not a valid order ID (status 1)")
        let said = "look up order ZZ99ZZ99ZZ at Apple: Apple says ZZ99ZZ99ZZ is not a valid"
        #expect(Self.screen(state).contains { $0.hasPrefix(said) })
    }

    @Test func noOfferWithoutCredentialsReadOnlyOrForWhatIsNotAnOrderId() throws {
        let runner = try Self.runner()
        for state in [
            Self.searching("MK4H9N2XQ1", runner: runner, credentials: false),
            Self.searching("MK4H9N2XQ1", runner: runner, readOnly: true),
            Self.searching("no-such@x", runner: runner),
        ] {
            let text = Self.screen(state).joined(separator: "\n")
            #expect(!text.contains("at Apple (enter)"), "\(text)")
            #expect(text.contains("Nobody matches"))
            var submitted = state
            #expect(
                !update(&submitted, .key(KeyEvent(.enter))).contains(where: { if case .lookUpOrder = $0 { true } else { false } })
            )
        }
    }

    /// Whether the list offers a lookup (the screen says so).
    func orderOffered(_ state: AppState) -> Bool { Self.screen(state).joined().contains("at Apple (enter)") }
}
