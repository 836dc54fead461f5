import AppStorePayloads
import Crypto
import Foundation
import SubscriberStore
import Synchronization
import Testing

@testable import AppStoreFake
@testable import AppStoreServerAPI

/// The App Store Server API client against the in-process fake App Store: tokens checked as Apple
/// checks them, signed pages, pagination, 429, 401, 404 and 500; what is fetched lands in a store
/// through the import path.
@Suite struct FetchTests {
    static let keyBytes = P256.Signing.PrivateKey().rawRepresentation
    static var key: P256.Signing.PrivateKey { try! P256.Signing.PrivateKey(rawRepresentation: keyBytes) }

    static func transaction(_ n: Int) -> String {
        let day: Int64 = 86_400_000
        let start = 1_735_689_600_000 + Int64(n) * 30 * day
        return
            #"{"transactionId":"\#(1000 + n)","originalTransactionId":"1000","productId":"pro.monthly","purchaseDate":\#(start),"originalPurchaseDate":1735689600000,"expiresDate":\#(start + 30 * day),"signedDate":\#(start),"environment":"Production","type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED"}"#
    }

    static func notification(_ n: Int, store: FakeAppStore) -> String {
        let signedDate = 1_735_689_600_000 + Int64(n) * 86_400_000
        return
            #"{"notificationType":"DID_RENEW","notificationUUID":"uuid-\#(n)","signedDate":\#(signedDate),"data":{"environment":"Production","bundleId":"\#(FakeAppStore.bundleId)","signedTransactionInfo":"\#(store.sign(transaction(n)))"}}"#
    }

    static func fake(key: P256.Signing.PrivateKey = FetchTests.key) throws -> FakeAppStore {
        let store = try FakeAppStore(publicKey: key.publicKey)
        store.transactions = (0..<5).map(transaction)
        store.notifications = (0..<3).map { notification($0, store: store) }
        return store
    }

    static func credentials(_ key: P256.Signing.PrivateKey = FetchTests.key) -> AppStoreCredentials {
        AppStoreCredentials(
            issuerId: FakeAppStore.issuerId, keyId: FakeAppStore.keyId, bundleId: FakeAppStore.bundleId, privateKey: key)
    }

    /// The requests in order, a retry of the same request counted once.
    static func withoutRepeats(_ values: [String?]) -> [String?] {
        var out: [String?] = []
        for v in values where out.isEmpty || out.last! != v { out.append(v) }
        return out
    }

    static func sink() throws -> (StoreSink, AppDatabase) {
        let database = try AppDatabase.inMemory()
        let verifier = try AppleJWSVerifier(additionalRootsPEM: [try FakeAppStore.chain.get().rootPEM()], includeAppleRoot: false)
        return (StoreSink(database: database, verifier: verifier), database)
    }

    /// The fake answers on this process's task threads, which the other suites' blocking tests can
    /// hold for a long time when the whole test run shares two cores: the client waits instead of
    /// timing out, so each test sees exactly the requests it scripted.
    static let patientTimeout = 600

    /// Records the waits instead of waiting; the jitter draws 0.5.
    final class Waits: Sendable {
        private let list = Mutex<[Double]>([])
        var all: [Double] { list.withLock { $0 } }
        var policy: RetryPolicy {
            RetryPolicy(
                maxAttempts: 4, baseDelay: 0.5, maxDelay: 30, sleep: { [self] s in list.withLock { $0.append(s) } },
                random: { 0.5 })
        }
    }

