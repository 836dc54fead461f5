import Crypto
import Foundation
import TestSupport
import Testing

@testable import AppStoreFake

/// The support commands as an agent runs them (README, "Support actions"): the built binary
/// against the fake App Store over loopback, which checks every request's token and applies
/// Apple's validation. Each test asserts what was sent (or that nothing was), what the command
/// said, and what the store and the audit log show.
@Suite(.serialized) struct SupportCommandTests {
    static let day: Int64 = 86_400_000

    /// Subscription 1000, bought 40 days ago and renewed 10 days ago: its renewal date is in 20
    /// days (whole seconds, so dates print as they are stored).
    struct Customer {
        let now = Int64(Date().timeIntervalSince1970) * 1000
        var ownership = "PURCHASED"
        var renewal: Int64 { now + 20 * SupportCommandTests.day }
        var transactions: [String] {
            let d = SupportCommandTests.day
            return [(1000, now - 40 * d, now - 10 * d), (1001, now - 10 * d, renewal)].map { id, start, end in
                #"{"transactionId":"\#(id)","originalTransactionId":"1000","webOrderLineItemId":"w\#(id)","productId":"pro.monthly","purchaseDate":\#(start),"originalPurchaseDate":\#(now - 40 * d),"expiresDate":\#(end),"signedDate":\#(start),"environment":"Production","type":"Auto-Renewable Subscription","inAppOwnershipType":"\#(ownership)","storefront":"USA","price":4990,"currency":"USD"}"#
            }
        }
    }

    /// A fake App Store that knows subscription 1000 of `customer`, the key files and the
    /// environment that configures the credentials.
    static func setUp(_ customer: Customer = Customer()) throws -> (
        fake: FakeAppStore, paths: (key: String, root: String, store: String), env: [String: String]
    ) {
        let key = P256.Signing.PrivateKey()
        let fake = try FakeAppStore(publicKey: key.publicKey)
        fake.transactions = customer.transactions
        fake.pageSize = 10
        fake.support.withLock { $0.renewalDates["1000"] = customer.renewal }
        let paths = try FetchCommandTests.files(key)
        let env = [
            "SUBDASH_ISSUER_ID": FakeAppStore.issuerId, "SUBDASH_KEY_ID": FakeAppStore.keyId,
            "SUBDASH_BUNDLE_ID": FakeAppStore.bundleId, "SUBDASH_PRIVATE_KEY": paths.key, "USER": "agent-ann",
        ]
        return (fake, paths, env)
    }

    static func cleanUp(_ paths: (key: String, root: String, store: String)) {
        try? FileManager.default.removeItem(atPath: (paths.key as NSString).deletingLastPathComponent)
    }

    /// `subdash ARGS` against the fake at `base`, with the store, the test root and the credentials.
    static func subdash(
        _ arguments: [String], base: String, paths: (key: String, root: String, store: String), env: [String: String]
    ) async throws -> Subdash.Run {
        try await FetchCommandTests.subdashOffThread(
            arguments + ["--db", paths.store, "--trust-root", paths.root, "--api-base", base], environment: env)
    }

