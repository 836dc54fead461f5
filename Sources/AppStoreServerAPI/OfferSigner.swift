import Crypto
import Foundation

/// Signed offers the app passes to StoreKit, made with the same In-App Purchase key as the
/// App Store Server API token (formats in README, "Offers that reach the customer").
///
/// - ``promotionalSignature(productId:offerIdentifier:applicationUsername:nonce:timestamp:)``:
///   the original API's signature: ECDSA P-256 / SHA-256 over bundle id, key id, product id, offer
///   id, application username (lower-cased), nonce (lower-cased) and timestamp (UNIX ms), joined
///   by U+2063; the DER signature in standard base64. StoreKit accepts it for 24 hours.
/// - ``promotionalJWS(productId:offerIdentifier:transactionId:nonce:issuedAt:)``: StoreKit 2's
///   compact JWS, `aud` `promotional-offer`.
/// - ``introductoryEligibilityJWS(productId:allowIntroductoryOffer:transactionId:nonce:issuedAt:)``:
///   the JWS that tells StoreKit whether to offer the introductory price, `aud`
///   `introductory-offer-eligibility`.
public struct OfferSigner: Sendable {
    public static let separator = "\u{2063}"
    public static let promotionalAudience = "promotional-offer"
    public static let introductoryAudience = "introductory-offer-eligibility"

    public var credentials: AppStoreCredentials

    public init(credentials: AppStoreCredentials) { self.credentials = credentials }

    /// A fresh nonce: a random UUID, lower-case as Apple requires.
    public static func makeNonce() -> String { UUID().uuidString.lowercased() }

    /// What the original API's `SKPaymentDiscount` takes, with the product and offer it is for.
    public struct PromotionalSignature: Sendable, Equatable {
        public var productId: String
        public var offerIdentifier: String
        public var keyIdentifier: String
        public var nonce: String
        /// UNIX milliseconds.
        public var timestamp: Int64
        public var signature: String
    }

    /// The exact bytes the original API's signature covers.
    public func promotionalPayload(
        productId: String, offerIdentifier: String, applicationUsername: String, nonce: String, timestamp: Int64
    ) -> String {
        [
            credentials.bundleId, credentials.keyId, productId, offerIdentifier, applicationUsername.lowercased(),
            nonce.lowercased(), String(timestamp),
        ].joined(separator: Self.separator)
    }

    public func promotionalSignature(
        productId: String, offerIdentifier: String, applicationUsername: String = "", nonce: String = makeNonce(),
        timestamp: Int64 = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    ) throws -> PromotionalSignature {
        let payload = promotionalPayload(
            productId: productId, offerIdentifier: offerIdentifier, applicationUsername: applicationUsername,
            nonce: nonce, timestamp: timestamp)
        let signature = try credentials.privateKey.signature(for: Data(payload.utf8))
        return PromotionalSignature(
            productId: productId, offerIdentifier: offerIdentifier, keyIdentifier: credentials.keyId,
            nonce: nonce.lowercased(), timestamp: timestamp, signature: signature.derRepresentation.base64EncodedString())
    }

    /// StoreKit 2's promotional offer JWS. `transactionId` is any transaction id of the customer
    /// (the app transaction's works for customers without purchases); nil leaves the claim out.
    public func promotionalJWS(
        productId: String, offerIdentifier: String, transactionId: String?, nonce: String = makeNonce(),
        issuedAt: Date = Date()
    ) throws -> String {
        var claims: [String: JSONValue] = [
            "productId": .string(productId), "offerIdentifier": .string(offerIdentifier),
        ]
        if let transactionId { claims["transactionId"] = .string(transactionId) }
        return try jws(audience: Self.promotionalAudience, claims: claims, nonce: nonce, issuedAt: issuedAt)
    }

    public func introductoryEligibilityJWS(
        productId: String, allowIntroductoryOffer: Bool, transactionId: String, nonce: String = makeNonce(),
        issuedAt: Date = Date()
    ) throws -> String {
        let claims: [String: JSONValue] = [
            "productId": .string(productId), "allowIntroductoryOffer": .bool(allowIntroductoryOffer),
            "transactionId": .string(transactionId),
        ]
        return try jws(audience: Self.introductoryAudience, claims: claims, nonce: nonce, issuedAt: issuedAt)
    }

    /// Header `{"alg":"ES256","kid":…,"typ":"JWT"}`; claims `iss`, `bid`, `aud`, `iat` (whole
    /// seconds), `nonce` and the feature's own; the ES256 signature as r‖s, base64url.
    func jws(audience: String, claims featureClaims: [String: JSONValue], nonce: String, issuedAt: Date) throws -> String {
        let header: [String: JSONValue] = ["alg": .string("ES256"), "kid": .string(credentials.keyId), "typ": .string("JWT")]
        var claims = featureClaims
        claims["iss"] = .string(credentials.issuerId)
        claims["bid"] = .string(credentials.bundleId)
        claims["aud"] = .string(audience)
        claims["iat"] = .int(Int64(issuedAt.timeIntervalSince1970.rounded(.down)))
        claims["nonce"] = .string(nonce.lowercased())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let input = Self.base64URL(try encoder.encode(header)) + "." + Self.base64URL(try encoder.encode(claims))
        let signature = try credentials.privateKey.signature(for: Data(input.utf8))
        return input + "." + Self.base64URL(signature.rawRepresentation)
    }

    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The few JSON values a claim set holds.
    enum JSONValue: Encodable {
        case string(String)
        case int(Int64)
        case bool(Bool)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let s): try container.encode(s)
            case .int(let i): try container.encode(i)
            case .bool(let b): try container.encode(b)
            }
        }
    }
}