    @Test func transactionHistoryFollowsRevisionUntilHasMoreIsFalseAndStoresEveryTransaction() async throws {
        let fake = try Self.fake()
        let (sink, database) = try Self.sink()
        let pages = try await fake.serve { base in
            let client = AppStoreServerClient(
                credentials: Self.credentials(), baseURL: base, requestTimeoutSeconds: Self.patientTimeout)
            defer { Task { try await client.shutdown() } }
            var pages = 0
            try await client.transactionHistory("1000") { body, page in
                pages = page
                let stored = try sink.store(body, source: "api:history page \(page)")
                #expect(stored.rejection == nil)
            }
            return pages
        }
        #expect(pages == 3)
        // (A request the client timed out on, on a loaded machine, is sent again as it was.)
        #expect(Self.withoutRepeats(fake.requests.map { $0.query["revision"] }) == [nil, "rev-2", "rev-4"])
        #expect(fake.requests.allSatisfy { $0.tokenProblem == nil })
        let facts = try database.facts(of: "1000")
        #expect(facts.transactions.map(\.transactionId).sorted() == ["1000", "1001", "1002", "1003", "1004"])
    }

    @Test func statusesStoreTheRenewalInfo() async throws {
        let fake = try Self.fake()
        let (sink, database) = try Self.sink()
        try await fake.serve { base in
            let client = AppStoreServerClient(
                credentials: Self.credentials(), baseURL: base, requestTimeoutSeconds: Self.patientTimeout)
            defer { Task { try await client.shutdown() } }
            let stored = try sink.store(try await client.subscriptionStatuses("1000"), source: "api:statuses")
            #expect(stored.rejection == nil)
            #expect(stored.renewals == 1)
        }
        #expect(try database.facts(of: "1000").renewals.map(\.autoRenewStatus) == [false])
    }

    @Test func notificationHistoryFollowsPaginationTokenAndASecondRunChangesNothing() async throws {
        let fake = try Self.fake()
        let (sink, database) = try Self.sink()
        try await fake.serve { base in
            let client = AppStoreServerClient(
                credentials: Self.credentials(), baseURL: base, requestTimeoutSeconds: Self.patientTimeout)
            defer { Task { try await client.shutdown() } }
            for run in 0..<2 {
                var notifications = 0
                var duplicates = 0
                try await client.notificationHistory(startMilliseconds: 1_700_000_000_000, endMilliseconds: 1_800_000_000_000) {
                    body, _ in
                    let stored = try sink.store(body, source: "api:notification-history")
                    notifications += stored.notifications
                    duplicates += stored.result.duplicates
                }
                #expect(notifications == 3)
                #expect(duplicates == (run == 0 ? 0 : 2), "each page of the second run is a duplicate")
            }
        }
        let posts = fake.requests
        #expect(Self.withoutRepeats(posts.map { $0.query["paginationToken"] }) == [nil, "page-2", nil, "page-2"])
        #expect(posts[0].body == #"{"endDate":1800000000000,"startDate":1700000000000}"#)
        #expect(try sink.latestNotificationMilliseconds() == 1_735_689_600_000 + 2 * 86_400_000)
        #expect(try database.facts(of: "1000").notifications.count == 3)
    }

    @Test func a429IsRetriedAfterItsRetryAfterAnd5xxWithCappedJitteredBackoff() async throws {
        let fake = try Self.fake()
        let waits = Waits()
        fake.script(.status(429, retryAfter: "3"), .status(500), .status(503))
        let (sink, _) = try Self.sink()
        try await fake.serve { base in
            let client = AppStoreServerClient(
                credentials: Self.credentials(), baseURL: base, retry: waits.policy, requestTimeoutSeconds: Self.patientTimeout)
            defer { Task { try await client.shutdown() } }
            let body = try await client.subscriptionStatuses("1000")
            #expect(try sink.store(body, source: "api:statuses").rejection == nil)
        }
        // Retry-After as given; then half (the jitter) of the second and third attempts' caps, 1 s and 2 s.
        #expect(waits.all == [3, 0.5, 1])
        #expect(fake.requests.count == 4)
    }