    static func iso(_ ms: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    static func log(_ paths: (key: String, root: String, store: String)) throws -> [[String: Any]] {
        let run = try FetchCommandTests.subdash(["log", "--db", paths.store, "--format", "json"])
        return (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    // MARK: Look Up Order ID

    @Test func anOrderIdFindsTheCustomerImportsTheirTransactionsAndIsAudited() async throws {
        let customer = Customer()
        let (fake, paths, env) = try Self.setUp(customer)
        defer { Self.cleanUp(paths) }
        fake.support.withLock { $0.orders["MK4H9N2XQ1"] = customer.transactions }
        let run = try await fake.serve { base in
            try await Self.subdash(["fetch", "order", "MK4H9N2XQ1"], base: base, paths: paths, env: env)
        }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Subscription 1000 as of"))
        // One document (Apple's answer) holding both transactions.
        #expect(run.stderr.contains("1 applied, 0 duplicates, 0 rejected"))
        #expect(fake.requests.map(\.path) == ["/inApps/v1/lookup/MK4H9N2XQ1"])
        #expect(fake.requests.allSatisfy { $0.tokenProblem == nil })
        let log = try Self.log(paths)
        #expect(log.count == 1)
        #expect(log.first?["what"] as? String == "look up order MK4H9N2XQ1")
        #expect(log.first?["answer"] as? String == "done: status 0: 2 transactions")
        #expect(log.first?["operator"] as? String == "agent-ann")
        #expect(log.first?["environment"] as? String == "production")
    }

    @Test func anInvalidOrderIdSaysApplesStatus1AndAMalformedOneIsNotSent() async throws {
        let (fake, paths, env) = try Self.setUp()
        defer { Self.cleanUp(paths) }
        let (invalid, malformed) = try await fake.serve { base in
            (
                try await Self.subdash(["fetch", "order", "ZZ99ZZ99ZZ"], base: base, paths: paths, env: env),
                try await Self.subdash(["fetch", "order", "MK4H-9N2X"], base: base, paths: paths, env: env)
            )
        }
        #expect(invalid.status == 1)
        #expect(
            invalid.stderr.contains(
                "Apple says ZZ99ZZ99ZZ is not a valid order ID (status 1): check it against the customer's receipt email"))
        #expect(malformed.status == 2)
        #expect(malformed.stderr.contains("MK4H-9N2X is not an order ID: Apple's are letters and digits"))
        #expect(fake.requests.map(\.path) == ["/inApps/v1/lookup/ZZ99ZZ99ZZ"])
        #expect(try Self.log(paths).first?["answer"] as? String == "refused: status 1: not a valid order ID")
    }

    @Test func theSandboxHasNoOrderLookupAndNothingIsSent() async throws {
        let (fake, paths, env) = try Self.setUp()
        defer { Self.cleanUp(paths) }
        let run = try await fake.serve { base in
            try await Self.subdash(["fetch", "order", "MK4H9N2XQ1", "--sandbox"], base: base, paths: paths, env: env)
        }
        #expect(run.status == 2)
        #expect(run.stderr.contains("Apple does not offer Look Up Order ID in the sandbox"))
        #expect(fake.requests.isEmpty)
    }

    // MARK: Refund history

    @Test func refundHistoryFollowsEveryPageAndTheRefundsAppearOnTheSubscriber() async throws {
        let customer = Customer()
        let (fake, paths, env) = try Self.setUp(customer)
        defer { Self.cleanUp(paths) }
        let revoked = customer.transactions.map {
            $0.replacingOccurrences(
                of: #""inAppOwnershipType""#,
                with: #""revocationDate":\#(customer.now - Self.day),"revocationReason":0,"inAppOwnershipType""#)
        }
        fake.support.withLock {
            $0.refunds = revoked + [revoked[1].replacingOccurrences(of: "1001", with: "1002")]
            $0.refundPageSize = 2
        }
        let run = try await fake.serve { base in
            try await Self.subdash(["fetch", "refunds", "1000"], base: base, paths: paths, env: env)
        }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("3 refunded transactions from Apple (2 pages)"))
        #expect(fake.requests.map(\.path) == ["/inApps/v2/refund/lookup/1000", "/inApps/v2/refund/lookup/1000"])
        #expect(fake.requests.map { $0.query["revision"] } == [nil, "ref-2"])
        let report = try FetchCommandTests.subdash(["report", "subscriber", "1000", "--db", paths.store, "--format", "json"])
        #expect(report.stdout.contains(#""refunded":true"#))
        #expect(try Self.log(paths).first?["answer"] as? String == "done: 3 refunded transactions, 2 pages")
    }

    // MARK: Extend a renewal date

    @Test func anExtensionIsConfirmedWithItsNewDateSentOnceAndItsNotificationMatched() async throws {
        let customer = Customer()
        let (fake, paths, env) = try Self.setUp(customer)
        defer { Self.cleanUp(paths) }
        let (extend, fetched) = try await fake.serve { base in
            _ = try await Self.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
            let extend = try await Self.subdash(
                ["extend", "1000", "--days", "7", "--reason", "customer-satisfaction", "--yes"], base: base, paths: paths,
                env: env)
            // Apple's RENEWAL_EXTENDED follows; the backfill stores it.
            let signed = Int64(Date().timeIntervalSince1970 * 1000)
            fake.notifications = [
                #"{"notificationType":"RENEWAL_EXTENDED","notificationUUID":"uuid-ext","signedDate":\#(signed),"data":{"environment":"Production","bundleId":"\#(FakeAppStore.bundleId)","signedTransactionInfo":"\#(fake.sign(customer.transactions[1]))"}}"#
            ]
            let fetched = try await Self.subdash(
                ["fetch", "notifications", "--since", Self.iso(signed - 60_000)], base: base, paths: paths, env: env)
            return (extend, fetched)
        }
        // The extension and its notification count once toward Apple's two per 365 days.
        let next = try await fake.serve { base in
            try await Self.subdash(["extend", "1000", "--days", "1", "--reason", "other"], base: base, paths: paths, env: env)
        }
        #expect(next.stdout.contains("Extensions in the last 365 days: 1 of 2."), "\(next.stdout)")
        #expect(extend.status == 0, "\(extend.stderr)")
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let newDate = customer.renewal + 7 * Self.day
        #expect(
            extend.stdout.contains(
                "Extend 1000 (pro.monthly, production) by 7 days, reason customer-satisfaction: renewal date \(Self.iso(customer.renewal)) → \(Self.iso(newDate))."
            ))
        #expect(extend.stdout.contains("extended 1000 by 7 days: Apple's new renewal date \(Self.iso(newDate))"))
        let puts = fake.requests.filter { $0.method == "PUT" }
        #expect(puts.map(\.path) == ["/inApps/v1/subscriptions/extend/1000"])
        let body = try JSONSerialization.jsonObject(with: Data(puts[0].body.utf8)) as? [String: Any]
        #expect(body?["extendByDays"] as? Int == 7)
        #expect(body?["extendReasonCode"] as? Int == 1)
        let log = try Self.log(paths).filter { $0["kind"] as? String == "extend" }
        #expect(log.count == 1)
        #expect(log.first?["requestIdentifier"] as? String == body?["requestIdentifier"] as? String)
        let answer = log.first?["answer"] as? String ?? ""
        #expect(answer.hasPrefix(#"done: {"originalTransactionId":"1000""#))
        #expect(answer.contains("; RENEWAL_EXTENDED received"))
    }

    @Test func withoutYesAndNoTerminalNothingIsSent() async throws {
        let (fake, paths, env) = try Self.setUp()
        defer { Self.cleanUp(paths) }
        let run = try await fake.serve { base in
            _ = try await Self.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
            return try await Self.subdash(
                ["extend", "1000", "--days", "3", "--reason", "other"], base: base, paths: paths, env: env)
        }
        #expect(run.status == 2)
        #expect(run.stderr.contains("not confirmed: pass --yes to act without a question (nothing was sent to Apple)"))
        #expect(!fake.requests.contains { $0.method == "PUT" })
        #expect(try Self.log(paths).isEmpty)
    }

    @Test func aThirdExtensionWithin365DaysIsRefusedBeforeSending() async throws {
        let (fake, paths, env) = try Self.setUp()
        defer { Self.cleanUp(paths) }
        let runs = try await fake.serve { base in
            _ = try await Self.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
            var runs: [Subdash.Run] = []
            for days in ["2", "3", "4"] {
                runs.append(
                    try await Self.subdash(
                        ["extend", "1000", "--days", days, "--reason", "service-issue", "--yes"], base: base, paths: paths,
                        env: env))
            }
            return runs
        }
        #expect(runs[0].status == 0 && runs[1].status == 0, "\(runs[0].stderr) \(runs[1].stderr)")
        #expect(runs[2].status == 2)
        #expect(runs[2].stderr.contains("not sent: 1000 was already extended twice in the last 365 days"))
        #expect(fake.requests.filter { $0.method == "PUT" }.count == 2)
    }

    /// Extensions made elsewhere (another tool, a mass extension) count from their RENEWAL_EXTENDED notifications.
    @Test func twoStoredRenewalExtendedNotificationsRefuseAThirdBeforeSending() async throws {
        let customer = Customer()
        let (fake, paths, env) = try Self.setUp(customer)
        defer { Self.cleanUp(paths) }
        fake.notifications = ["uuid-a", "uuid-b"].map {
            Self.notification("RENEWAL_EXTENDED", uuid: $0, fake: fake, customer: customer)
        }
        let since = Self.iso(Int64(Date().timeIntervalSince1970 * 1000) - 60_000)
        let run = try await fake.serve { base in
            _ = try await Self.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
            _ = try await Self.subdash(["fetch", "notifications", "--since", since], base: base, paths: paths, env: env)
            return try await Self.subdash(
                ["extend", "1000", "--days", "3", "--reason", "other", "--yes"], base: base, paths: paths, env: env)
        }
        #expect(run.status == 2)
        #expect(run.stderr.contains("not sent: 1000 was already extended twice in the last 365 days"))
        #expect(!fake.requests.contains { $0.method == "PUT" })
    }

    @Test func familySharedAndTheOtherEnvironmentAreRefusedBeforeSending() async throws {
        var shared = Customer()
        shared.ownership = "FAMILY_SHARED"
        let (fake, paths, env) = try Self.setUp(shared)
        defer { Self.cleanUp(paths) }
        let (family, sandbox) = try await fake.serve { base in
            _ = try await Self.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
            return (
                try await Self.subdash(
                    ["extend", "1000", "--days", "3", "--reason", "other", "--yes"], base: base, paths: paths, env: env),
                try await Self.subdash(
                    ["link", "1000", "--token", "7e3fb20b-4cdb-47cc-936d-99d65f608138", "--yes", "--sandbox"], base: base,
                    paths: paths,
                    env: env)
            )
        }
        #expect(family.status == 2)
        #expect(family.stderr.contains("not sent: 1000 is family-shared: family-shared subscriptions cannot be extended"))
        #expect(sandbox.status == 2)
        #expect(sandbox.stderr.contains("not sent: 1000 is family-shared: Apple links only the purchaser's own transaction"))
        #expect(!fake.requests.contains { $0.method == "PUT" })
    }

    @Test func aSandboxKeyNeverActsOnProductionData() async throws {
        let (fake, paths, env) = try Self.setUp()
        defer { Self.cleanUp(paths) }
        let run = try await fake.serve { base in
            _ = try await Self.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
            return try await Self.subdash(
                ["extend", "1000", "--days", "3", "--reason", "other", "--yes", "--sandbox"], base: base, paths: paths, env: env)
        }
        #expect(run.status == 2)
        #expect(run.stderr.contains("not sent: 1000 is a Production subscription and the credentials act on sandbox (--sandbox)"))
        #expect(!fake.requests.contains { $0.method == "PUT" })
    }

    @Test func applesRefusalIsASentenceWithItsCodeAndIsAudited() async throws {
        let (fake, paths, env) = try Self.setUp()
        defer { Self.cleanUp(paths) }
        fake.support.withLock { _ = $0.ineligible.insert("1000") }
        let run = try await fake.serve { base in
            _ = try await Self.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
            return try await Self.subdash(
                ["extend", "1000", "--days", "3", "--reason", "other", "--yes"], base: base, paths: paths, env: env)
        }
        #expect(run.status == 1)
        #expect(run.stderr.contains("403 Forbidden: this subscription cannot be extended in its current state"))
        #expect(run.stderr.contains("(errorCode 4030004)"))
        let answer = try Self.log(paths).first { $0["kind"] as? String == "extend" }?["answer"] as? String
        #expect(
            answer?.hasPrefix("refused: PUT /inApps/v1/subscriptions/extend/1000: 403 Forbidden: this subscription cannot")
                == true)
    }

