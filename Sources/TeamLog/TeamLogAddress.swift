import Foundation
import NIOSSL
import PostgresNIO

/// Where the team log is: a `postgres://` (or `postgresql://`) URL, from `--team` or `$SUBDASH_TEAM`.
///
///     postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=MODE&sslrootcert=FILE]
///     postgres://USER@/DATABASE?host=/run/postgresql          (a unix socket directory)
///
/// `sslmode` is `verify-full` (the default over TCP: the server's chain and name are checked),
/// `verify-ca` (the chain only), `require` (encrypted, nothing checked) or `disable`; a unix socket
/// never uses TLS. The password, also from `$PGPASSWORD`, never appears in ``description``, which is
/// the only form of the URL any message prints.
public struct TeamLogAddress: Sendable, CustomStringConvertible {
    public enum TLSMode: String, Sendable, CaseIterable {
        case disable, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var user: String
    public var password: String?
    /// A host name or address; nil with ``socketDirectory``.
    public var host: String?
    public var port: Int
    /// The directory holding the server's socket (`.s.PGSQL.PORT`), from `?host=/dir` or `/dir` as the host.
    public var socketDirectory: String?
    public var database: String
    public var tls: TLSMode
    public var rootCertificateFile: String?

    /// The environment variable read when `--team` is not given.
    public static let environmentVariable = "SUBDASH_TEAM"

    /// Parses `text`; the error message never repeats the password.
    public init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let components = URLComponents(string: trimmed),
            let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql"
        else {
            throw TeamLogError.address("the team log must be a postgres:// URL (postgres://USER@HOST:PORT/DATABASE)")
        }
        guard let user = components.user.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
            throw TeamLogError.address("the team log URL names no user (postgres://USER@HOST/DATABASE)")
        }
        self.user = user
        password = components.password.flatMap { $0.removingPercentEncoding } ?? environment["PGPASSWORD"]
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.isEmpty, !path.contains("/") else {
            throw TeamLogError.address("the team log URL names no database (postgres://USER@HOST/DATABASE)")
        }
        database = path.removingPercentEncoding ?? path
        port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw TeamLogError.address("the team log URL's port is out of range") }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard let value = item.value else { continue }
            query[item.name] = value
        }
        let known: Set = ["sslmode", "sslrootcert", "host"]
        if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
            throw TeamLogError.address(
                "the team log URL has an unknown option '\(Self.shown(unknown))' (known: host, sslmode, sslrootcert)")
        }
        let hostPart = (components.percentEncodedHost ?? "").removingPercentEncoding ?? ""
        if let directory = query["host"], directory.hasPrefix("/") {
            socketDirectory = directory
            host = nil
        } else if hostPart.hasPrefix("/") {
            socketDirectory = hostPart
            host = nil
        } else if !hostPart.isEmpty {
            host = hostPart
            socketDirectory = nil
        } else if let h = query["host"], !h.isEmpty {
            host = h
            socketDirectory = nil
        } else {
            throw TeamLogError.address("the team log URL names no host (postgres://USER@HOST/DATABASE, or ?host=/socket/dir)")
        }
        if let mode = query["sslmode"] {
            guard let parsed = TLSMode(rawValue: mode) else {
                throw TeamLogError.address(
                    "the team log URL's sslmode '\(Self.shown(mode))' is not one of "
                        + TLSMode.allCases.map(\.rawValue).joined(separator: ", "))
            }
            tls = parsed
        } else {
            tls = .verifyFull
        }
        rootCertificateFile = query["sslrootcert"]
        if let file = rootCertificateFile, !FileManager.default.isReadableFile(atPath: file) {
            throw TeamLogError.address("the team log URL's sslrootcert \(Self.shown(file)) cannot be read")
        }
    }

    /// `--team` when given, else `$SUBDASH_TEAM`; nil when neither is set.
    public static func resolve(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> TeamLogAddress?
    {
        if let option { return try TeamLogAddress(parsing: option, environment: environment) }
        if let value = environment[environmentVariable], !value.isEmpty {
            return try TeamLogAddress(parsing: value, environment: environment)
        }
        return nil
    }

    /// The URL as messages show it: the password replaced by `***`.
    public var description: String {
        let credentials = Self.shown(user) + (password == nil ? "" : ":***")
        let place: String
        if let socketDirectory {
            place = "\(credentials)@/\(Self.shown(database))?host=\(Self.shown(socketDirectory))"
        } else {
            let shownHost = (host ?? "").contains(":") ? "[\(host ?? "")]" : (host ?? "")
            place = "\(credentials)@\(Self.shown(shownHost)):\(port)/\(Self.shown(database))?sslmode=\(tls.rawValue)"
        }
        return "postgres://" + place
    }

    /// At most 80 characters of a value from the URL, in a message.
    static func shown(_ s: String) -> String { s.count > 80 ? String(s.prefix(80)) + "…" : s }

    /// PostgresNIO's configuration for this address.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        if let socketDirectory {
            return PostgresConnection.Configuration(
                unixSocketPath: socketDirectory + "/.s.PGSQL.\(port)", username: user, password: password,
                database: database)
        }
        let tlsSetting: PostgresConnection.Configuration.TLS
        switch tls {
        case .disable:
            tlsSetting = .disable
        case .require, .verifyCA, .verifyFull:
            var configuration = TLSConfiguration.makeClientConfiguration()
            switch tls {
            case .require: configuration.certificateVerification = .none
            case .verifyCA: configuration.certificateVerification = .noHostnameVerification
            default: configuration.certificateVerification = .fullVerification
            }
            if let rootCertificateFile { configuration.trustRoots = .file(rootCertificateFile) }
            do {
                tlsSetting = .require(try NIOSSLContext(configuration: configuration))
            } catch {
                throw TeamLogError.address("cannot set up TLS for \(description): \(error)")
            }
        }
        var configuration = PostgresConnection.Configuration(
            host: host ?? "", port: port, username: user, password: password, database: database, tls: tlsSetting)
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }
}

/// What went wrong with the team log, as one line that names the log by its sanitised URL.
public enum TeamLogError: Error, CustomStringConvertible, Sendable {
    case address(String)
    case unreachable(String)
    case refused(String)
    case schema(String)
    case integrity(String)

    public var description: String {
        switch self {
        case .address(let m), .unreachable(let m), .refused(let m), .schema(let m), .integrity(let m): m
        }
    }
}