    @Test func persistent500sFailAfterTheLastAttemptWithAMessage() async throws {
        let fake = try Self.fake()
        let waits = Waits()
        fake.script(.status(500), .status(500), .status(500), .status(500))
        await #expect(throws: AppStoreAPIError.self) {
            try await fake.serve { base in
                let client = AppStoreServerClient(
                    credentials: Self.credentials(), baseURL: base, retry: waits.policy,
                    requestTimeoutSeconds: Self.patientTimeout)
                defer { Task { try await client.shutdown() } }
                do {
                    _ = try await client.subscriptionStatuses("1000")
                } catch let error as AppStoreAPIError {
                    #expect(error.message.contains("500 Internal Server Error after 4 attempts"))
                    throw error
                }
            }
        }
        #expect(waits.all.count == 3)
        #expect(waits.all.allSatisfy { $0 <= 30 })
    }

    @Test func aTokenSignedWithAnotherKeyGetsA401ThatSaysWhatToCheck() async throws {
        let fake = try Self.fake()
        await #expect(throws: AppStoreAPIError.self) {
            try await fake.serve { base in
                let client = AppStoreServerClient(
                    credentials: Self.credentials(P256.Signing.PrivateKey()), baseURL: base,
                    requestTimeoutSeconds: Self.patientTimeout)
                defer { Task { try await client.shutdown() } }
                do {
                    _ = try await client.subscriptionStatuses("1000")
                } catch let error as AppStoreAPIError {
                    #expect(error.message.contains("401 Unauthorized"))
                    #expect(error.message.contains("issuer id"))
                    throw error
                }
            }
        }
        #expect(fake.requests.map(\.tokenProblem) == ["bad signature"], "a 401 is not retried")
    }

    @Test func anExpiredTokenIsRefused() async throws {
        let fake = try Self.fake()
        let old = try await AuthenticationToken.make(Self.credentials(), issuedAt: Date().addingTimeInterval(-3600))
        #expect(fake.checkToken("Bearer " + old) == "token expired")
        let fresh = try await AuthenticationToken.make(Self.credentials())
        #expect(fake.checkToken("Bearer " + fresh) == nil)
    }

    @Test func theTokenCarriesEveryClaimAppleAsksFor() async throws {
        let issued = Date(timeIntervalSince1970: 1_750_000_000)
        let token = try await AuthenticationToken.make(Self.credentials(), issuedAt: issued)
        let parts = token.split(separator: ".").map(String.init)
        let header = try JSONSerialization.jsonObject(with: FakeAppStore.base64URL(parts[0])!) as? [String: String]
        #expect(header == ["alg": "ES256", "kid": FakeAppStore.keyId, "typ": "JWT"])
        let claims = try #require(try JSONSerialization.jsonObject(with: FakeAppStore.base64URL(parts[1])!) as? [String: Any])
        #expect(claims["iss"] as? String == FakeAppStore.issuerId)
        #expect(claims["aud"] as? String == "appstoreconnect-v1")
        #expect(claims["bid"] as? String == FakeAppStore.bundleId)
        #expect(claims["iat"] as? Int == 1_750_000_000)
        #expect(claims["exp"] as? Int == 1_750_000_000 + 1200)
    }

    @Test func anUnknownTransactionIdIsA404ThatSaysSo() async throws {
        let fake = try Self.fake()
        await #expect(throws: AppStoreAPIError.self) {
            try await fake.serve { base in
                let client = AppStoreServerClient(
                    credentials: Self.credentials(), baseURL: base, requestTimeoutSeconds: Self.patientTimeout)
                defer { Task { try await client.shutdown() } }
                do {
                    try await client.transactionHistory("999") { _, _ in }
                } catch let error as AppStoreAPIError {
                    #expect(error.message.contains("404 Not Found: Apple found no transaction with this id (errorCode 4040010)"))
                    #expect(error.message.contains("--sandbox"))
                    throw error
                }
            }
        }
    }

    @Test func retryAfterReadsSecondsAndHTTPDates() throws {
        #expect(RetryPolicy.retryAfterSeconds("7") == 7)
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        // 20 s after `now` (to the millisecond: dates round-trip through binary floating point).
        let wait = try #require(RetryPolicy.retryAfterSeconds("Sun, 15 Jun 2025 15:07:00 GMT", now: now))
        #expect(abs(wait - 20) < 0.001)
        #expect(RetryPolicy.retryAfterSeconds("soon") == nil)
    }
}
