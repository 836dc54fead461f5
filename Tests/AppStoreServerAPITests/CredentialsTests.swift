import Crypto
import Foundation
import TestSupport
import Testing

@testable import AppStoreServerAPI

/// Where credentials come from, and the key file's protection.
@Suite struct CredentialsTests {
    static func writeKey(mode: mode_t) throws -> String {
        let path = TemporaryDirectory.uniquePath("AuthKey.p8")
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, mode)
        return path
    }

    @Test func aKeyFileReadableByOthersIsRefusedWithTheFix() throws {
        let path = try Self.writeKey(mode: 0o644)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(
            throws: AppStoreAPIError("private key \(path) can be read by its group or others (mode 644): run `chmod 600 \(path)`")
        ) {
            try AppStoreCredentials(issuerId: "i", keyId: "k", bundleId: "b", privateKeyPath: path)
        }
        chmod(path, 0o600)
        #expect(try AppStoreCredentials(issuerId: "i", keyId: "k", bundleId: "b", privateKeyPath: path).keyId == "k")
    }

    @Test func aFileThatIsNotAKeyIsRefusedWithoutShowingIt() throws {
        let path = try Self.writeKey(mode: 0o600)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "secret-looking text".write(toFile: path, atomically: false, encoding: .utf8)
        do {
            _ = try AppStoreCredentials(issuerId: "i", keyId: "k", bundleId: "b", privateKeyPath: path)
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains("not a PEM P-256 private key"))
            #expect(!error.message.contains("secret"))
        }
    }

    @Test func theConfigFileIsReadFromItsAppstoreSection() throws {
        let text = """
            # subdash
            [appstore]
            issuer_id = "57246542-96fe"   # the team
            key_id = '2X9R4HXF34'
            bundle_id = "com.example.app"
            private_key = "keys/AuthKey.p8"
            environment = "sandbox"
            """
        let file = try ConfigFile(parsing: text, name: "/home/me/.config/subdash/config.toml")
        let sources = try CredentialSources.fromConfig(file, path: "/home/me/.config/subdash/config.toml")
        #expect(sources.issuerId == "57246542-96fe")
        #expect(sources.keyId == "2X9R4HXF34")
        #expect(sources.privateKeyPath == "/home/me/.config/subdash/keys/AuthKey.p8")
        #expect(sources.environment == .sandbox)
    }

    @Test func aBrokenConfigLineIsNamed() {
        #expect(throws: AppStoreAPIError("config.toml:2: the value of key_id must be a quoted string")) {
            try ConfigFile(parsing: "[appstore]\nkey_id = 2X9R4HXF34\n", name: "config.toml")
        }
    }

    @Test func flagsWinOverTheEnvironmentWhichWinsOverTheFile() throws {
        let flags = CredentialSources(keyId: "from-flag")
        let env = try CredentialSources.fromEnvironment(["SUBDASH_KEY_ID": "from-env", "SUBDASH_ISSUER_ID": "env-issuer"])
        let file = CredentialSources(issuerId: "file-issuer", keyId: "from-file", bundleId: "file-bundle")
        let merged = CredentialSources.merged([flags, env, file])
        #expect(merged.keyId == "from-flag")
        #expect(merged.issuerId == "env-issuer")
        #expect(merged.bundleId == "file-bundle")
        do {
            _ = try merged.credentials()
            Issue.record("accepted without a key")
        } catch {
            #expect(
                error.message.hasPrefix(
                    "App Store Server API credentials missing: private key file (--private-key, SUBDASH_PRIVATE_KEY, private_key)"
                ))
        }
    }

    @Test func theDefaultConfigPathFollowsXDG() {
        #expect(ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/subdash/config.toml")
        #expect(ConfigFile.defaultPath(environment: ["HOME": "/h"]) == "/h/.config/subdash/config.toml")
    }

    @Test func crlfLineEndingsAreLineEndings() throws {
        let text = "# Windows\r\n[appstore]\r\nissuer_id = \"i\"\r\nkey_id = 'k'   # the key\r\n\r\nenvironment = \"sandbox\"\r\n"
        let file = try ConfigFile(parsing: text, name: "config.toml")
        #expect(file.values == ["appstore.issuer_id": "i", "appstore.key_id": "k", "appstore.environment": "sandbox"])
        #expect(throws: AppStoreAPIError("config.toml:3: the value of key_id must be a quoted string")) {
            try ConfigFile(parsing: "[appstore]\r\n\r\nkey_id = k\r\n", name: "config.toml")
        }
    }

    @Test(
        arguments: [
            ("", "it sets nothing (no [appstore] section with issuer_id, key_id, bundle_id, private_key, environment)"),
            (
                "# only a comment\n",
                "it sets nothing (no [appstore] section with issuer_id, key_id, bundle_id, private_key, environment)"
            ),
            ("[App Store]\nkey_id = \"k\"\n", "it has no [appstore] section (it has [App Store])"),
            ("key_id = \"k\"\n", "it has no [appstore] section (it has key_id before any section)"),
            (
                "[appstore]\nissuerId = \"i\"\nkeyid = \"k\"\n",
                "its [appstore] section sets none of issuer_id, key_id, bundle_id, private_key, environment (it sets issuerId, keyid)"
            ),
            ("[appstore]\nkey_id = \"\"\n", "its [appstore] section leaves key_id empty"),
            ("[appstore]\nenvironment = \"sandbox\"\n", nil),
        ] as [(String, String?)])
    func aConfigFileThatGivesNothingSaysWhy(text: String, why: String?) throws {
        let file = try ConfigFile(parsing: text, name: "config.toml")
        #expect(CredentialSources.nothingUsable(in: file) == why)
    }
}
