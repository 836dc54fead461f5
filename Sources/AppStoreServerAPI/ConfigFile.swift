import Foundation

/// subdash's configuration file, `$XDG_CONFIG_HOME/subdash/config.toml` (else
/// `~/.config/subdash/config.toml`). It is TOML, of which subdash reads the simple part it needs:
/// `# comments`, `[section]` headers and `key = "string"` (or `'literal'`) lines, ended by LF or
/// CRLF (as an editor on Windows saves them). The credentials live in the `[appstore]` section:
///
///     [appstore]
///     issuer_id = "57246542-96fe-1a63-e053-0824d011072a"
///     key_id = "2X9R4HXF34"
///     bundle_id = "com.example.app"
///     private_key = "/home/me/.config/subdash/AuthKey_2X9R4HXF34.p8"
///     environment = "production"   # or "sandbox"
public struct ConfigFile: Sendable, Equatable {
    /// `section.key` → value (`key` alone for keys before any section).
    public var values: [String: String]

    public init(values: [String: String] = [:]) { self.values = values }

    /// The default location, from the environment.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty { return xdg + "/subdash/config.toml" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/subdash/config.toml" }
        return nil
    }

    public init(contentsOf path: String) throws(AppStoreAPIError) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw AppStoreAPIError("\(path): cannot read the file")
        }
        try self.init(parsing: text, name: path)
    }

    public init(parsing text: String, name: String) throws(AppStoreAPIError) {
        var values: [String: String] = [:]
        var section = ""
        // By newline characters, not by "\n": in a Swift string "\r\n" is one character, so a file
        // with CRLF endings split on "\n" would be one line.
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            func fail(_ why: String) -> AppStoreAPIError { AppStoreAPIError("\(name):\(index + 1): \(why)") }
            if line.hasPrefix("[") {
                guard let close = line.firstIndex(of: "]") else { throw fail("a section header needs a closing ]") }
                section = line[line.index(after: line.startIndex)..<close].trimmingCharacters(in: .whitespaces)
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { throw fail("expected key = \"value\"") }
            var key = line[..<equals].trimmingCharacters(in: .whitespaces)
            // A quoted key (`"com.example.monthly" = …` under [offers.KIND]) may hold dots.
            if key.count >= 2, key.hasPrefix("\""), key.hasSuffix("\"") {
                key = String(key.dropFirst().dropLast())
                guard !key.isEmpty, !key.contains("\"") && !key.contains("\\") else {
                    throw fail("a quoted key is a product id without quotes or backslashes")
                }
            } else {
                guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                    throw fail("a key is letters, digits, _ and -")
                }
            }
            var rest = Substring(line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces))
            guard let quote = rest.first, quote == "\"" || quote == "'" else {
                throw fail("the value of \(key) must be a quoted string")
            }
            rest = rest.dropFirst()
            var value = ""
            var closed = false
            while let c = rest.first {
                rest = rest.dropFirst()
                if c == quote {
                    closed = true
                    break
                }
                if c == "\\" && quote == "\"" {
                    guard let escaped = rest.first else { break }
                    rest = rest.dropFirst()
                    switch escaped {
                    case "\"": value.append("\"")
                    case "\\": value.append("\\")
                    case "n": value.append("\n")
                    case "t": value.append("\t")
                    default: throw fail("unsupported escape \\\(escaped) in \(key)")
                    }
                    continue
                }
                value.append(c)
            }
            guard closed else { throw fail("the value of \(key) has no closing \(quote)") }
            let after = rest.trimmingCharacters(in: .whitespaces)
            guard after.isEmpty || after.hasPrefix("#") else { throw fail("unexpected text after the value of \(key)") }
            values[section.isEmpty ? key : section + "." + key] = value
        }
        self.values = values
    }

    /// Why the file gives none of `keys` in `[section]` (an empty value counts as unset), or nil
    /// when it gives at least one: "it has no [appstore] section (it has [app_store])".
    public func nothingUsable(section: String, keys: [String]) -> String? {
        let prefix = section + "."
        if keys.contains(where: { values[prefix + $0].map { !$0.isEmpty } ?? false }) { return nil }
        let known = keys.joined(separator: ", ")
        let inSection = values.keys.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }.sorted()
        if !inSection.isEmpty {
            let empty = inSection.filter { keys.contains($0) }
            if !empty.isEmpty { return "its [\(section)] section leaves \(empty.joined(separator: ", ")) empty" }
            return "its [\(section)] section sets none of \(known) (it sets \(inSection.joined(separator: ", ")))"
        }
        let outside = values.keys.filter { !$0.contains(".") }.sorted()
        let sections = Set(values.keys.compactMap { key in key.firstIndex(of: ".").map { String(key[..<$0]) } }).sorted()
        var found: [String] = []
        if !outside.isEmpty { found.append("\(outside.joined(separator: ", ")) before any section") }
        if !sections.isEmpty { found.append(sections.map { "[\($0)]" }.joined(separator: ", ")) }
        if found.isEmpty { return "it sets nothing (no [\(section)] section with \(known))" }
        return "it has no [\(section)] section (it has \(found.joined(separator: " and ")))"
    }
}
