import SubscriptionModel

/// App Store Server API responses: Get All Subscription Statuses (`StatusResponse`),
/// Get Transaction History, Get Notification History and Get Transaction Info. Every signed part
/// is verified, and each part's app and environment are checked (``SignedApp``): the responses'
/// own top-level `bundleId`, `appAppleId` and `environment` are not signed, so they never name
/// the app.
struct ServerAPIDecoder {
    let parts: SignedParts

    /// `{environment, bundleId, appAppleId, data: [{subscriptionGroupIdentifier, lastTransactions: [...]}]}`.
    func statusResponse(_ root: JSONObject) throws(PayloadError) -> DocumentFacts {
        let top = FieldReader(root, path: "")
        let environment = try top.environment("environment") ?? .production
        var facts = DocumentFacts(format: .statusResponse)
        var app = SignedApp()
        for group in try top.objects("data") {
            for last in try group.objects("lastTransactions") {
                var transaction: TransactionFact?
                if let t = try parts.object(last, "signedTransactionInfo") {
                    try app.add(transaction: t)
                    if try SignedParts.isSubscription(t) {
                        transaction = try SignedParts.transaction(t, environment: environment)
                        facts.transactions.append(transaction!)
                    } else {
                        facts.nonSubscriptionTransactions += 1
                        facts.nonSubscriptionTransactionIds += try SignedParts.transactionIds(t)
                    }
                }
                if let r = try parts.object(last, "signedRenewalInfo") {
                    try app.add(renewal: r)
                    let sameSubscription = try r.string("originalTransactionId") == transaction?.originalTransactionId
                    facts.renewals.append(
                        try SignedParts.renewal(
                            r, fallbackInstant: transaction?.signedDate,
                            transactionId: sameSubscription ? transaction?.transactionId : nil, environment: environment))
                }
            }
        }
        facts.app = app.identity
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
        var app = SignedApp()
        facts.transactions.reserveCapacity(signed.count)
        for (i, element) in signed.enumerated() {
            let path = "signedTransactions[\(i)]"
            guard case .string(let jws) = element else {
                throw PayloadError("\(path): expected a compact JWS string, found \(element.foundDescription)")
            }
            let t = try SignedParts.verified(jws, path: path, verifier: parts.verifier)
            try app.add(transaction: t)
            guard try SignedParts.isSubscription(t) else {
                facts.nonSubscriptionTransactions += 1
                facts.nonSubscriptionTransactionIds += try SignedParts.transactionIds(t)
                continue
            }
            facts.transactions.append(try SignedParts.transaction(t, environment: environment))
        }
        facts.app = app.identity
        return facts
    }

    /// Get Transaction Info (`{"signedTransactionInfo": JWS}`) or a bare signed transaction: one
    /// `JWSTransactionDecodedPayload`.
    func transactionInfo(_ jws: String, path: String) throws(PayloadError) -> DocumentFacts {
        let t = try SignedParts.verified(jws, path: path, verifier: parts.verifier)
        var app = SignedApp()
        try app.add(transaction: t)
        var facts = DocumentFacts(format: .transactionInfo)
        if try SignedParts.isSubscription(t) {
            facts.transactions = [try SignedParts.transaction(t, environment: .production)]
        } else {
            facts.nonSubscriptionTransactions = 1
            facts.nonSubscriptionTransactionIds = try SignedParts.transactionIds(t)
        }
        facts.app = app.identity
        return facts
    }

    /// A bare signed renewal info: one `JWSRenewalInfoDecodedPayload`, a renewal fact at its own
    /// `signedDate`. It names no app (only its environment).
    func renewalInfo(_ jws: String, path: String) throws(PayloadError) -> DocumentFacts {
        let r = try SignedParts.verified(jws, path: path, verifier: parts.verifier)
        return DocumentFacts(
            format: .renewalInfo,
            renewals: [try SignedParts.renewal(r, fallbackInstant: nil, transactionId: nil, environment: .production)])
    }

    /// `{notificationHistory: [{sendAttempts, signedPayload}], hasMore, paginationToken}`. Each
    /// entry is a v2 notification; the facts keep format `v2` so they deduplicate with the same
    /// notification received directly.
    func notificationHistory(_ root: JSONObject) throws(PayloadError) -> DocumentFacts {
        let top = FieldReader(root, path: "")
        let v2 = V2NotificationDecoder(parts: parts)
        var facts = DocumentFacts(format: .notificationHistory)
        var app = SignedApp()
        for entry in try top.objects("notificationHistory") {
            let jws = try entry.requiredString("signedPayload")
            let path = entry.path("signedPayload")
            let one = try v2.decodeWithApp(signedPayload: jws, path: path)
            try app.add(one.app, at: path)
            facts.notifications += one.facts.notifications
            facts.transactions += one.facts.transactions
            facts.renewals += one.facts.renewals
            facts.nonSubscriptionTransactions += one.facts.nonSubscriptionTransactions
            facts.nonSubscriptionTransactionIds += one.facts.nonSubscriptionTransactionIds
        }
        facts.app = app.identity
        return facts
    }
}
