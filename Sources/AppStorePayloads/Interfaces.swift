import Foundation
import SubscriptionModel

/// Why one document was rejected. `reason` is one line a user can act on; the importer prefixes
/// it with the file and the line or array index.
public struct PayloadError: Error, Equatable, CustomStringConvertible, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Checks a compact JWS (`header.payload.signature`) and returns its decoded payload bytes.
/// Implementations throw `PayloadError` naming what was wrong (bad signature, wrong `alg`,
/// untrusted chain, missing Apple OID, expired certificate at `signedDate`, …).
public protocol SignatureVerifier: Sendable {
    func payload(ofJWS jws: String) throws(PayloadError) -> Data
    /// True when signatures are actually checked (false for `--no-verify`).
    var verifiesSignatures: Bool { get }
}