    /// The answer to the first attempt comes after the client's timeout; the retry carries the same
    /// requestIdentifier and Apple (the fake) extends once.
    @Test func aTimeoutThenRetrySendsTheSameRequestIdentifierAndExtendsOnce() async throws {
        let (fake, paths, env) = try Self.setUp()
        defer { Self.cleanUp(paths) }
        let run = try await fake.serve { base in
            _ = try await Self.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
            fake.script(.late(.seconds(8)))
            return try await Self.subdash(
                ["extend", "1000", "--days", "5", "--reason", "other", "--yes", "--request-timeout", "2"], base: base,
                paths: paths, env: env)
        }
        #expect(run.status == 0, "\(run.stderr)")
        let puts = fake.requests.filter { $0.method == "PUT" }
        #expect(puts.count >= 2)
        #expect(Set(puts.map(\.body)).count == 1)
        #expect(fake.support.withLock { $0.extensions["1000"] } == 1)
    }

    /// A run that got no answer at all leaves its request stored; the same command run again
    /// sends it with the same requestIdentifier, and Apple (the fake) extends once.
    @Test func anUnansweredExtensionIsSentAgainWithItsStoredRequestIdentifier() async throws {
        let (fake, paths, env) = try Self.setUp()
        defer { Self.cleanUp(paths) }
        let (first, other, second, later) = try await fake.serve { base in
            _ = try await Self.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
            fake.script(.late(.seconds(8)))
            let args = ["extend", "1000", "--days", "5", "--reason", "other", "--yes"]
            let first = try await Self.subdash(
                args + ["--request-timeout", "2", "--max-attempts", "1"], base: base, paths: paths, env: env)
            let other = try await Self.subdash(
                ["extend", "1000", "--days", "6", "--reason", "other", "--yes"], base: base, paths: paths, env: env)
            let second = try await Self.subdash(args, base: base, paths: paths, env: env)
            // Settled now: another extension is a new request.
            let later = try await Self.subdash(
                ["extend", "1000", "--days", "6", "--reason", "other", "--yes"], base: base, paths: paths, env: env)
            return (first, other, second, later)
        }
        #expect(first.status == 1)
        #expect(first.stderr.contains("timed out"))
        #expect(other.status == 2)
        #expect(other.stderr.contains("got no answer from Apple; run that same extension again"))
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("Sent again: the extension asked by agent-ann"))
        #expect(later.status == 0, "\(later.stderr)")
        #expect(later.stdout.contains("Extensions in the last 365 days: 1 of 2."))
        let puts = fake.requests.filter { $0.method == "PUT" }
        #expect(puts.count == 3)
        #expect(puts[0].body == puts[1].body && puts[1].body != puts[2].body)
        #expect(fake.support.withLock { $0.extensions["1000"] } == 2)
        // The log keeps the run that got no answer and the one that sent it again, with one identifier.
        let extend = try Self.log(paths).filter { $0["kind"] as? String == "extend" }
        #expect(extend.count == 3)
        #expect(
            (extend.first?["answer"] as? String)?.hasPrefix("failed: PUT /inApps/v1/subscriptions/extend/1000: timed out") == true
        )
        #expect((extend[1]["answer"] as? String)?.hasPrefix("done: ") == true)
        #expect(extend[0]["requestIdentifier"] as? String == extend[1]["requestIdentifier"] as? String)
    }

    @Test func aMassExtensionIsRequestedWithItsStorefrontsAndPolled() async throws {
        let (fake, paths, env) = try Self.setUp()
        defer { Self.cleanUp(paths) }
        let (request, badStorefront) = try await fake.serve { base in
            (
                try await Self.subdash(
                    [
                        "extend", "--all", "--product", "pro.monthly", "--days", "3", "--reason", "service-issue", "--storefront",
                        "USA", "--yes",
                    ],
                    base: base, paths: paths, env: env),
                try await Self.subdash(
                    [
                        "extend", "--all", "--product", "pro.monthly", "--days", "3", "--reason", "service-issue", "--storefront",
                        "usa", "--yes",
                    ],
                    base: base, paths: paths, env: env)
            )
        }
        #expect(request.status == 0, "\(request.stderr)")
        #expect(badStorefront.status == 2)
        #expect(badStorefront.stderr.contains("--storefront usa: a storefront is three capital letters"))
        #expect(fake.requests.count == 1)
        let body = try JSONSerialization.jsonObject(with: Data(fake.requests[0].body.utf8)) as? [String: Any]
        #expect(body?["productId"] as? String == "pro.monthly")
        #expect(body?["storefrontCountryCodes"] as? [String] == ["USA"])
        #expect(body?["extendReasonCode"] as? Int == 3)
        let id = body?["requestIdentifier"] as? String ?? ""
        #expect(request.stdout.contains("mass extension requested: \(id)"))
        let status = try await fake.serve { base in
            try await Self.subdash(["extend", "--status", id, "--product", "pro.monthly"], base: base, paths: paths, env: env)
        }
        #expect(status.stdout.contains("mass extension \(id): complete on 2026-01-01T00:00:00Z: 30 succeeded, 2 failed"))
    }

    // MARK: Set App Account Token

    @Test func linkingSetsTheTokenAtAppleAndTheStoreTakesItFromAppleSignedHistory() async throws {
        let (fake, paths, env) = try Self.setUp()
        defer { Self.cleanUp(paths) }
        let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        let (notUUID, link) = try await fake.serve { base in
            _ = try await Self.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
            return (
                try await Self.subdash(["link", "1000", "--token", "customer-42", "--yes"], base: base, paths: paths, env: env),
                try await Self.subdash(
                    ["link", "1000", "--token", token.uppercased(), "--yes"], base: base, paths: paths, env: env)
            )
        }
        #expect(notUUID.status == 2)
        #expect(notUUID.stderr.contains("--token customer-42: an app account token is a UUID"))
        #expect(link.status == 0, "\(link.stderr)")
        #expect(link.stdout.contains("linked 1000 to \(token): Apple confirmed and its signed transactions carry the token"))
        let put = fake.requests.filter { $0.method == "PUT" }
        #expect(put.map(\.path) == ["/inApps/v1/transactions/1000/appAccountToken"])
        #expect(put.first?.body == #"{"appAccountToken":"\#(token)"}"#)
        let report = try FetchCommandTests.subdash(["report", "subscriber", "1000", "--db", paths.store, "--format", "json"])
        #expect(report.stdout.contains(#""appAccountToken":"\#(token)""#))
    }

    // MARK: The audit log

    @Test func theLogHoldsFlagsAndActionsInOrder() async throws {
        let (fake, paths, env) = try Self.setUp()
        defer { Self.cleanUp(paths) }
        try await fake.serve { base in
            _ = try await Self.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
            _ = try await FetchCommandTests.subdashOffThread(
                ["flag", "1000", "--offer", "retention", "--note", "asked twice", "--db", paths.store], environment: env)
            _ = try await Self.subdash(
                ["extend", "1000", "--days", "2", "--reason", "other", "--yes"], base: base, paths: paths, env: env)
        }
        let table = try FetchCommandTests.subdash(["log", "--db", paths.store])
        let lines = table.stdout.split(separator: "\n").map(String.init)
        let flag = lines.firstIndex { $0.contains("flag retention set: asked twice") }
        let extend = lines.firstIndex {
            $0.contains("extend by 2 days (other)") && $0.contains("production") && $0.contains("done:")
        }
        #expect(flag != nil && extend != nil && flag! < extend!, "\(table.stdout)")
        #expect(table.stdout.contains("2 entries"))
        #expect(lines.filter { $0.contains("agent-ann") }.count == 2)
    }

    // MARK: Consumption requests

    /// A signed v2 notification about transaction 1001 of `customer`, signed now.
    static func notification(
        _ type: String, uuid: String, fake: FakeAppStore, customer: Customer, extra: String = ""
    ) -> String {
        let signed = Int64(Date().timeIntervalSince1970 * 1000)
        return
            #"{"notificationType":"\#(type)","notificationUUID":"\#(uuid)","signedDate":\#(signed),"data":{"environment":"Production","bundleId":"\#(FakeAppStore.bundleId)"\#(extra),"signedTransactionInfo":"\#(fake.sign(customer.transactions[1]))"}}"#
    }

    @Test func theQueueShowsARequestItsAnswerAndThenAppleOutcome() async throws {
        let customer = Customer()
        let (fake, paths, env) = try Self.setUp(customer)
        defer { Self.cleanUp(paths) }
        let since = Self.iso(Int64(Date().timeIntervalSince1970 * 1000) - 60_000)
        fake.notifications = [
            Self.notification(
                "CONSUMPTION_REQUEST", uuid: "uuid-cr", fake: fake, customer: customer,
                extra: #","consumptionRequestReason":"UNINTENDED_PURCHASE""#)
        ]
        let (noConsent, percentUndelivered, prorated, answer) = try await fake.serve { base in
            _ = try await Self.subdash(["fetch", "history", "1000"], base: base, paths: paths, env: env)
            _ = try await Self.subdash(["fetch", "notifications", "--since", since], base: base, paths: paths, env: env)
            let answer = ["consumption", "1001", "--delivery", "delivered", "--refund", "decline", "--yes"]
            return (
                try await Self.subdash(answer + ["--consumed", "30"], base: base, paths: paths, env: env),
                try await Self.subdash(
                    [
                        "consumption", "1001", "--delivery", "undelivered-outage", "--consumed", "30", "--refund", "grant-full",
                        "--customer-consented", "--yes",
                    ], base: base, paths: paths, env: env),
                try await Self.subdash(
                    answer.dropLast(3) + ["--refund", "grant-prorated", "--consumed", "10", "--customer-consented", "--yes"],
                    base: base,
                    paths: paths, env: env),
                try await Self.subdash(answer + ["--consumed", "30", "--customer-consented"], base: base, paths: paths, env: env)
            )
        }
        #expect(noConsent.status == 2)
        #expect(noConsent.stderr.contains("Apple takes consumption information only with the customer's consent"))
        #expect(percentUndelivered.status == 2)
        #expect(percentUndelivered.stderr.contains("--consumed goes only with --delivery delivered"))
        #expect(prorated.status == 2)
        #expect(prorated.stderr.contains("--consumed goes not with --refund grant-prorated"))
        #expect(answer.status == 0, "\(answer.stderr)")
        let puts = fake.requests.filter { $0.method == "PUT" }
        #expect(puts.map(\.path) == ["/inApps/v2/transactions/consumption/1001"])
        #expect(
            puts.first?.body
                == #"{"consumptionPercentage":30000,"customerConsented":true,"deliveryStatus":"DELIVERED","refundPreference":"DECLINE","sampleContentProvided":false}"#
        )
        let queue = try FetchCommandTests.subdash(["consumption", "--db", paths.store, "--format", "json"])
        let rows = try JSONSerialization.jsonObject(with: Data(queue.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(rows.count == 1)
        #expect(rows.first?["reason"] as? String == "UNINTENDED_PURCHASE")
        #expect(rows.first?["productId"] as? String == "pro.monthly")
        // Asked 10 days into a 30-day period.
        #expect(rows.first?["periodUsed"] as? String == "33 %")
        #expect(rows.first?["answeredBy"] as? String == "agent-ann")
        #expect(rows.first?["outcome"] is NSNull)
        let pending = try FetchCommandTests.subdash(["consumption", "--pending", "--db", paths.store])
        #expect(pending.stdout.contains("no consumption request waits for an answer"))
        // Apple declines the refund.
        fake.notifications = [Self.notification("REFUND_DECLINED", uuid: "uuid-rd", fake: fake, customer: customer)]
        _ = try await fake.serve { base in
            try await Self.subdash(["fetch", "notifications", "--since", since], base: base, paths: paths, env: env)
        }
        let after = try FetchCommandTests.subdash(["consumption", "--db", paths.store])
        #expect(after.stdout.contains("REFUND_DECLINED"), "\(after.stdout)")
        #expect(after.stdout.contains("agent-ann"))
    }
}
