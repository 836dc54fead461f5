import Foundation
import SubscriptionModel

/// The JWS-signed parts of v2 documents: each is verified through the injected verifier, then
/// read as a `JWSTransactionDecodedPayload` or `JWSRenewalInfoDecodedPayload`.
struct SignedParts {
    let verifier: any SignatureVerifier
    /// True for the parts inside a JWS whose signature has been verified: that signature covers
    /// their bytes, so they are read without checking their own (a v2 notification then costs one
    /// ECDSA verification instead of three). They must still be compact JWS strings.
    var coveredBySignature = false

    init(verifier: any SignatureVerifier) { self.verifier = verifier }

    /// The parts inside a verified JWS.
    var covered: SignedParts {
        var parts = self
        parts.coveredBySignature = verifier.verifiesSignatures
        return parts
    }

    /// The decoded object of the JWS at `key`. With signatures off (`--no-verify`), an already
    /// decoded object is read as is, so the readable copies in SampleData import too.
    func object(_ reader: FieldReader, _ key: String) throws(PayloadError) -> FieldReader? {
        switch reader.object[key] {
        case nil, .null?: return nil
        case .string(let jws)?:
            return try Self.verified(jws, path: reader.path(key), verifier: coveredBySignature ? UnverifiedJWS() : verifier)
        case .object(let decoded)? where !verifier.verifiesSignatures:
            return FieldReader(decoded, path: reader.path(key))
        case .object?:
            throw PayloadError(
                "\(reader.path(key)): expected a signed JWS string, found a decoded object "
                    + "that cannot be verified (import the original signed document, or pass --no-verify)")
        case let value?:
            throw reader.mismatch(key, expected: "a compact JWS string", found: value)
        }
    }

    /// Verifies a compact JWS and parses its payload, which must be a JSON object.
    static func verified(_ jws: String, path: String, verifier: any SignatureVerifier) throws(PayloadError) -> FieldReader {
        let payload: Data
        do {
            payload = try verifier.payload(ofJWS: jws)
        } catch {
            throw PayloadError("\(path): \(error.reason)")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(payload)
        } catch {
            throw PayloadError("\(path): the JWS payload is not JSON: \(error.reason)")
        }
        guard case .object(let object) = value else {
            throw PayloadError("\(path): the JWS payload is \(value.kindDescription), not a JSON object")
        }
        return FieldReader(object, path: path)
    }

    // MARK: - Decoded payloads

    /// Apple's `type` of an auto-renewable subscription's transactions.
    static let autoRenewableType = "Auto-Renewable Subscription"

    /// Whether a `JWSTransactionDecodedPayload` is an auto-renewable subscription's: its `type`
    /// says so, or it has none (older payloads). A `Consumable`, `Non-Consumable` or
    /// `Non-Renewing Subscription` transaction makes no subscription: its document is archived,
    /// the transaction kept aside (docs/metrics.md, "Non-subscription transactions").
    static func isSubscription(_ t: FieldReader) throws(PayloadError) -> Bool {
        guard let type = try t.string("type") else { return true }
        return type == autoRenewableType
    }

    /// `JWSTransactionDecodedPayload`. Dates are integer or fractional milliseconds, `price` is
    /// in milliunits.
    static func transaction(_ t: FieldReader, environment fallback: StoreEnvironment) throws(PayloadError) -> TransactionFact {
        let transactionId = try t.requiredString("transactionId")
        guard let purchaseDate = try t.milliseconds("purchaseDate") else { throw t.missing("purchaseDate") }
        var fact = TransactionFact(
            transactionId: transactionId,
            originalTransactionId: try t.string("originalTransactionId") ?? transactionId,
            webOrderLineItemId: try t.string("webOrderLineItemId"),
            productId: try t.requiredString("productId"),
            subscriptionGroupIdentifier: try t.string("subscriptionGroupIdentifier"),
            purchaseDate: purchaseDate,
            originalPurchaseDate: try t.milliseconds("originalPurchaseDate"),
            expiresDate: try t.milliseconds("expiresDate", .scheduled),
            revocationDate: try t.milliseconds("revocationDate"),
            revocationReason: try t.int("revocationReason"),
            revocationType: try t.string("revocationType"),
            isUpgraded: try t.bool("isUpgraded") ?? false,
            offerType: try t.int("offerType"),
            offerDiscountType: try t.string("offerDiscountType"),
            offerIdentifier: try t.string("offerIdentifier"),
            appAccountToken: try t.string("appAccountToken"),
            environment: try t.environment("environment") ?? fallback,
            price: try t.int64("price"),
            currency: try t.string("currency"),
            inAppOwnershipType: try t.string("inAppOwnershipType"),
            signedDate: try t.milliseconds("signedDate"),
            storefront: try t.string("storefront"),
            revocationPercentage: try t.int("revocationPercentage"))
        try readCommitment(t, into: &fact)
        return try fact.withRenewalDetails(t)
    }

    /// `JWSRenewalInfoDecodedPayload`, a renewal fact at its own `signedDate` (or, lacking one,
    /// at `fallbackInstant`, the notification's).
    static func renewal(
        _ r: FieldReader, fallbackInstant: Instant?, transactionId: String?,
        environment fallback: StoreEnvironment
    ) throws(PayloadError) -> RenewalFact {
        guard let instant = try r.milliseconds("signedDate") ?? fallbackInstant else { throw r.missing("signedDate") }
        var autoRenewStatus: Bool?
        if let status = try r.int("autoRenewStatus") {
            guard status == 0 || status == 1 else {
                throw r.mismatch("autoRenewStatus", expected: "0 or 1", found: .integer(Int64(status)))
            }
            autoRenewStatus = status == 1
        }
        var fact = RenewalFact(
            originalTransactionId: try r.requiredString("originalTransactionId"),
            instant: instant,
            productId: try r.string("productId"),
            autoRenewProductId: try r.string("autoRenewProductId"),
            autoRenewStatus: autoRenewStatus,
            isInBillingRetryPeriod: try r.bool("isInBillingRetryPeriod"),
            gracePeriodExpiresDate: try r.milliseconds("gracePeriodExpiresDate", .scheduled),
            expirationIntent: try r.int("expirationIntent"),
            priceIncreaseStatus: try r.int("priceIncreaseStatus"),
            transactionId: transactionId,
            environment: try r.environment("environment") ?? fallback,
            isV1: false)
        try readCommitment(r, into: &fact)
        return try fact.withRenewalDetails(r)
    }
}
