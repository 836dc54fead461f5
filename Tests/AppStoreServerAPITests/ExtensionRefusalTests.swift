import Foundation
import TestSupport
import Testing

@testable import AppStoreFake

/// `subdash extend`'s refusals of a subscription Apple would not extend, against the fake App
/// Store over loopback (README, "Support actions"): checked in the store, said with the reason,
/// nothing sent and nothing logged.
@Suite(.serialized) struct ExtensionRefusalTests {
    static let day = SupportCommandTests.day

    /// Subscription 1000's transactions: (id, start, end, free trial).
    static func transactions(_ periods: [(Int, Int64, Int64, Bool)]) -> [String] {
        periods.map { id, start, end, trial in
            let offer = trial ? #""offerType":1,"offerDiscountType":"FREE_TRIAL","price":0,"# : #""price":4990,"#
            return
                #"{"transactionId":"\#(id)","originalTransactionId":"1000","webOrderLineItemId":"w\#(id)","productId":"pro.monthly","purchaseDate":\#(start),"originalPurchaseDate":\#(periods[0].1),"expiresDate":\#(end),"signedDate":\#(start),"environment":"Production","type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED","storefront":"USA",\#(offer)"currency":"USD"}"#
        }
    }

    /// `extend 1000 --days 3` on a store holding `transactions` (fetched by the CLI).
    static func extend(_ transactions: [String]) async throws -> (Subdash.Run, FakeAppStore, [[String: Any]]) {
        let (fake, paths, env) = try SupportCommandTests.setUp()
        defer { SupportCommandTests.cleanUp(paths) }
        fake.transactions = transactions
        let run = try await fake.serve { base in
            let fetched = try await SupportCommandTests.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
            #expect(fetched.status == 0, "\(fetched.stderr)")
            return try await SupportCommandTests.subdash(
                ["extend", "1000", "--days", "3", "--reason", "other", "--yes"], base: base, paths: paths, env: env)
        }
        return (run, fake, try SupportCommandTests.log(paths))
    }

    @Test func anExpiredSubscriptionIsRefusedBeforeSending() async throws {
        let now = Int64(Date().timeIntervalSince1970) * 1000
        let ended = now - 10 * Self.day
        let (run, fake, log) = try await Self.extend(
            Self.transactions([
                (1000, now - 70 * Self.day, now - 40 * Self.day, false), (1001, now - 40 * Self.day, ended, false),
            ]))
        #expect(run.status == 2)
        #expect(
            run.stderr.contains(
                "not sent: 1000 expired on \(SupportCommandTests.iso(ended)): Apple extends only a subscription that is active"),
            "\(run.stderr)")
        #expect(!fake.requests.contains { $0.method == "PUT" })
        #expect(log.isEmpty)
    }

    @Test func aFreeTrialIsRefusedBeforeSending() async throws {
        let now = Int64(Date().timeIntervalSince1970) * 1000
        let trialEnd = now + 4 * Self.day
        let (run, fake, log) = try await Self.extend(Self.transactions([(1000, now - 3 * Self.day, trialEnd, true)]))
        #expect(run.status == 2)
        #expect(run.stderr.contains("not sent: 1000 is in a free offer period ("), "\(run.stderr)")
        #expect(run.stderr.contains("until \(SupportCommandTests.iso(trialEnd)): Apple does not extend it"), "\(run.stderr)")
        #expect(!fake.requests.contains { $0.method == "PUT" })
        #expect(log.isEmpty)
    }
}
