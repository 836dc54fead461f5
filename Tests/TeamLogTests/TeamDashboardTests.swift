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
/// In the one serialized suite of the team log tests: another of them stops the server.
extension TeamLogTests {
    /// What the test saw, on a thread of its own (its waits hold no thread of the cooperative
    /// pool the follower runs on); asserted back in the test.
    struct Seen: Sendable {
        var first = ""
        var flagStatus: Int32 = -1
        var flagError = ""
        var flagReached = false
        var after = ""
        var unreachable = ""
    }

    @Test func theDashboardFollowsTheLogAndSaysHowFarBehindItIs() async throws {
        let seen = try await TeamLogTests.onThread { try Self.followAndWatch() }
        #expect(seen.first == "team log: 0 behind")
        #expect(seen.flagStatus == 0, "\(seen.flagError)")
        #expect(seen.flagReached, "the flag set in the other view reached this store while the dashboard ran")
        #expect(seen.after == "team log: 0 behind")
        #expect(seen.unreachable == "team log unreachable")
        // The words for a store behind.
        let now = Date()
        #expect(DashboardTeamFollower.words(12, oldest: now.addingTimeInterval(-3.4), now: now) == "team log: 12 behind · 3 s")
        #expect(DashboardTeamFollower.words(0, oldest: nil, now: now) == "team log: 0 behind")
    }

    static func followAndWatch() throws -> Seen {
        var seen = Seen()
        let (_, url, a, b, id) = try TeamLogTests.twoViews("dashboard")
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
        _ = waitUntil(timeout: 30, interval: 0.2) { statusLine() == "team log: 0 behind" }
        seen.first = statusLine()

        // A flag set in the other view reaches this store while the dashboard runs.
        let flagged = try TestSupport.Subdash.run([
            "flag", "--team", url, "--db", b, id, "--offer", "retention", "--note", "from B", "--operator", "gina",
        ])
        (seen.flagStatus, seen.flagError) = (flagged.status, flagged.stderr)
        seen.flagReached = waitUntil(timeout: 30, interval: 0.1) {
            (try? database.flags(originalTransactionId: id).map(\.operatorName)) == ["gina"]
        }
        _ = waitUntil(timeout: 30, interval: 0.2) { statusLine() == "team log: 0 behind" }
        seen.after = statusLine()

        // A log that cannot be reached.
        let nowhere = DashboardTeamFollower(
            address: try TeamLogAddress(parsing: "postgres://nobody@/nothing?host=/nonexistent-\(getpid())"),
            database: database, verifier: try VerificationOptions.parse([]).verifier(), sharedSecret: nil)
        nowhere.start()
        defer { nowhere.stop() }
        _ = waitUntil(timeout: 30, interval: 0.1) { nowhere.line == "team log unreachable" }
        seen.unreachable = nowhere.line
        return seen
    }
}
