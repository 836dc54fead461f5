import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import Synchronization
import TerminalUI
import Testing

@testable import Dashboard

/// The dashboard polls a running mass extension itself (MassExtensionWatch.swift): at once, then
/// after a doubling wait never shorter than Retry-After, each answer stored and shown, until
/// complete or Apple's SUMMARY; never read-only or without credentials. Apple is a stub here;
/// AppStoreServerAPITests/DashboardSupportTests.swift polls the fake App Store over loopback.
@Suite(.serialized) struct MassExtensionWatchScreens {
    /// Answers in turn, then "complete"; counts the polls.
    final class Apple: Sendable {
        let answers: Mutex<[MassExtensionPoll]>
        let asked = Mutex<[String]>([])
        init(_ answers: [MassExtensionPoll]) { self.answers = Mutex(answers) }

        var poller: MassExtensionPoller {
            MassExtensionPoller(environment: "production") { product, request in
                self.asked.withLock { $0.append(product + "/" + request) }
                return self.answers.withLock { $0.isEmpty ? Self.complete : $0.removeFirst() }
            }
        }

        static let at = Instant(parsing: "2025-03-10")!
        static let complete = MassExtensionPoll(
            answer: SupportAnswer(
                outcome: .done,
                answer:
                    #"{"requestIdentifier":"req-2","complete":true,"completeDate":1741564800000,"succeededCount":30,"failedCount":2}"#,
                at: at), complete: true, succeeded: 30, failed: 2)
        static func running(_ succeeded: Int64) -> MassExtensionPoll {
            MassExtensionPoll(
                answer: SupportAnswer(
                    outcome: .done,
                    answer: #"{"requestIdentifier":"req-2","complete":false,"succeededCount":\#(succeeded),"failedCount":0}"#,
                    at: at), complete: false, succeeded: succeeded, failed: 0)
        }
        static let limited = MassExtensionPoll(
            answer: SupportAnswer(
                outcome: .failed, answer: "429 Too Many Requests: the App Store Server API's rate limit; try again in 10 min",
                at: at), retryAfter: 600)
    }

    /// SupportViewScreens' store (req-1 summarised, req-2 running) with `apple` as the poller.
    static func runner(_ apple: Apple) throws -> EffectRunner {
        let store = try SupportViewScreens.runner()
        return EffectRunner(
            analytics: store.analytics, now: { Apple.at }, massExtensionPoller: apple.poller)
    }

    static func session(_ runner: EffectRunner, readOnly: Bool = false, credentials: Bool = true)
        -> (DashboardSession<TestBackend>, TestBackend)
    {
        let backend = TestBackend(width: 120, height: 30, colorSupport: .none)
        var state = AppState(asOf: SupportViewScreens.day("2025-03-10"), readOnly: readOnly, operatorName: "alice")
        if credentials { state.appleFetchUnavailable = nil }
        state.massExtensions.firstWait = 3
        let session = DashboardSession(backend: backend, runner: runner, palette: .builtinDefault(.none), state: state)
        session.apply(.start)
        session.settle()
        return (session, backend)
    }

    /// What a test checked, gathered on the thread the session runs on (it blocks while its
    /// background polls run on the task threads, so it must not hold one of them).
    struct Checks {
        var failures: [String] = []
        mutating func expect(_ ok: Bool, _ message: @autoclosure () -> String = "", line: Int = #line) {
            if !ok { failures.append("line \(line): \(message())") }
        }
    }

