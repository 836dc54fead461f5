import AppStorePayloads
import ArgumentParser
import Foundation

/// `--trust-root PEM` and `--no-verify`, shared by every command that stores signed documents.
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
