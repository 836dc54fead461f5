import Crypto
import Foundation

/// What App Store Connect issues for the App Store Server API: the issuer id of the team, the id of
/// an In-App Purchase key and its `.p8` private key, and the app's bundle id. The private key is
/// held only to sign tokens; nothing here prints it.
public struct AppStoreCredentials: Sendable {
    public var issuerId: String
    public var keyId: String
    public var bundleId: String
    /// The key's raw scalar (swift-crypto's key type is not `Sendable`).
    private let privateKeyBytes: Data

    var privateKey: P256.Signing.PrivateKey {
        // The bytes came from a valid key.
        try! P256.Signing.PrivateKey(rawRepresentation: privateKeyBytes)
    }

    public init(issuerId: String, keyId: String, bundleId: String, privateKey: P256.Signing.PrivateKey) {
        self.issuerId = issuerId
        self.keyId = keyId
        self.bundleId = bundleId
        self.privateKeyBytes = privateKey.rawRepresentation
    }

    /// Reads the `.p8` file (PKCS #8 PEM, as App Store Connect gives it). Refuses a file that its
    /// group or others may read: whoever holds the key can read every customer's purchases.
    public init(issuerId: String, keyId: String, bundleId: String, privateKeyPath: String) throws(AppStoreAPIError) {
        var info = stat()
        guard stat(privateKeyPath, &info) == 0 else {
            throw AppStoreAPIError("private key \(privateKeyPath): \(String(cString: strerror(errno)))")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw AppStoreAPIError(
                "private key \(privateKeyPath) can be read by its group or others (mode \(String(mode, radix: 8))): "
                    + "run `chmod 600 \(privateKeyPath)`")
        }
        guard let pem = try? String(contentsOfFile: privateKeyPath, encoding: .utf8) else {
            throw AppStoreAPIError("private key \(privateKeyPath): cannot read the file")
        }
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw AppStoreAPIError(
                "private key \(privateKeyPath): not a PEM P-256 private key (the .p8 file App Store Connect gives)")
        }
        self.init(issuerId: issuerId, keyId: keyId, bundleId: bundleId, privateKey: key)
    }
}
