import Foundation

/// The server `subdash fetch` talks to, and what chose it. Every request carries the bearer token
/// made with the team's In-App Purchase key, so the base must be https; plain http is allowed only
/// to this machine's loopback (127.0.0.0/8, ::1, localhost), where a test server listens.
public struct APIBase: Sendable, Equatable {
    public var url: String
    /// What chose it: `--api-base`, `SUBDASH_API_BASE`, or the environment (`production`, `sandbox`).
    public var source: String

    /// Apple's host for `environment`.
    public init(environment: AppStoreServerEnvironment) {
        url = environment.baseURL
        source = environment.rawValue
    }

    /// A base given by hand (`source` names the flag or variable), refused unless it is https or
    /// plain http to loopback.
    public init(_ url: String, source: String) throws(AppStoreAPIError) {
        func refuse(_ why: String) -> AppStoreAPIError { AppStoreAPIError("\(source) \(url): \(why)") }
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            let host = parts.host, !host.isEmpty
        else { throw refuse("not a URL with a scheme and a host (https://host[:port][/path])") }
        guard parts.query == nil, parts.fragment == nil, parts.user == nil, parts.password == nil else {
            throw refuse("a base URL has no user, password, query or fragment")
        }
        switch scheme {
        case "https": break
        case "http" where Self.isLoopback(host): break
        case "http":
            throw refuse(
                "refused: every request carries the bearer token, which plain http would send in clear; "
                    + "use https (plain http only to loopback: 127.0.0.1, ::1, localhost)")
        default:
            throw refuse("the scheme must be https (or http to loopback)")
        }
        self.url = url
        self.source = source
    }

    /// 127.0.0.0/8, ::1 or localhost: the connection never leaves this machine.
    static func isLoopback(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { $0.count <= 3 && UInt8($0) != nil }
    }
}
