import SubscriptionModel

/// App Store Server API responses: Get All Subscription Statuses (`StatusResponse`),
/// Get Transaction History and Get Notification History. Every signed part is verified.
struct ServerAPIDecoder {
    let parts: SignedParts

    /// `{environment, bundleId, appAppleId, data: [{subscriptionGroupIdentifier, lastTransactions: [...]}]}`.
    func statusResponse(_ root: JSONObject) throws(PayloadError) -> DocumentFacts {
        let top = FieldReader(root, path: "")
        let environment = try top.environment("environment") ?? .production
        var facts = DocumentFacts(format: .statusResponse)
        facts.app = try Self.app(top)
        for group in try top.objects("data") {
            for last in try group.objects("lastTransactions") {
                var transaction: TransactionFact?
                if let t = try parts.object(last, "signedTransactionInfo") {
                    transaction = try SignedParts.transaction(t, environment: environment)
                    facts.transactions.append(transaction!)
                }
                if let r = try parts.object(last, "signedRenewalInfo") {
                    let sameSubscription = try r.string("originalTransactionId") == transaction?.originalTransactionId
                    facts.renewals.append(
                        try SignedParts.renewal(
                            r, fallbackInstant: transaction?.signedDate,
                            transactionId: sameSubscription ? transaction?.transactionId : nil, environment: environment))
                }
            }
        }
        return facts
    }

    /// `{bundleId, appAppleId, environment, hasMore, revision, signedTransactions: [JWS]}`.
    func transactionHistory(_ root: JSONObject) throws(PayloadError) -> DocumentFacts {
        let top = FieldReader(root, path: "")
        let environment = try top.environment("environment") ?? .production
        guard case .array(let signed)? = root["signedTransactions"] else {
            throw top.mismatch(
                "signedTransactions", expected: "an array of JWS strings", found: root["signedTransactions"] ?? .null)
        }
        var facts = DocumentFacts(format: .transactionHistory)
        facts.app = try Self.app(top)
        facts.transactions.reserveCapacity(signed.count)
        for (i, element) in signed.enumerated() {
            let path = "signedTransactions[\(i)]"
            guard case .string(let jws) = element else {
                throw PayloadError("\(path): expected a compact JWS string, found \(element.foundDescription)")
            }
            let t = try SignedParts.verified(jws, path: path, verifier: parts.verifier)
            facts.transactions.append(try SignedParts.transaction(t, environment: environment))
        }
        return facts
    }

    /// `{notificationHistory: [{sendAttempts, signedPayload}], hasMore, paginationToken}`. Each
    /// entry is a v2 notification; the facts keep format `v2` so they deduplicate with the same
    /// notification received directly.
    func notificationHistory(_ root: JSONObject) throws(PayloadError) -> DocumentFacts {
        let top = FieldReader(root, path: "")
        let v2 = V2NotificationDecoder(parts: parts)
        var facts = DocumentFacts(format: .notificationHistory)
        for entry in try top.objects("notificationHistory") {
            let jws = try entry.requiredString("signedPayload")
            let one = try v2.decode(signedPayload: jws, path: entry.path("signedPayload"))
            facts.notifications += one.notifications
            facts.transactions += one.transactions
            facts.renewals += one.renewals
            if facts.app == nil { facts.app = one.app }
        }
        return facts
    }

    /// The response's `bundleId` and `appAppleId`.
    static func app(_ top: FieldReader) throws(PayloadError) -> AppIdentity? {
        try top.string("bundleId").map { b throws(PayloadError) in
            AppIdentity(bundleId: b, appAppleId: try top.int64("appAppleId"))
        }
    }
}
