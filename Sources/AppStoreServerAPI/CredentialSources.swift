import Foundation

/// Where the App Store Server API credentials come from, first found wins: command-line flags,
/// then environment variables (`SUBDASH_ISSUER_ID`, `SUBDASH_KEY_ID`, `SUBDASH_BUNDLE_ID`,
/// `SUBDASH_PRIVATE_KEY`: the .p8 file's path, `SUBDASH_API_ENVIRONMENT`), then the `[appstore]`
/// section of the configuration file (``ConfigFile``).
public struct CredentialSources: Sendable {
    public var issuerId: String?
    public var keyId: String?
    public var bundleId: String?
    public var privateKeyPath: String?
    public var environment: AppStoreServerEnvironment?

    public init(
        issuerId: String? = nil, keyId: String? = nil, bundleId: String? = nil, privateKeyPath: String? = nil,
        environment: AppStoreServerEnvironment? = nil
    ) {
        self.issuerId = issuerId
        self.keyId = keyId
        self.bundleId = bundleId
        self.privateKeyPath = privateKeyPath
        self.environment = environment
    }

    public static func fromEnvironment(_ env: [String: String]) throws(AppStoreAPIError) -> CredentialSources {
        func value(_ name: String) -> String? { env[name].flatMap { $0.isEmpty ? nil : $0 } }
        return CredentialSources(
            issuerId: value("SUBDASH_ISSUER_ID"), keyId: value("SUBDASH_KEY_ID"),
            bundleId: value("SUBDASH_BUNDLE_ID"), privateKeyPath: value("SUBDASH_PRIVATE_KEY"),
            environment: try environmentNamed(value("SUBDASH_API_ENVIRONMENT"), from: "SUBDASH_API_ENVIRONMENT"))
    }

    /// The keys of the configuration file's `[appstore]` section.
    public static let configKeys = ["issuer_id", "key_id", "bundle_id", "private_key", "environment"]

    /// Why the configuration file gives no credential at all, or nil when it gives one.
    public static func nothingUsable(in file: ConfigFile) -> String? {
        file.nothingUsable(section: "appstore", keys: configKeys)
    }

    public static func fromConfig(_ file: ConfigFile, path: String) throws(AppStoreAPIError) -> CredentialSources {
        func value(_ key: String) -> String? { file.values["appstore." + key].flatMap { $0.isEmpty ? nil : $0 } }
        var keyPath = value("private_key")
        // `~/` is the home directory; another relative path is relative to the configuration file.
        if let p = keyPath, p.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] {
            keyPath = home + "/" + p.dropFirst(2)
        } else if let p = keyPath, !p.hasPrefix("/") {
            keyPath = (path as NSString).deletingLastPathComponent + "/" + p
        }
        return CredentialSources(
            issuerId: value("issuer_id"), keyId: value("key_id"), bundleId: value("bundle_id"),
            privateKeyPath: keyPath, environment: try environmentNamed(value("environment"), from: "\(path): environment"))
    }

    static func environmentNamed(_ name: String?, from source: String) throws(AppStoreAPIError) -> AppStoreServerEnvironment? {
        guard let name else { return nil }
        guard let environment = AppStoreServerEnvironment(rawValue: name.lowercased()) else {
            throw AppStoreAPIError("\(source): \(name) is neither production nor sandbox")
        }
        return environment
    }

    /// Each field from the first source that has it.
    public static func merged(_ sources: [CredentialSources]) -> CredentialSources {
        CredentialSources(
            issuerId: sources.lazy.compactMap(\.issuerId).first, keyId: sources.lazy.compactMap(\.keyId).first,
            bundleId: sources.lazy.compactMap(\.bundleId).first,
            privateKeyPath: sources.lazy.compactMap(\.privateKeyPath).first,
            environment: sources.lazy.compactMap(\.environment).first)
    }

    /// The credentials, or one message naming everything missing and where it can be given.
    public func credentials() throws(AppStoreAPIError) -> AppStoreCredentials {
        var missing: [String] = []
        if issuerId == nil { missing.append("issuer id (--issuer-id, SUBDASH_ISSUER_ID, issuer_id)") }
        if keyId == nil { missing.append("key id (--key-id, SUBDASH_KEY_ID, key_id)") }
        if bundleId == nil { missing.append("bundle id (--bundle-id, SUBDASH_BUNDLE_ID, bundle_id)") }
        if privateKeyPath == nil { missing.append("private key file (--private-key, SUBDASH_PRIVATE_KEY, private_key)") }
        guard let issuerId, let keyId, let bundleId, let privateKeyPath, missing.isEmpty else {
            throw AppStoreAPIError(
                "App Store Server API credentials missing: " + missing.joined(separator: "; ")
                    + ". Give them as flags, environment variables, or in the [appstore] section of "
                    + (ConfigFile.defaultPath() ?? "$XDG_CONFIG_HOME/subdash/config.toml"))
        }
        return try AppStoreCredentials(issuerId: issuerId, keyId: keyId, bundleId: bundleId, privateKeyPath: privateKeyPath)
    }
}
