import Crypto
import Foundation

/// The JSON Web Token every App Store Server API request carries (`Authorization: Bearer …`):
/// header `alg ES256`, `kid`, `typ JWT`; claims `iss` (issuer id), `iat`, `exp`, `aud
/// "appstoreconnect-v1"` and `bid` (bundle id), signed with the In-App Purchase key. Apple refuses
/// a token that lives longer than 60 minutes.
public enum AuthenticationToken {
    public static let audience = "appstoreconnect-v1"
    /// How long a token is valid: well under Apple's limit, and one is made per request anyway.
    public static let lifetimeSeconds = 20 * 60

    public static func make(_ credentials: AppStoreCredentials, issuedAt: Date = Date()) throws -> String {
        let iat = Int(issuedAt.timeIntervalSince1970)
        let header = try json(["alg": "ES256", "kid": credentials.keyId, "typ": "JWT"])
        let claims = try json([
            "iss": credentials.issuerId, "iat": iat, "exp": iat + lifetimeSeconds, "aud": audience, "bid": credentials.bundleId,
        ] as [String: Any])
        let signingInput = base64URL(header) + "." + base64URL(claims)
        // JWS wants the raw r ‖ s form of the ECDSA signature, not DER.
        let signature = try credentials.privateKey.signature(for: Data(signingInput.utf8)).rawRepresentation
        return signingInput + "." + base64URL(signature)
    }

    static func json(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
