import AppStorePayloads
import Foundation
import SubscriptionModel
import Testing

/// The app and environment of a document come from its signed parts, every one of them: never
/// from an App Store Server API response's unsigned top level.
@Suite struct SignedAppTests {
    /// A signed transaction (unsigned JWS: the test verifier reads any) for `bundleId`.
    static func transaction(_ id: String, bundleId: String?, environment: String = "Production") -> String {
        let bundle = bundleId.map { #","bundleId":"\#($0)""# } ?? ""
        return unsignedJWS(
            #"{"transactionId":"\#(id)","originalTransactionId":"o1","productId":"p","purchaseDate":1735689600000,"#
                + #""expiresDate":1738368000000,"signedDate":1735689600000,"environment":"\#(environment)"\#(bundle)}"#)
    }

    static func renewal(environment: String = "Production") -> String {
        unsignedJWS(
            #"{"originalTransactionId":"o1","autoRenewProductId":"p","autoRenewStatus":1,"signedDate":1735689600000,"#
                + #""environment":"\#(environment)"}"#)
    }

    static func history(top: String, _ transactions: [String]) -> String {
        #"{\#(top)"hasMore":false,"signedTransactions":[\#(transactions.map { "\"\($0)\"" }.joined(separator: ","))]}"#
    }

    static func status(top: String, _ transactions: [String]) -> String {
        let last = transactions.map { #"{"status":1,"originalTransactionId":"o1","signedTransactionInfo":"\#($0)"}"# }
        return #"{\#(top)"data":[{"subscriptionGroupIdentifier":"g","lastTransactions":[\#(last.joined(separator: ","))]}]}"#
    }

    static func notification(uuid: String, bundleId: String, appAppleId: Int64?, transaction: String? = nil) -> String {
        let apple = appAppleId.map { #","appAppleId":\#($0)"# } ?? ""
        let signed = transaction.map { #","signedTransactionInfo":"\#($0)""# } ?? ""
        return unsignedJWS(
            #"{"notificationType":"DID_RENEW","notificationUUID":"\#(uuid)","signedDate":1735689600000,"#
                + #""data":{"bundleId":"\#(bundleId)","environment":"Production"\#(apple)\#(signed)}}"#)
    }

    static func notificationHistory(_ payloads: [String]) -> String {
        let entries = payloads.map { #"{"sendAttempts":[],"signedPayload":"\#($0)"}"# }
        return #"{"hasMore":false,"notificationHistory":[\#(entries.joined(separator: ","))]}"#
    }

    @Test func aTransactionHistoryIsTheAppOfItsSignedTransactionsNotOfItsTopLevel() throws {
        let forged = Self.history(
            top: #""bundleId":"com.victim.app","appAppleId":1,"environment":"Production","#,
            [Self.transaction("t1", bundleId: "com.other.app"), Self.transaction("t2", bundleId: "com.other.app")])
        #expect(try decode(forged).app == AppIdentity(bundleId: "com.other.app"))
        let bare = Self.history(top: "", [Self.transaction("t1", bundleId: "com.other.app")])
        #expect(try decode(bare).app == AppIdentity(bundleId: "com.other.app"))
        let unnamed = Self.history(top: #""bundleId":"com.evil.app","appAppleId":666,"#, [Self.transaction("t1", bundleId: nil)])
        #expect(try decode(unnamed).app == nil, "the unsigned top level never names the app")
    }

    @Test func everySignedTransactionOfAHistoryIsChecked() {
        let mixed = Self.history(
            top: #""bundleId":"com.victim.app","#,
            [Self.transaction("t1", bundleId: "com.victim.app"), Self.transaction("t2", bundleId: "com.other.app")])
        #expect(
            rejection(mixed)
                == "signedTransactions[1]: for the app com.other.app, but signedTransactions[0] is for com.victim.app: a document is one app's"
        )
        let environments = Self.history(
            top: "",
            [Self.transaction("t1", bundleId: "com.a"), Self.transaction("t2", bundleId: "com.a", environment: "Sandbox")])
        #expect(
            rejection(environments)
                == "signedTransactions[1]: from Sandbox, but signedTransactions[0] is from Production: a document is from one environment"
        )
    }

    @Test func aStatusResponseIsTheAppOfItsSignedParts() throws {
        let forged = Self.status(
            top: #""bundleId":"com.victim.app","appAppleId":1,"environment":"Production","#,
            [Self.transaction("t1", bundleId: "com.other.app")])
        #expect(try decode(forged).app == AppIdentity(bundleId: "com.other.app"))
        let mixed = Self.status(
            top: "", [Self.transaction("t1", bundleId: "com.victim.app"), Self.transaction("t2", bundleId: "com.other.app")])
        #expect(
            rejection(mixed)
                == "data[0].lastTransactions[1].signedTransactionInfo: for the app com.other.app, but data[0].lastTransactions[0].signedTransactionInfo is for com.victim.app: a document is one app's"
        )
    }

    @Test func everyEntryOfANotificationHistoryIsChecked() throws {
        let same = Self.notificationHistory([
            Self.notification(uuid: "u1", bundleId: "com.a", appAppleId: 7),
            Self.notification(uuid: "u2", bundleId: "com.a", appAppleId: nil),
        ])
        #expect(try decode(same).app == AppIdentity(bundleId: "com.a", appAppleId: 7))
        let other = Self.notificationHistory([
            Self.notification(uuid: "u1", bundleId: "com.a", appAppleId: 7),
            Self.notification(uuid: "u2", bundleId: "com.a", appAppleId: 8),
        ])
        #expect(
            rejection(other)
                == "notificationHistory[1].signedPayload: for appAppleId 8, but notificationHistory[0].signedPayload is for appAppleId 7: a document is one app's"
        )
    }

    @Test func aNotificationsSignedTransactionIsForItsApp() {
        let spliced =
            #"{"signedPayload":"\#(Self.notification(uuid: "u1", bundleId: "com.a", appAppleId: 7, transaction: Self.transaction("t1", bundleId: "com.b")))"}"#
        #expect(
            rejection(spliced)
                == "signedPayload.data.signedTransactionInfo: for the app com.b, but signedPayload.data is for com.a: a document is one app's"
        )
    }

    @Test func anExternalPurchaseTokenNamesItsAppleId() throws {
        let facts = try Examples.decode("v2/EXTERNAL_PURCHASE_TOKEN-CREATED.json")
        let decoded = try JSONSerialization.jsonObject(with: try Examples.data("v2/EXTERNAL_PURCHASE_TOKEN-CREATED.decoded.json"))
        let token = try #require(((decoded as? [String: Any])?["externalPurchaseToken"]) as? [String: Any])
        let appAppleId = try #require(token["appAppleId"] as? Int)
        #expect(facts.app == AppIdentity(bundleId: try #require(token["bundleId"] as? String), appAppleId: Int64(appAppleId)))
        #expect(facts.app?.appAppleId != nil)
    }

    // MARK: - Get Transaction Info, bare signed transactions and renewal infos

    @Test func aTransactionInfoResponseImportsItsTransaction() throws {
        let facts = try decode(#"{"signedTransactionInfo":"\#(Self.transaction("t1", bundleId: "com.a"))"}"#)
        #expect(facts.format == .transactionInfo)
        #expect(facts.transactions.map(\.transactionId) == ["t1"])
        #expect(facts.app == AppIdentity(bundleId: "com.a"))
        #expect(facts.isSigned)
    }

    @Test func aBareSignedTransactionImports() throws {
        let facts = try decode(Self.transaction("t1", bundleId: "com.a"))
        #expect(facts.format == .transactionInfo)
        #expect(facts.transactions.map(\.transactionId) == ["t1"])
        // As a JSON string too.
        #expect(try decode("\"\(Self.transaction("t2", bundleId: "com.a"))\"").transactions.map(\.transactionId) == ["t2"])
    }

    @Test func aBareSignedRenewalInfoImports() throws {
        let facts = try decode(Self.renewal())
        #expect(facts.format == .renewalInfo)
        #expect(facts.renewals.map(\.originalTransactionId) == ["o1"])
        #expect(facts.renewals.first?.autoRenewStatus == true)
        #expect(facts.renewals.first?.instant == Instant(milliseconds: 1_735_689_600_000))
        #expect(facts.isSigned)
    }
}
