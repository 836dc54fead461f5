import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI
import TestSupport
import Testing

@testable import AppStoreFake
@testable import Dashboard
@testable import subdash

/// The dashboard's support actions as an agent uses them, against the fake App Store over
/// loopback: the dashboard's session on a TestBackend, with the App Store Server API client,
/// answerer and poller `subdash dashboard` builds (DashboardFetcher.make) from the same
/// credentials `subdash fetch` reads. Each test asserts what the fake received (and that its
/// token check passed), what the screen said, and what the store and the audit log show after.
@Suite(.serialized) struct DashboardSupportTests {
    /// A dashboard held across steps; each step runs on a thread of its own, one after the other
    /// (the session blocks while it waits for its effects, which must not hold a task thread).
    final class Box: @unchecked Sendable {
        let session: DashboardSession<TestBackend>
        let backend: TestBackend
        let runner: EffectRunner
        let fetcher: DashboardFetcher

        init(paths: (key: String, root: String, store: String), env: [String: String], base: String, firstWait: Int) throws {
            let database = try AppDatabase.open(path: paths.store)
            let (fetcher, unavailable) = DashboardFetcher.make(
                database: database, operatorName: "agent-ann", trustRoots: [paths.root],
                environment: env.merging(["SUBDASH_API_BASE": base, "XDG_CONFIG_HOME": "/nonexistent"]) { $1 })
            guard let fetcher else { throw TestSupportError("no fetcher: \(unavailable ?? "?")") }
            self.fetcher = fetcher
            runner = EffectRunner(
                analytics: SubscriberAnalytics(database: database), fetchFromApple: fetcher.fetch,
                lookUpOrder: fetcher.lookUpOrder, extender: fetcher.extender,
                consumptionAnswerer: fetcher.consumptionAnswerer, massExtensionPoller: fetcher.massExtensionPoller)
            var state = AppState(operatorName: "agent-ann")
            state.appleFetchUnavailable = nil
            state.massExtensions.firstWait = firstWait
            backend = TestBackend(width: 240, height: 40, colorSupport: .none)
            session = DashboardSession(backend: backend, runner: runner, palette: .builtinDefault(.none), state: state)
        }

        static func open(
            paths: (key: String, root: String, store: String), env: [String: String], base: String, firstWait: Int = 60
        ) async throws -> Box {
            try await offThread {
                let box = try Box(paths: paths, env: env, base: base, firstWait: firstWait)
                box.session.apply(.start)
                box.session.settle()
                return box
            }
        }

        /// Runs `body` on a thread of its own.
        func step<T: Sendable>(_ body: @escaping @Sendable (Box) throws -> T) async throws -> T {
            try await Self.offThread { try body(self) }
        }

