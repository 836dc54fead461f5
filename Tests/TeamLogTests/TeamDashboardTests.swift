import Foundation
import SubscriberAnalytics
import SubscriberStore
import TeamLog
import TerminalUI
import TestSupport
import Testing

@testable import Dashboard
@testable import subdash

/// A dashboard started with `--team` (docs/team.md, "The dashboard"): it follows the log while it
/// runs and its status line says how far behind it is, against a real PostgreSQL server.
@Suite(.serialized, .enabled(if: PostgresServer.runsTests, "needs a PostgreSQL server (initdb and pg_ctl)"))
struct TeamDashboardTests {
    static let trustRoot = SampleData.trustRoot

    @Test func theDashboardFollowsTheLogAndSaysHowFarBehindItIs() throws {
        let (server, url, a, b, id) = try TeamActionTests.twoViews("dashboard")
        let database = try AppDatabase.open(path: a)
        let follower = DashboardTeamFollower(
            address: try TeamLogAddress(parsing: url), database: database,
            verifier: try VerificationOptions.parse(["--trust-root", Self.trustRoot]).verifier(), sharedSecret: nil)
        follower.start()
        defer { follower.stop() }
        let runner = EffectRunner(analytics: SubscriberAnalytics(database: database), teamLogStatus: { follower.line })
        var state = AppState(operatorName: "frank")
        state.teamLog = follower.line
        let backend = TestBackend(width: 160, height: 30, colorSupport: .none)
        let session = DashboardSession(backend: backend, runner: runner, palette: .builtinDefault(.none), state: state)
        session.apply(.start)
        session.settle()
        func statusLine() -> String {
            session.apply(.tick)
            session.settle()
            session.draw()
            return backend.lines[backend.lines.count - 2].trimmingCharacters(in: .whitespaces)
        }
        #expect(waitUntil(timeout: 30, interval: 0.2) { statusLine() == "team log: 0 behind" }, "\(statusLine())")

        // A flag set in the other view reaches this store while the dashboard runs.
        let flagged = try TestSupport.Subdash.run([
            "flag", "--team", url, "--db", b, id, "--offer", "retention", "--note", "from B", "--operator", "gina",
        ])
        #expect(flagged.status == 0, "\(flagged.stderr)")
        #expect(
            waitUntil(timeout: 30, interval: 0.1) {
                (try? database.flags(originalTransactionId: id).map(\.operatorName)) == ["gina"]
            })
        #expect(waitUntil(timeout: 30, interval: 0.2) { statusLine() == "team log: 0 behind" }, "\(statusLine())")
        _ = server

        // The words for a store behind, and for a log that cannot be reached.
        let now = Date()
        #expect(DashboardTeamFollower.words(12, oldest: now.addingTimeInterval(-3.4), now: now) == "team log: 12 behind · 3 s")
        let nowhere = DashboardTeamFollower(
            address: try TeamLogAddress(parsing: "postgres://nobody@/nothing?host=/nonexistent-\(getpid())"),
            database: database, verifier: try VerificationOptions.parse([]).verifier(), sharedSecret: nil)
        nowhere.start()
        defer { nowhere.stop() }
        #expect(waitUntil(timeout: 30, interval: 0.1) { nowhere.line == "team log unreachable" }, "\(nowhere.line)")
    }
}
