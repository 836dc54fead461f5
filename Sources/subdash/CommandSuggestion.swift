import ArgumentParser

/// A mistyped subcommand (`subdash reprot states`) would otherwise reach the dashboard, the default
/// command, and print its usage: name the nearest subcommand instead.
enum CommandSuggestion {
    /// The refusal for `arguments` (without the program name), or nil when they name real commands
    /// all the way down (or stop at an option or at a command that takes arguments).
    static func message(for arguments: [String], root: any ParsableCommand.Type = Subdash.self) -> String? {
        var command = root
        var path = [root._commandName]
        for argument in arguments {
            if argument.hasPrefix("-") { return nil }
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty else { return nil }
            // `_commandName` is the name the parser uses: the configured one, else from the type (`Check` → `check`).
            if let next = subcommands.first(where: { $0._commandName == argument }) {
                command = next
                path.append(argument)
                continue
            }
            if argument == "help" { return nil }
            let names = subcommands.map { $0._commandName }
            let nearest = names.min { distance(argument, $0) < distance(argument, $1) }
            var text = "`\(argument)` is not a \(path.joined(separator: " ")) command"
            if let nearest, distance(argument, nearest) <= max(2, nearest.count / 2) {
                text += "; did you mean `\(path.joined(separator: " ")) \(nearest)`?"
            }
            return text + " (commands: \(names.joined(separator: ", ")))"
        }
        return nil
    }

    /// Levenshtein distance, with a swap of two neighbouring letters counted as one edit (`reprot`).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased())
        let b = Array(b.lowercased())
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
