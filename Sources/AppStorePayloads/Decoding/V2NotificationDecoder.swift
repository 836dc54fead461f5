import SubscriptionModel

/// App Store Server Notifications v2: `{"signedPayload": "<JWS>"}`, a bare compact JWS, or (only
/// with signatures off) an already decoded `responseBodyV2DecodedPayload`.
struct V2NotificationDecoder {
    let parts: SignedParts

    /// Verifies the outer JWS, then reads its signed transaction and renewal info, whose bytes the
    /// outer signature covers.
    func decode(signedPayload jws: String, path: String) throws(PayloadError) -> DocumentFacts {
        let payload = try SignedParts.verified(jws, path: path, verifier: parts.verifier)
        return try V2NotificationDecoder(parts: parts.covered).decode(payload: payload)
    }

    /// Decodes a `responseBodyV2DecodedPayload`. Unknown types and subtypes are kept as they are;
    /// `summary`, `externalPurchaseToken` and `appData` notifications carry no facts besides themselves.
    func decode(payload p: FieldReader) throws(PayloadError) -> DocumentFacts {
        let type = try p.requiredString("notificationType")
        let subtype = try p.string("subtype")
        let uuid = try p.requiredString("notificationUUID")
        guard let signedDate = try p.milliseconds("signedDate") else { throw p.missing("signedDate") }

        let data = try p.object("data")
        var environment: StoreEnvironment?
        var bundleId: String?
        var appAppleId: Int64?
        let summary = try p.object("summary")
        let appData = try p.object("appData")
        for section in [data, summary, appData] {
            guard let section else { continue }
            if environment == nil { environment = try section.environment("environment") }
            if bundleId == nil { bundleId = try section.string("bundleId") }
            if appAppleId == nil { appAppleId = try section.int64("appAppleId") }
        }
        if let token = try p.object("externalPurchaseToken") {
            if bundleId == nil { bundleId = try token.string("bundleId") }
            if environment == nil, let id = try token.string("externalPurchaseId") {
                environment = id.hasPrefix("SANDBOX") ? .sandbox : .production
            }
        }
        let env = environment ?? .production

        var transaction: TransactionFact?
        var renewal: RenewalFact?
        var status: Int?
        if let data {
            status = try data.int("status")
            if let t = try parts.object(data, "signedTransactionInfo") {
                transaction = try SignedParts.transaction(t, environment: env)
            }
            if let r = try parts.object(data, "signedRenewalInfo") {
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
        facts.app = bundleId.map { AppIdentity(bundleId: $0, appAppleId: appAppleId) }
        return facts
    }
}
