import AppStorePayloads
import ArgumentParser
import Foundation
import SubscriberStore
import SubscriptionModel

/// How v2 signatures are checked (`--trust-root`, `--no-verify`), shared by every command that
/// stores signed documents (`import`, `listen`, `fetch`).
struct VerificationOptions: ParsableArguments {
    @Option(name: .customLong("trust-root"), help: "A PEM root certificate to trust besides Apple Root CA G3 (repeatable).")
    var trustRoots: [String] = []
    @Flag(name: .customLong("no-verify"), help: "Do not verify v2 signatures (Xcode / LocalTesting data).")
    var noVerify = false

    func validate() throws {
        for root in trustRoots where !FileManager.default.fileExists(atPath: root) {
            throw ValidationError("--trust-root \(root): no such file")
        }
    }

    func verifier() throws -> any SignatureVerifier {
        if noVerify { return UnverifiedJWS() }
        var pems: [String] = []
        for path in trustRoots {
            guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw CLIError("--trust-root \(path): cannot read the file", code: 2)
            }
            pems.append(pem)
        }
        do {
            return try AppleJWSVerifier(additionalRootsPEM: pems)
        } catch {
            throw CLIError("--trust-root: \(error.reason)", code: 2)
        }
    }
}

/// Which app's documents a store takes and how unsigned v1 notifications are trusted
/// (`--shared-secret`, `--bundle-id`, `--app-apple-id`), shared by `import` and `listen`.
struct AppTrustOptions: ParsableArguments {
    @Option(
        name: .customLong("shared-secret"),
        help:
            "The app's shared secret (default: $SUBDASH_SHARED_SECRET): v1 notifications whose password matches are trusted as Apple's, others are rejected."
    )
    var sharedSecret: String?
    @Option(
        name: .customLong("bundle-id"),
        help: "The app this store holds; signed documents for another app are rejected (default: the first signed document's).")
    var bundleId: String?
    @Option(name: .customLong("app-apple-id"), help: "The app's Apple id, checked like --bundle-id.")
    var appAppleId: Int64?

    func validate() throws {
        if appAppleId != nil && bundleId == nil { throw ValidationError("--app-apple-id needs --bundle-id") }
    }

    /// `--shared-secret`, else `$SUBDASH_SHARED_SECRET`.
    var sharedSecretValue: String? { sharedSecret ?? ProcessInfo.processInfo.environment["SUBDASH_SHARED_SECRET"] }

    /// Records `--bundle-id` (and `--app-apple-id`) as the store's app, when given.
    func recordApp(in database: AppDatabase) throws {
        guard let bundleId else { return }
        do {
            try database.recordStoreApp(AppIdentity(bundleId: bundleId, appAppleId: appAppleId))
        } catch {
            throw CLIError("--bundle-id: \(error)")
        }
    }
}
