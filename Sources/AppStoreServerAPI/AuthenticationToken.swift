import Crypto
import Foundation
import JWTKit

/// The JSON Web Token every App Store Server API request carries (`Authorization: Bearer …`),
/// made with jwt-kit: header `alg ES256`, `kid`, `typ JWT`; claims `iss` (issuer id), `iat`,
/// `exp`, `aud "appstoreconnect-v1"` and `bid` (bundle id), signed with the In-App Purchase key.
/// Apple refuses a token that lives longer than 60 minutes.
public enum AuthenticationToken {
    public static let audience = "appstoreconnect-v1"
    /// How long a token is valid: well under Apple's limit, and one is made per request anyway.
    public static let lifetimeSeconds = 20 * 60

    /// The claims Apple asks for, under the names it gives them.
    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        var aud: AudienceClaim
        var bid: String

        func verify(using algorithm: some JWTAlgorithm) throws {
            try exp.verifyNotExpired()
        }
    }

    public static func make(_ credentials: AppStoreCredentials, issuedAt: Date = Date()) async throws -> String {
        // Whole seconds: Apple reads `iat` and `exp` as integers.
        let iat = Date(timeIntervalSince1970: issuedAt.timeIntervalSince1970.rounded(.down))
        let claims = Claims(
            iss: IssuerClaim(value: credentials.issuerId), iat: IssuedAtClaim(value: iat),
            exp: ExpirationClaim(value: iat.addingTimeInterval(Double(lifetimeSeconds))),
            aud: AudienceClaim(value: audience), bid: credentials.bundleId)
        let keys = JWTKeyCollection()
        let kid = JWKIdentifier(string: credentials.keyId)
        await keys.add(ecdsa: try ES256PrivateKey(backing: credentials.privateKey), kid: kid)
        var header = JWTHeader()
        header.typ = "JWT"
        return try await keys.sign(claims, kid: kid, header: header)
    }
}
