/// Parses `Themes/*.theme` files.
///
/// ```
/// # comment
/// name      = "Default dark"
/// text      = "#d0d0d0/252/white"
/// selection = "fg=#000000/16/black bg=#5fafff/75/cyan bold mono=reverse"
/// ```
///
/// - A line is blank, a `#` comment, or `key = "value"` (a trailing `# comment` is allowed).
/// - `name` sets the display name; every other key must be a ``ThemeRole`` and may appear once.
/// - A value is words separated by spaces:
///   - `fg=COLOURS` or bare `COLOURS`: the foreground; `bg=COLOURS`: the background;
///   - `COLOURS` is alternatives best first joined by `/`: `#rrggbb` (truecolor), `0`–`255`
///     (xterm palette), an ANSI name (`black` … `white`, `bright-black` … `bright-white`, `grey`),
///     or `default` (the terminal's own colour);
///   - `bold`, `dim`, `italic`, `underline`, `reverse`;
///   - `mono=ATTR+ATTR` (or `mono=none`): the attributes to use instead when colours are off.
/// - An empty value `""` is the terminal's default style.
/// - Roles the file leaves out take the `base` theme's spec (the built-in default).
public enum ThemeParser {
    /// Parses theme source. `file` names it in diagnostics; every bad line is reported at once.
    public static func parse(_ source: String, file: String, base: Theme? = Theme.builtinDefault) throws(ThemeError) -> Theme {
        var diagnostics: [ThemeDiagnostic] = []
        var name: String?
        var specs: [ThemeRole: StyleSpec] = [:]
        var firstLine: [String: Int] = [:]

        for (offset, rawLine) in source.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let lineNumber = offset + 1
            func report(_ message: String) { diagnostics.append(ThemeDiagnostic(file: file, line: lineNumber, message: message)) }

            let line = rawLine.trimmingCharacters(in: " \t\r")
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                report("expected key = \"value\"")
                continue
            }
            let key = line[..<equals].trimmingCharacters(in: " \t")
            let rest = line[line.index(after: equals)...].trimmingCharacters(in: " \t")
            guard !key.isEmpty else {
                report("missing key before \"=\"")
                continue
            }
            guard let value = quotedValue(rest) else {
                report("value of \"\(key)\" must be in double quotes, with only a # comment after it")
                continue
            }
            if let first = firstLine[key] {
                report("\"\(key)\" is set twice (first on line \(first))")
                continue
            }
            firstLine[key] = lineNumber
            if key == "name" {
                name = value
                continue
            }
            guard let role = ThemeRole(rawValue: key) else {
                let hint = closestRole(to: key).map { " (did you mean \"\($0.rawValue)\"?)" } ?? ""
                report("unknown role \"\(key)\"\(hint)")
                continue
            }
            switch parseSpec(value) {
            case .success(let spec): specs[role] = spec
            case .failure(let problem): report(problem.message)
            }
        }
        if !diagnostics.isEmpty { throw .invalid(diagnostics) }
        if let base {
            for role in ThemeRole.allCases where specs[role] == nil { specs[role] = base.spec(for: role) }
        }
        return Theme(name: name ?? stem(of: file), specs: specs)
    }

    // MARK: - Values

    struct Problem: Error { var message: String }

    /// Parses the inside of a value's quotes into a spec.
    static func parseSpec(_ value: String) -> Result<StyleSpec, Problem> {
        var spec = StyleSpec()
        var sawForeground = false
        var sawBackground = false
        for word in value.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            if let attribute = attribute(named: word) {
                spec.attributes.insert(attribute)
            } else if word.hasPrefix("fg=") || word.hasPrefix("bg=") {
                let isBackground = word.hasPrefix("bg=")
                if isBackground ? sawBackground : sawForeground {
                    return .failure(Problem(message: "\(isBackground ? "background" : "foreground") given twice"))
                }
                switch colours(String(word.dropFirst(3))) {
                case .success(let list):
                    if isBackground {
                        spec.background = list
                        sawBackground = true
                    } else {
                        spec.foreground = list
                        sawForeground = true
                    }
                case .failure(let problem): return .failure(problem)
                }
            } else if word.hasPrefix("mono=") {
                guard spec.mono == nil else { return .failure(Problem(message: "mono= given twice")) }
                let names = word.dropFirst(5)
                var attributes: Attributes = []
                if names != "none" {
                    for part in names.split(separator: "+", omittingEmptySubsequences: false) {
                        guard let attribute = attribute(named: String(part)) else {
                            return .failure(
                                Problem(
                                    message:
                                        "unknown attribute \"\(part)\" in mono= (use bold, dim, italic, underline, reverse or none)"
                                ))
                        }
                        attributes.insert(attribute)
                    }
                }
                spec.mono = attributes
            } else if looksLikeColour(word) {
                if sawForeground { return .failure(Problem(message: "foreground given twice")) }
                switch colours(word) {
                case .success(let list):
                    spec.foreground = list
                    sawForeground = true
                case .failure(let problem): return .failure(problem)
                }
            } else {
                return .failure(
                    Problem(
                        message:
                            "unknown word \"\(word)\" (expected colours, fg=…, bg=…, bold, dim, italic, underline, reverse or mono=…)"
                    ))
            }
        }
        return .success(spec)
    }

    /// `#5fafff/75/cyan` → three alternatives.
    static func colours(_ list: String) -> Result<[Color], Problem> {
        var result: [Color] = []
        for alternative in list.split(separator: "/", omittingEmptySubsequences: false).map(String.init) {
            switch colour(alternative) {
            case .success(let color): result.append(color)
            case .failure(let problem): return .failure(problem)
            }
        }
        return .success(result)
    }

    static func colour(_ text: String) -> Result<Color, Problem> {
        if text == "default" { return .success(.default) }
        if text.hasPrefix("#") {
            let hex = text.dropFirst()
            guard hex.count == 6, let value = UInt32(hex, radix: 16) else {
                return .failure(Problem(message: "unknown colour \"\(text)\" (hex colours are #rrggbb)"))
            }
            return .success(.rgb(UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)))
        }
        if let digits = Int(text), text.allSatisfy(\.isASCII) {
            guard (0...255).contains(digits) else {
                return .failure(Problem(message: "colour index \(digits) is out of range 0…255"))
            }
            return .success(.indexed(UInt8(digits)))
        }
        if let named = NamedColor(themeName: text) { return .success(.named(named)) }
        return .failure(Problem(message: "unknown colour \"\(text)\""))
    }

    /// A bare word that is not an attribute is read as colours when it could plausibly be one,
    /// so a typo such as `#12345g` or `bright-cyn` gets the colour message.
    private static func looksLikeColour(_ word: String) -> Bool {
        word.contains("/") || word.hasPrefix("#") || word.first?.isNumber == true
            || word == "default" || word.hasPrefix("bright") || NamedColor(themeName: word) != nil
    }

    private static func attribute(named name: String) -> Attributes? {
        Attributes.named.first { $0.name == name }?.attribute
    }

    /// The text between the double quotes, when the rest of the line is `"…"` plus an optional comment.
    private static func quotedValue(_ rest: String) -> String? {
        guard rest.first == "\"" else { return nil }
        let body = rest.dropFirst()
        guard let close = body.firstIndex(of: "\"") else { return nil }
        let after = body[body.index(after: close)...].trimmingCharacters(in: " \t")
        guard after.isEmpty || after.hasPrefix("#") else { return nil }
        return String(body[..<close])
    }

    private static func stem(of file: String) -> String {
        let last = file.split(separator: "/").last.map(String.init) ?? file
        return last.hasSuffix(".theme") ? String(last.dropLast(6)) : last
    }

    // MARK: - Suggestions

    private static func closestRole(to key: String) -> ThemeRole? {
        let scored = ThemeRole.allCases.map { ($0, editDistance(key.lowercased(), $0.rawValue.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, key.count / 3) else { return nil }
        return best.0
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension StringProtocol {
    /// This text without the given characters at either end (Foundation-free).
    func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        guard let start = firstIndex(where: { !characters.contains($0) }) else { return "" }
        let end = lastIndex(where: { !characters.contains($0) })!
        return String(self[start...end])
    }
}
