import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Who a flag change is written as in the audit log.
public enum OperatorIdentity {
    /// `--operator NAME`, else `$USER`, else the login name of the user running subdash (from the
    /// password database: `$USER` is empty under cron, `env -i` and some containers); nil when
    /// none of them names anyone, and then nothing may be written.
    public static func resolve(
        option: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        loginName: () -> String? = OperatorIdentity.loginName
    ) -> String? {
        for candidate in [option, environment["USER"]] {
            if let name = candidate?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty { return name }
        }
        if let name = loginName()?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty { return name }
        return nil
    }

    /// The name of the real user id in the password database, if it has an entry.
    public static func loginName() -> String? {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }

    /// Why a write was refused when no identity was found.
    public static let missingMessage =
        "no operator identity: $USER is empty and the user id has no login name; pass --operator NAME"
}
