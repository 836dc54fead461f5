import Foundation
import TestSupport
import Testing

@testable import AppStoreFake

/// `subdash link`'s refusals against the fake App Store over loopback (README, "Support
/// actions"): what subdash refuses before sending, with nothing sent and nothing logged, and
/// Apple's own refusal said as a sentence with its code and logged.
@Suite(.serialized) struct LinkRefusalTests {
    static let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"

    @Test func aLaterTransactionAnUnknownIdAndTheOtherEnvironmentAreRefusedBeforeSending() async throws {
        let (fake, paths, env) = try SupportCommandTests.setUp()
        defer { SupportCommandTests.cleanUp(paths) }
        let (later, unknown, sandbox, unconfirmed) = try await fake.serve { base in
            _ = try await SupportCommandTests.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
            func link(_ arguments: [String]) async throws -> Subdash.Run {
                try await SupportCommandTests.subdash(["link"] + arguments, base: base, paths: paths, env: env)
            }
            return (
                try await link(["1001", "--token", Self.token, "--yes"]),
                try await link(["9999", "--token", Self.token, "--yes"]),
                try await link(["1000", "--token", Self.token, "--yes", "--sandbox"]),
                try await link(["1000", "--token", Self.token])
            )
        }
        #expect(later.status == 2)
        #expect(
            later.stderr.contains("not sent: 1001 is not an original transaction id; the purchase's is 1000"), "\(later.stderr)")
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("not sent: no subscription matches 9999"), "\(unknown.stderr)")
        #expect(sandbox.status == 2)
        #expect(
            sandbox.stderr.contains(
                "not sent: 1000 is a Production subscription and the credentials act on sandbox (--sandbox)"), "\(sandbox.stderr)"
        )
        #expect(unconfirmed.status == 2)
        #expect(unconfirmed.stdout.contains("Link 1000 (production) to appAccountToken \(Self.token) (none yet)."))
        #expect(unconfirmed.stderr.contains("not confirmed: pass --yes to act without a question (nothing was sent to Apple)"))
        #expect(!fake.requests.contains { $0.method == "PUT" })
        #expect(try SupportCommandTests.log(paths).isEmpty)
    }

    @Test func applesRefusalIsASentenceWithItsCodeAndTheStoreKeepsNoToken() async throws {
        let (fake, paths, env) = try SupportCommandTests.setUp()
        defer { SupportCommandTests.cleanUp(paths) }
        // Apple knows 1000 as a later transaction of another purchase (4000187).
        fake.support.withLock { _ = $0.laterTransactions.insert("1000") }
        let run = try await fake.serve { base in
            _ = try await SupportCommandTests.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
            return try await SupportCommandTests.subdash(
                ["link", "1000", "--token", Self.token, "--yes"], base: base, paths: paths, env: env)
        }
        #expect(run.status == 1)
        #expect(
            run.stderr.contains(
                "400 Bad Request: this request needs the original transaction id, not a later transaction's (errorCode 4000187)"),
            "\(run.stderr)")
        let puts = fake.requests.filter { $0.method == "PUT" }
        #expect(puts.map(\.path) == ["/inApps/v1/transactions/1000/appAccountToken"])
        #expect(fake.requests.allSatisfy { $0.tokenProblem == nil })
        #expect(fake.support.withLock { $0.tokens.isEmpty })
        let log = try SupportCommandTests.log(paths)
        #expect(log.count == 1)
        #expect(log.first?["what"] as? String == "link to appAccountToken \(Self.token)")
        #expect(
            (log.first?["answer"] as? String)?.hasPrefix("refused: PUT /inApps/v1/transactions/1000/appAccountToken: 400") == true
        )
        let report = try FetchCommandTests.subdash(["report", "subscriber", "1000", "--db", paths.store, "--format", "json"])
        #expect(!report.stdout.contains(Self.token))
    }
}
