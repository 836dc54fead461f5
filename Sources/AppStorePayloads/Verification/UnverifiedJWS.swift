import Foundation

/// Reads a JWS payload without checking anything about its signature: the `--no-verify` path, and
/// the only way to read `Xcode` / `LocalTesting` data, which the App Store does not sign.
public struct UnverifiedJWS: SignatureVerifier {
    public init() {}

    public var verifiesSignatures: Bool { false }

    /// Splits the JWS and base64url-decodes its payload.
    public func payload(ofJWS jws: String) throws(PayloadError) -> Data {
        try JWS(compact: jws).payload()
    }
}
