import Crypto
import Foundation
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

@testable import AppStoreServerAPI

/// Signed offers, checked by an independent path: the payload written out by hand and verified
/// with swift-crypto's public key; the JWS split, decoded and read claim by claim.
@Suite struct OfferSignerTests {
    static let key = P256.Signing.PrivateKey()
    static let credentials = AppStoreCredentials(
        issuerId: "57246542-96fe-1a63-e053-0824d011072a", keyId: "2X9R4HXF34", bundleId: "com.example.app",
        privateKey: key)

    static func fromBase64URL(_ text: Substring) -> Data? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s)
    }

    static func verifies(_ signatureBase64: String, payload: String) throws -> Bool {
        let der = try #require(Data(base64Encoded: signatureBase64))
        let signature = try P256.Signing.ECDSASignature(derRepresentation: der)
        return key.publicKey.isValidSignature(signature, for: Data(payload.utf8))
    }

    @Test func theSignatureCoversApplesPayloadWithLowerCasedUsernameAndNonce() throws {
        let signer = OfferSigner(credentials: Self.credentials)
        let signed = try signer.promotionalSignature(
            productId: "com.example.monthly", offerIdentifier: "save-30", applicationUsername: "Alice.SMITH@Example.com",
            nonce: "D3F1A6C2-4B7E-4C1A-9F0E-1234567890AB", timestamp: 1_764_288_000_000)
        let payload =
            "com.example.app\u{2063}2X9R4HXF34\u{2063}com.example.monthly\u{2063}save-30\u{2063}alice.smith@example.com"
            + "\u{2063}d3f1a6c2-4b7e-4c1a-9f0e-1234567890ab\u{2063}1764288000000"
        #expect(try Self.verifies(signed.signature, payload: payload))
        // The same fields as given (not lower-cased) are not what was signed.
        let asGiven =
            "com.example.app\u{2063}2X9R4HXF34\u{2063}com.example.monthly\u{2063}save-30\u{2063}Alice.SMITH@Example.com"
            + "\u{2063}D3F1A6C2-4B7E-4C1A-9F0E-1234567890AB\u{2063}1764288000000"
        #expect(try !Self.verifies(signed.signature, payload: asGiven))
        #expect(signed.nonce == "d3f1a6c2-4b7e-4c1a-9f0e-1234567890ab")
        #expect(signed.keyIdentifier == "2X9R4HXF34")
        #expect(signed.timestamp == 1_764_288_000_000)
    }

    @Test func aDayOldTimestampIsSignedAsGivenAndAnEmptyUsernameKeepsItsSeparator() throws {
        let signer = OfferSigner(credentials: Self.credentials)
        let dayAgo = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) - 86_400_000
        let signed = try signer.promotionalSignature(
            productId: "com.example.yearly", offerIdentifier: "loyal", nonce: "0f0e0d0c-0b0a-4909-8807-060504030201",
            timestamp: dayAgo)
        let payload =
            "com.example.app\u{2063}2X9R4HXF34\u{2063}com.example.yearly\u{2063}loyal\u{2063}\u{2063}"
            + "0f0e0d0c-0b0a-4909-8807-060504030201\u{2063}\(dayAgo)"
        #expect(try Self.verifies(signed.signature, payload: payload))
        #expect(
            try !Self.verifies(signed.signature, payload: payload.replacingOccurrences(of: "\(dayAgo)", with: "\(dayAgo + 1)")))
    }

    @Test func aFreshNonceEachTime() {
        let nonces = Set((0..<50).map { _ in OfferSigner.makeNonce() })
        #expect(nonces.count == 50)
        #expect(nonces.allSatisfy { $0 == $0.lowercased() && UUID(uuidString: $0) != nil })
    }

    /// The header and claims as JSON objects, after checking the ES256 signature (r‖s).
    static func decode(_ jws: String, key: P256.Signing.PrivateKey = key) throws -> (header: [String: Any], claims: [String: Any])
    {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let raw = try #require(fromBase64URL(parts[2]))
        #expect(raw.count == 64)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: raw)
        #expect(key.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        let headerData = try #require(fromBase64URL(parts[0]))
        let claimsData = try #require(fromBase64URL(parts[1]))
        let header = try #require(try JSONSerialization.jsonObject(with: headerData) as? [String: Any])
        let claims = try #require(try JSONSerialization.jsonObject(with: claimsData) as? [String: Any])
        return (header, claims)
    }

    @Test func thePromotionalJWSCarriesApplesHeaderAndClaims() throws {
        let signer = OfferSigner(credentials: Self.credentials)
        let jws = try signer.promotionalJWS(
            productId: "com.example.monthly", offerIdentifier: "save-30", transactionId: "2000000123456789",
            nonce: "D3F1A6C2-4B7E-4C1A-9F0E-1234567890AB", issuedAt: Date(timeIntervalSince1970: 1_764_288_000.75))
        let (header, claims) = try Self.decode(jws)
        #expect(header.count == 3)
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "2X9R4HXF34")
        #expect(header["typ"] as? String == "JWT")
        #expect(claims.count == 8)
        #expect(claims["iss"] as? String == "57246542-96fe-1a63-e053-0824d011072a")
        #expect(claims["bid"] as? String == "com.example.app")
        #expect(claims["aud"] as? String == "promotional-offer")
        #expect((claims["iat"] as? NSNumber)?.int64Value == 1_764_288_000)
        #expect(claims["nonce"] as? String == "d3f1a6c2-4b7e-4c1a-9f0e-1234567890ab")
        #expect(claims["productId"] as? String == "com.example.monthly")
        #expect(claims["offerIdentifier"] as? String == "save-30")
        #expect(claims["transactionId"] as? String == "2000000123456789")
    }

    @Test func theEligibilityJWSSaysWhetherToOfferTheIntroductoryPrice() throws {
        let signer = OfferSigner(credentials: Self.credentials)
        let jws = try signer.introductoryEligibilityJWS(
            productId: "com.example.monthly", allowIntroductoryOffer: false, transactionId: "2000000123456789",
            nonce: "0f0e0d0c-0b0a-4909-8807-060504030201", issuedAt: Date(timeIntervalSince1970: 1_764_288_000))
        let (header, claims) = try Self.decode(jws)
        #expect(header["kid"] as? String == "2X9R4HXF34")
        #expect(claims["aud"] as? String == "introductory-offer-eligibility")
        #expect(claims["allowIntroductoryOffer"] as? Bool == false)
        // A JSON boolean, not the number 0.
        let claimsData = try #require(Self.fromBase64URL(jws.split(separator: ".")[1]))
        let claimsText = String(decoding: claimsData, as: UTF8.self)
        #expect(claimsText.contains("\"allowIntroductoryOffer\":false"))
        #expect(claims["productId"] as? String == "com.example.monthly")
        #expect(claims["transactionId"] as? String == "2000000123456789")
        #expect(claims["nonce"] as? String == "0f0e0d0c-0b0a-4909-8807-060504030201")
        #expect(claims["bid"] as? String == "com.example.app")
    }

    @Test func theCatalogueMapsEachFlagKindAndProductToAnOffer() throws {
        let text = """
            [offers.winBack]
            "com.example.monthly" = "winBack:wb-monthly-50"
            "group:21345678" = "promotional:come-back-30"
            "*" = "offerCode:SPRING"
            [offers.retention]
            "com.example.monthly" = "promotional:save-30"
            """
        let catalogue = try OfferCatalogue(ConfigFile(parsing: text, name: "c.toml"), path: "c.toml")
        #expect(
            catalogue.offer(for: .winBackOffer, productId: "com.example.monthly", group: "21345678")
                == .init(kind: .winBack, identifier: "wb-monthly-50"))
        #expect(
            catalogue.offer(for: .winBackOffer, productId: "com.example.yearly", group: "21345678")
                == .init(kind: .promotional, identifier: "come-back-30"))
        #expect(
            catalogue.offer(for: .winBackOffer, productId: "com.example.yearly", group: nil)
                == .init(kind: .offerCode, identifier: "SPRING"))
        #expect(catalogue.offer(for: .retention, productId: "com.example.yearly", group: nil) == nil)
        #expect(catalogue.offer(for: .loyalty, productId: "com.example.monthly", group: nil) == nil)
    }

    @Test func aBrokenCatalogueLineIsNamed() throws {
        #expect(
            throws: AppStoreAPIError("c.toml: [offers.winback2] is no flag kind (winBack, retention, upgrade, loyalty, service)")
        ) {
            try OfferCatalogue(ConfigFile(parsing: "[offers.winback2]\n\"p\" = \"winBack:x\"", name: "c.toml"), path: "c.toml")
        }
        #expect(
            throws: AppStoreAPIError(
                "c.toml: [offers.retention] p = \"save-30\": give the offer as promotional:ID, winBack:ID or offerCode:REFERENCE_NAME"
            )
        ) {
            try OfferCatalogue(ConfigFile(parsing: "[offers.retention]\n\"p\" = \"save-30\"", name: "c.toml"), path: "c.toml")
        }
    }
}
