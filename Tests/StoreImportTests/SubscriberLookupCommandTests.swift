import Foundation
import TestSupport
import Testing

/// `report subscriber QUERY` reads QUERY as the dashboard's `:user` does (docs/keybindings.md):
/// exact ids first, else the `/` search; Sandbox subscribers say so; its JSON carries what pane 2
/// shows. On SampleData (customer0048's subscription 2000000000047000 is Sandbox).
@Suite struct SubscriberLookupCommandTests {
    /// SampleData with its customers (user ids and emails), as `subdash demo` builds it.
    static let store = Result<String, any Error> {
        let path = TemporaryDirectory.uniquePath("lookup.sqlite")
        _ = try SampleDataStore.copyFile(to: path)
        let imported = try Subdash.run(["import", "--db", path, packagePath("SampleData/customers.csv")])
        guard imported.status == 0 else { throw TestSupportError(imported.stderr) }
        return path
    }

    static func report(_ arguments: [String]) throws -> Subdash.Run {
        try Subdash.run(["report", "subscriber"] + arguments + ["--db", try store.get(), "--as-of", "2025-12-01"])
    }

    @Test func aPrefixOfAnEmailFindsItsSubscriber() throws {
        let result = try Self.report(["customer0002"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Subscription 2000000000001000 as of 2025-12-01"))
    }

    @Test func anUpperCaseAppAccountTokenFindsItsSubscription() throws {
        let result = try Self.report(["02A8AC30-65B3-473E-87AD-CA8D4DA80AAD"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Subscription 2000000000043000 as of"))
    }

    @Test func anAmbiguousQueryListsTheSubscriptionsItMatches() throws {
        let result = try Self.report(["customer000"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("9 subscriptions match customer000; pass one originalTransactionId:\n"))
        #expect(
            result.stderr.contains(
                "2000000000008000  Production   com.example.pro.yearly   standard  user-0009  customer0009@example.com"))
    }

    @Test func aSandboxSubscriberSaysItsEnvironment() throws {
        let table = try Self.report(["customer0048"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("Subscription 2000000000047000 as of"))
        #expect(table.stdout.contains("\n  environment         Sandbox\n"))
        let json = try Self.report(["2000000000047000", "--format", "json"])
        #expect(json.stdout.hasPrefix(#"{"originalTransactionId":"2000000000047000","environment":"Sandbox","#))
    }

    /// Email, when access ends, the retry window and each event's product and expiration reason:
    /// what pane 2 shows, in the same order (events oldest first).
    @Test func jsonCarriesWhatTheSubscriberPaneShows() throws {
        let json = try Self.report(["2000000000043000", "--format", "json"]).stdout
        #expect(json.contains(#""email":"customer0044@example.com""#))
        #expect(json.contains(#""accessEnd":{"kind":"renewsOn","at":"2026-11-06T15:46:41Z"},"billingRetry":null"#))
        #expect(
            json.contains(
                #""events":[{"at":"2024-10-23T15:46:41Z","type":"activation","productId":"com.example.pro.yearly","expirationReason":null}"#
            ))
        let expired = try Self.report(["customer0048", "--format", "json"]).stdout
        #expect(expired.contains(#""type":"expiration","productId":"com.example.pro.monthly","expirationReason":""#))
    }

    /// `subdash flags` names who each flagged subscription belongs to (flags are for outreach).
    @Test func flagsCarryUserIdEmailAndToken() throws {
        let db = TemporaryDirectory.uniquePath("flags.sqlite")
        try FileManager.default.copyItem(atPath: try Self.store.get(), toPath: db)
        let flag = try Subdash.run([
            "flag", "--db", db, "--offer", "service", "--operator", "ann", "2000000000001000", "2000000000043000",
        ])
        #expect(flag.status == 0, "\(flag.stderr)")
        let json = try Subdash.run(["flags", "--db", db, "--format", "json"]).stdout
        #expect(json.contains(#""originalTransactionId":"2000000000001000","offer":"service","note":null,"operator":"ann""#))
        #expect(json.contains(#""userId":"user-0002","email":"customer0002@example.com","appAccountToken":null"#))
        #expect(json.contains(#""appAccountToken":"02a8ac30-65b3-473e-87ad-ca8d4da80aad""#))
        let csv = try Subdash.run(["flags", "--db", db, "--format", "csv"]).stdout.split(separator: "\n")
        #expect(csv.first == "originalTransactionId,offer,note,operator,at,userId,email,appAccountToken")
        #expect(
            csv.contains {
                $0.hasPrefix("2000000000001000,service,,ann,") && $0.hasSuffix(",user-0002,customer0002@example.com,")
            })
    }
}
