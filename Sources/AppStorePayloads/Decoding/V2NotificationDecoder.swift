import SubscriptionModel

/// App Store Server Notifications v2: `{"signedPayload": "<JWS>"}`, a bare compact JWS, or (only
/// with signatures off) an already decoded `responseBodyV2DecodedPayload`.
struct V2NotificationDecoder {
    let parts: SignedParts

    /// Verifies the outer JWS, then reads its signed transaction and renewal info, whose bytes the
    /// outer signature covers.
    func decode(signedPayload jws: String, path: String) throws(PayloadError) -> DocumentFacts {
        try decodeWithApp(signedPayload: jws, path: path).facts
    }

    /// `decode(signedPayload:path:)`, with what its signed parts say about the app (for a
    /// notification history, which gathers its entries').
    func decodeWithApp(signedPayload jws: String, path: String) throws(PayloadError) -> (facts: DocumentFacts, app: SignedApp) {
        let payload = try SignedParts.verified(jws, path: path, verifier: parts.verifier)
        return try V2NotificationDecoder(parts: parts.covered).decodeWithApp(payload: payload)
    }

    /// Decodes a `responseBodyV2DecodedPayload`. Unknown types and subtypes are kept as they are;
    /// `summary`, `externalPurchaseToken` and `appData` notifications carry no facts besides themselves.
    func decode(payload p: FieldReader) throws(PayloadError) -> DocumentFacts {
        try decodeWithApp(payload: p).facts
    }

    private func decodeWithApp(payload p: FieldReader) throws(PayloadError) -> (facts: DocumentFacts, app: SignedApp) {
        let type = try p.requiredString("notificationType")
        let subtype = try p.string("subtype")
        let uuid = try p.requiredString("notificationUUID")
        guard let signedDate = try p.milliseconds("signedDate") else { throw p.missing("signedDate") }

        // The app and environment, from whichever section the notification has, each checked
        // against the others and against the signed transaction and renewal info.
        let data = try p.object("data")
        var app = SignedApp()
        let sections = [data, try p.object("summary"), try p.object("appData")]
        for section in sections {
            guard let section else { continue }
            try app.add(
                bundleId: section.string("bundleId"), appAppleId: section.int64("appAppleId"),
                environment: section.environment("environment"), at: section.path)
        }
        if let token = try p.object("externalPurchaseToken") {
            let sandbox = try token.string("externalPurchaseId").map { $0.hasPrefix("SANDBOX") }
            try app.add(
                bundleId: token.string("bundleId"), appAppleId: token.int64("appAppleId"),
                environment: sandbox.map { $0 ? .sandbox : .production }, at: token.path)
        }
        let environment = app.environment
        let bundleId = app.bundleId
        let env = environment ?? .production

        var transaction: TransactionFact?
        var renewal: RenewalFact?
        var status: Int?
        var nonSubscriptionTransactions = 0
        var nonSubscriptionTransactionIds: [String] = []
        if let data {
            status = try data.int("status")
            if let t = try parts.object(data, "signedTransactionInfo") {
                try app.add(transaction: t)
                if try SignedParts.isSubscription(t) {
                    transaction = try SignedParts.transaction(t, environment: env)
                } else {
                    nonSubscriptionTransactions = 1
                    nonSubscriptionTransactionIds = try SignedParts.transactionIds(t)
                }
            }
            if let r = try parts.object(data, "signedRenewalInfo") {
                try app.add(renewal: r)
                let originalTransactionId = try r.string("originalTransactionId")
                let sameSubscription = originalTransactionId == transaction?.originalTransactionId
                renewal = try SignedParts.renewal(
                    r, fallbackInstant: signedDate,
                    transactionId: sameSubscription ? transaction?.transactionId : nil,
                    environment: env)
            }
        }

        var autoRenewStatus: Bool?
        if type == "DID_CHANGE_RENEWAL_STATUS" {
            switch subtype {
            case "AUTO_RENEW_ENABLED": autoRenewStatus = true
            case "AUTO_RENEW_DISABLED": autoRenewStatus = false
            default: autoRenewStatus = nil
            }
        }
        let notification = NotificationFact(
            notificationId: uuid,
            format: .v2Notification,
            notificationType: type,
            subtype: subtype,
            instant: signedDate,
            originalTransactionId: transaction?.originalTransactionId ?? renewal?.originalTransactionId,
            transactionId: transaction?.transactionId,
            environment: env,
            status: status,
            autoRenewStatus: autoRenewStatus,
            bundleId: bundleId)
        var facts = DocumentFacts(
            format: .v2Notification, notifications: [notification],
            transactions: transaction.map { [$0] } ?? [],
            renewals: renewal.map { [$0] } ?? [])
        facts.nonSubscriptionTransactions = nonSubscriptionTransactions
        facts.nonSubscriptionTransactionIds = nonSubscriptionTransactionIds
        facts.app = app.identity
        return (facts, app)
    }
}