    /// Runs `body` on a thread of its own and gives its failures.
    static func offThread(_ body: @escaping @Sendable () throws -> [String]) async throws -> [String] {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    static func statusLine(_ session: DashboardSession<TestBackend>, _ backend: TestBackend) -> String {
        session.draw()
        return backend.lines[backend.lines.count - 2]
    }

    static func ticks(_ count: Int, _ session: DashboardSession<TestBackend>) {
        for _ in 0..<count {
            session.apply(.tick)
            session.settle()
        }
    }

    @Test func aRunningMassExtensionIsPolledAtOnceThenAfterADoublingWaitUntilComplete() async throws {
        let failures = try await Self.offThread {
            var c = Checks()
            let apple = Apple([Apple.running(5), Apple.running(12)])
            let runner = try Self.runner(apple)
            let (session, backend) = Self.session(runner)
            // Only req-2 runs: req-1 has Apple's SUMMARY.
            c.expect(apple.asked.withLock { $0 } == ["pro.monthly/req-2"])
            c.expect(
                Self.statusLine(session, backend).hasPrefix(
                    "mass extension req-2 (pro.monthly): running: 5 succeeded, 0 failed so far"))
            // The wait: 3 ticks, then 6.
            Self.ticks(2, session)
            c.expect(apple.asked.withLock { $0.count } == 1)
            Self.ticks(1, session)
            c.expect(apple.asked.withLock { $0.count } == 2)
            c.expect(session.state.massExtensions.wait["pro.monthly/req-2"] == 6)
            // With the notice gone, the line under the panes keeps saying it runs.
            session.apply(.key(KeyEvent(.char("j"))))
            session.settle()
            c.expect(
                Self.statusLine(session, backend).hasPrefix("mass extension req-2 running: 12 succeeded, 0 failed"),
                "\(Self.statusLine(session, backend))")
            Self.ticks(5, session)
            c.expect(apple.asked.withLock { $0.count } == 2)
            Self.ticks(1, session)
            c.expect(apple.asked.withLock { $0.count } == 3)
            c.expect(
                Self.statusLine(session, backend).hasPrefix(
                    "mass extension req-2 (pro.monthly): complete: 30 succeeded, 2 failed"))
            c.expect(session.state.massExtensions.running.isEmpty)
            // Complete: no more polls.
            Self.ticks(20, session)
            c.expect(apple.asked.withLock { $0.count } == 3)
            // Each answer is in the audit log as alice's, and :support shows the last one.
            let polls = try runner.analytics.database.supportActions(kind: .massExtendStatus).filter {
                $0.summary == "status of mass extension req-2 (dashboard poll)"
            }
            c.expect(polls.map(\.operatorName) == ["alice", "alice", "alice"])
            c.expect(polls.map { $0.settled?.outcome } == [.done, .done, .done])
            let queue = try runner.supportQueue(now: Apple.at)
            guard let row = queue.massExtensions.first(where: { $0.requestIdentifier == "req-2" }) else {
                return c.failures + ["no req-2 row"]
            }
            c.expect(row.polled?.complete == true)
            c.expect(row.polled?.succeeded == 30)
            guard case .message(_, let text) = supportOverlay(queue) else { return c.failures + ["no overlay"] }
            c.expect(text.contains("  complete: 30 succeeded, 2 failed"), "\(text)")
            return c.failures
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func aRateLimitWaitsApplesRetryAfterWhenItIsLongerThanTheWait() async throws {
        let failures = try await Self.offThread {
            var c = Checks()
            let apple = Apple([Apple.limited, Apple.running(5)])
            let (session, backend) = Self.session(try Self.runner(apple))
            c.expect(session.state.massExtensions.wait["pro.monthly/req-2"] == 600)
            c.expect(
                Self.statusLine(session, backend).contains("no status from Apple (429 Too Many Requests"),
                "\(Self.statusLine(session, backend))")
            // The line is cut at the screen's width; the whole sentence:
            c.expect(session.state.status?.hasSuffix("; asking again in 600 s") == true, "\(session.state.status ?? "")")
            Self.ticks(599, session)
            c.expect(apple.asked.withLock { $0.count } == 1)
            Self.ticks(1, session)
            c.expect(apple.asked.withLock { $0.count } == 2)
            // The next wait doubles from there.
            c.expect(session.state.massExtensions.wait["pro.monthly/req-2"] == 1200)
            return c.failures
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func applesSummaryArrivingStopsThePollsAndIsSaid() async throws {
        let failures = try await Self.offThread {
            var c = Checks()
            let apple = Apple([Apple.running(5)])
            let runner = try Self.runner(apple)
            let (session, backend) = Self.session(runner)
            c.expect(apple.asked.withLock { $0.count } == 1)
            try runner.analytics.database.apply([
                SupportViewScreens.document(
                    "sv-summary-2",
                    body: SupportViewScreens.signed(
                        #"{"notificationType":"RENEWAL_EXTENSION","subtype":"SUMMARY","notificationUUID":"sum-2","summary":{"requestIdentifier":"req-2","productId":"pro.monthly","succeededCount":31,"failedCount":1}}"#
                    ),
                    DocumentFacts(
                        format: .v2Notification,
                        notifications: [
                            NotificationFact(
                                notificationId: "sum-2", format: .v2Notification, notificationType: "RENEWAL_EXTENSION",
                                subtype: "SUMMARY", instant: Apple.at)
                        ]))
            ])
            // What a store change makes the dashboard read again.
            session.apply(.loadedMassExtensions(try runner.massExtensionRows()))
            session.settle()
            c.expect(
                Self.statusLine(session, backend).hasPrefix(
                    "Apple's RENEWAL_EXTENSION/SUMMARY of mass extension req-2: 31 succeeded, 1 failed"),
                "\(Self.statusLine(session, backend))")
            c.expect(session.state.massExtensions.running.isEmpty)
            Self.ticks(10, session)
            c.expect(apple.asked.withLock { $0.count } == 1)
            return c.failures
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func readOnlyOrWithoutCredentialsNothingIsPolled() async throws {
        let failures = try await Self.offThread {
            var c = Checks()
            for (readOnly, credentials) in [(true, true), (false, false)] {
                let apple = Apple([])
                let (session, backend) = Self.session(try Self.runner(apple), readOnly: readOnly, credentials: credentials)
                Self.ticks(5, session)
                c.expect(apple.asked.withLock { $0.isEmpty })
                c.expect(!Self.statusLine(session, backend).contains("mass extension"))
            }
            return c.failures
        }
        #expect(failures.isEmpty, "\(failures)")
    }
}