        static func offThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                Thread { continuation.resume(with: Result { try body() }) }.start()
            }
        }

        /// Types `text` (`\n` is enter) and waits for what it asked for.
        func type(_ text: String) {
            for c in text { session.press(KeyEvent(c == "\n" ? .enter : c == "\u{1b}" ? .esc : .char(c))) }
            session.settle()
        }

        func ticks(_ count: Int) {
            for _ in 0..<count {
                session.apply(.tick)
                session.settle()
            }
        }

        var screen: String {
            session.draw()
            return backend.lines.joined(separator: "\n")
        }

        /// The line under the panes: the status or the notice.
        var statusLine: String {
            session.draw()
            return backend.lines[backend.lines.count - 2].trimmingCharacters(in: .whitespaces)
        }

        func close() async throws { try await step { $0.fetcher.shutdown() } }
    }

    static let requestReason = #","consumptionRequestReason":"UNINTENDED_PURCHASE""#

    /// Subscription 1000 with a CONSUMPTION_REQUEST about its renewal 1001, fetched into the store
    /// by the CLI as an agent would.
    static func storeWithARequest(
        _ fake: FakeAppStore, _ customer: SupportCommandTests.Customer, paths: (key: String, root: String, store: String),
        env: [String: String], base: String
    ) async throws {
        fake.notifications = [
            SupportCommandTests.notification(
                "CONSUMPTION_REQUEST", uuid: "uuid-cr", fake: fake, customer: customer, extra: Self.requestReason)
        ]
        let since = SupportCommandTests.iso(Int64(Date().timeIntervalSince1970 * 1000) - 60_000)
        let history = try await SupportCommandTests.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
        let notifications = try await SupportCommandTests.subdash(
            ["fetch", "notifications", "--since", since], base: base, paths: paths, env: env)
        #expect(history.status == 0 && notifications.status == 0, "\(history.stderr) \(notifications.stderr)")
    }

    // MARK: :answer

    @Test func theAnswerFormRefusesBeforeSendingSaysApplesErrorAndSendsWhatAppleTakesOnce() async throws {
        let customer = SupportCommandTests.Customer()
        let (fake, paths, env) = try SupportCommandTests.setUp(customer)
        defer { SupportCommandTests.cleanUp(paths) }
        try await fake.serve { base in
            try await Self.storeWithARequest(fake, customer, paths: paths, env: env, base: base)
            let before = fake.requests.count
            let box = try await Box.open(paths: paths, env: env, base: base)

            // The form, as the store knows the request.
            let opened = try await box.step { box in
                box.type(":answer 1001\n")
                return box.screen
            }
            #expect(opened.contains("Answer Apple's consumption request"), "\(opened)")
            #expect(opened.contains("About 1001 (pro.monthly, production); Apple's reason:"), "\(opened)")
            #expect(opened.contains("UNINTENDED_PURCHASE"))

            // Apple's rules, checked before anything is sent: no consent; a percentage with an
            // undelivered status; a percentage with grant-prorated.
            let refusals = try await box.step { box in
                box.type("\n")
                let noConsent = box.screen
                box.type("30dc\n")
                let undelivered = box.screen
                box.type("Drr\n")
                return (noConsent, undelivered, box.screen)
            }
            #expect(refusals.0.contains("Not sent: Apple takes consumption information only with the"), "\(refusals.0)")
            #expect(refusals.1.contains("Not sent: a consumed percentage goes only with delivery"), "\(refusals.1)")
            #expect(refusals.2.contains("Not sent: no consumed percentage with refund grant-prorated"), "\(refusals.2)")
            #expect(fake.requests.count == before)

            // The effect itself refuses what Apple would (the form never sends it).
            let order = ConsumptionOrder(
                transactionId: "1001", delivery: "undelivered-outage", consumed: 30, refund: "grant-full", sampleContent: false,
                operatorName: "agent-ann")
            let refused = try await box.step { box in
                box.runner.perform(.answerConsumption(order))
            }
            #expect(refused == .consumptionAnswered(message: "not sent: Apple would refuse this answer", success: false))
            #expect(fake.requests.count == before)

            // decline: the confirmation names the environment; Apple (the fake) refuses with a code.
            fake.script(.status(404, body: #"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#))
            let (confirming, appleRefused) = try await box.step { box in
                box.type("r\n")
                let confirming = box.screen
                box.type("\n")
                return (confirming, box.statusLine)
            }
            #expect(confirming.contains("Send this to Apple (production)?"), "\(confirming)")
            #expect(
                appleRefused.hasPrefix(
                    "Apple did not take the answer about 1001: PUT /inApps/v2/transactions/consumption/1001: 404 Not Found: "
                        + "Apple found no transaction with this id (errorCode 4040010)"), "\(appleRefused)")

            // Answered again, with sample content: accepted.
            let accepted = try await box.step { box in
                // The form opens once the store is read: the keys after it wait for it.
                box.type(":answer 1001\n")
                box.type("30cs\n\n")
                return box.statusLine
            }
            #expect(accepted.hasPrefix("answered Apple's consumption request about 1001: accepted"), "\(accepted)")

            // Answered: the form says so and sends nothing more.
            let again = try await box.step { box in
                box.type(":answer 1001\n")
                let screen = box.screen
                box.type("\u{1b}")
                box.type(":support\n")
                return (screen, box.session.state.overlay)
            }
            #expect(again.0.contains("Not sent: 1001 was answered by agent-ann at"), "\(again.0)")
            guard case .message(_, let support)? = again.1 else {
                Issue.record("no :support overlay")
                return
            }
            #expect(support.contains("Consumption requests: 0 waiting, 1 answered"), "\(support)")
            #expect(support.contains("answered by agent-ann at"))
            try await box.close()
        }

        // What the fake received: two PUTs, every token good; the second body as Apple reads it.
        let puts = fake.requests.filter { $0.method == "PUT" }
        #expect(puts.map(\.path) == Array(repeating: "/inApps/v2/transactions/consumption/1001", count: 2))
        #expect(fake.requests.allSatisfy { $0.tokenProblem == nil })
        let body = try #require(try JSONSerialization.jsonObject(with: Data(puts[1].body.utf8)) as? [String: Any])
        #expect(body["customerConsented"] as? Bool == true)
        #expect(body["deliveryStatus"] as? String == "DELIVERED")
        #expect(body["consumptionPercentage"] as? Int == 30_000)
        #expect(body["refundPreference"] as? String == "DECLINE")
        #expect(body["sampleContentProvided"] as? Bool == true)
        #expect(
            puts[0].body
                == puts[1].body.replacingOccurrences(
                    of: "\"sampleContentProvided\":true", with: "\"sampleContentProvided\":false"))
        #expect(fake.support.withLock { $0.consumptionAnswers["1001"] } == 1)

        // The audit log: Apple's refusal with its code, then the accepted answer, both agent-ann's.
        let log = try SupportCommandTests.log(paths).filter { $0["kind"] as? String == "consumption" }
        #expect(log.count == 2)
        #expect(log.allSatisfy { $0["operator"] as? String == "agent-ann" && $0["environment"] as? String == "production" })
        #expect(log.first?["what"] as? String == "consumption: delivered, 30 % consumed, refund decline")
        #expect(
            (log.first?["answer"] as? String)?.hasPrefix("refused: PUT /inApps/v2/transactions/consumption/1001: 404") == true)
        #expect((log.first?["answer"] as? String)?.contains("(errorCode 4040010)") == true)
        #expect(log.last?["what"] as? String == "consumption: delivered, 30 % consumed, refund decline, sample content")
        #expect(log.last?["answer"] as? String == "done: accepted")
        let pending = try FetchCommandTests.subdash(["consumption", "--pending", "--db", paths.store])
        #expect(pending.stdout.contains("no consumption request waits for an answer"), "\(pending.stdout)")
    }

    // MARK: Mass extensions

    @Test func theDashboardPollsARunningMassExtensionHonoursRetryAfterAndStopsWhenComplete() async throws {
        let (fake, paths, env) = try SupportCommandTests.setUp()
        defer { SupportCommandTests.cleanUp(paths) }
        fake.support.withLock { $0.massIncompletePolls = 1 }
        try await fake.serve { base in
            let asked = try await SupportCommandTests.subdash(
                ["extend", "--all", "--product", "pro.monthly", "--days", "3", "--reason", "service-issue", "--yes"], base: base,
                paths: paths, env: env)
            #expect(asked.status == 0, "\(asked.stderr)")
            let id = try #require(
                asked.stdout.split(separator: "\n").first { $0.hasPrefix("mass extension requested: ") }?
                    .dropFirst("mass extension requested: ".count))
            let statusPath = "/inApps/v1/subscriptions/extend/mass/pro.monthly/\(id)"
            let gets: @Sendable () -> [String] = { fake.requests.filter { $0.method == "GET" }.map(\.path) }

            // Polled at once when the dashboard opens: Apple says it runs.
            let box = try await Box.open(paths: paths, env: env, base: base, firstWait: 2)
            let first = try await box.step { $0.statusLine }
            #expect(gets() == [statusPath])
            #expect(first.hasPrefix("mass extension \(id) (pro.monthly): running: 5 succeeded, 0 failed so far"), "\(first)")

            // Two ticks later, a 429 whose Retry-After (400 s) is longer than the client waits:
            // the next poll waits for it.
            fake.script(.status(429, retryAfter: "400"))
            let limited = try await box.step { box in
                box.ticks(1)
                let early = gets().count
                box.ticks(1)
                return (early, box.session.state.status ?? "", box.session.state.massExtensions.wait["pro.monthly/\(id)"])
            }
            #expect(limited.0 == 1)
            #expect(gets().count == 2)
            #expect(
                limited.1.hasPrefix(
                    "mass extension \(id) (pro.monthly): no status from Apple (GET \(statusPath): 429 Too Many Requests"),
                "\(limited.1)")
            #expect(limited.1.hasSuffix("asking again in 400 s"), "\(limited.1)")
            #expect(limited.2 == 400)
            let waited = try await box.step { box in
                box.ticks(399)
                let before = gets().count
                box.ticks(1)
                return (before, box.statusLine)
            }
            #expect(waited.0 == 2)
            #expect(gets().count == 3)
            #expect(waited.1.hasPrefix("mass extension \(id) (pro.monthly): complete: 30 succeeded, 2 failed"), "\(waited.1)")

            // Complete: no more polls; :support shows Apple's last status.
            let support = try await box.step { box in
                box.ticks(10)
                box.type(":support\n")
                return box.session.state.overlay
            }
            #expect(gets().count == 3)
            guard case .message(_, let text)? = support else {
                Issue.record("no :support overlay")
                return
            }
            #expect(text.contains("request \(id)"), "\(text)")
            #expect(text.contains("  complete: 30 succeeded, 2 failed"), "\(text)")
            try await box.close()
        }
        #expect(fake.requests.allSatisfy { $0.tokenProblem == nil })
        // Each poll in the audit log, agent-ann's, with Apple's answer or the rate limit.
        let polls = try SupportCommandTests.log(paths).filter { $0["kind"] as? String == "massExtendStatus" }
        #expect(polls.count == 3, "\(polls)")
        #expect(polls.allSatisfy { $0["operator"] as? String == "agent-ann" })
        #expect((polls[0]["answer"] as? String)?.hasPrefix(#"done: {"requestIdentifier":"#) == true)
        #expect(
            (polls[1]["answer"] as? String)?.hasPrefix("failed: GET /inApps/v1/subscriptions/extend/mass/pro.monthly/") == true)
        #expect((polls[1]["answer"] as? String)?.contains(": 429 Too Many Requests") == true)
        #expect((polls[2]["answer"] as? String)?.contains(#""complete":true"#) == true)
    }
}
