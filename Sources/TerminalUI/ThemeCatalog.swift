import Foundation

/// Finds and loads themes by name or path.
///
/// Search order for a name: the user's directory (`$XDG_CONFIG_HOME/subdash/themes/NAME.theme`,
/// else `~/.config/subdash/themes/`), then the bundled `Themes/` directory, then the shipped
/// themes compiled into the binary (`default`, `high-contrast`, `light`, `mono`,
/// `solarized-dark`). A value containing `/` or ending in
/// `.theme` is a path and is loaded as it is. A broken file is an error, never replaced.
public struct ThemeCatalog: Sendable {
    /// The user's theme directory, searched first.
    public var userDirectory: String?
    /// The bundled `Themes/` directory, searched second.
    public var bundledDirectory: String?

    public init(userDirectory: String?, bundledDirectory: String?) {
        self.userDirectory = userDirectory
        self.bundledDirectory = bundledDirectory
    }

    /// The catalog for this process: the user directory from `environment`, and `themesDirectory`
    /// if given, else the first `Themes/` found walking up from the current directory and from the
    /// executable (so `.build/debug/subdash` finds the package's `Themes/`).
    public static func standard(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        themesDirectory: String? = nil,
        executablePath: String? = CommandLine.arguments.first,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) -> ThemeCatalog {
        var user: String?
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty {
            user = xdg + "/subdash/themes"
        } else if let home = environment["HOME"], !home.isEmpty {
            user = home + "/.config/subdash/themes"
        }
        var starts = [currentDirectory]
        if let executablePath {
            let absolute = executablePath.hasPrefix("/") ? executablePath : currentDirectory + "/" + executablePath
            starts.append((URL(fileURLWithPath: absolute).resolvingSymlinksInPath().path as NSString).deletingLastPathComponent)
        }
        let bundled = themesDirectory ?? starts.lazy.compactMap(findThemesDirectory(above:)).first
        return ThemeCatalog(userDirectory: user, bundledDirectory: bundled)
    }

    /// The nearest `Themes/` directory holding `default.theme` at or above `directory`.
    public static func findThemesDirectory(above directory: String) -> String? {
        var url = URL(fileURLWithPath: directory).standardizedFileURL
        while true {
            let candidate = url.appendingPathComponent("Themes")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("default.theme").path) {
                return candidate.path
            }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { return nil }
            url = parent
        }
    }

    // MARK: - Loading

    /// Loads a theme by name (`mono`) or path (`./my.theme`, `/x/y.theme`).
    public func load(_ nameOrPath: String) throws(ThemeError) -> Theme {
        if ThemeCatalog.isPath(nameOrPath) { return try ThemeCatalog.load(path: nameOrPath) }
        var searched: [String] = []
        for directory in [userDirectory, bundledDirectory].compactMap({ $0 }) {
            let path = directory + "/" + nameOrPath + ".theme"
            searched.append(path)
            if FileManager.default.fileExists(atPath: path) { return try ThemeCatalog.load(path: path) }
        }
        if let theme = ThemeCatalog.builtin(nameOrPath) { return theme }
        searched.append("the built-in themes (\(ThemeCatalog.builtinNames.joined(separator: ", ")))")
        throw .notFound(nameOrPath, searched: searched)
    }

    /// The names of the themes compiled into the binary, sorted.
    public static var builtinNames: [String] { BuiltinThemes.sources.keys.sorted() }

    /// A theme compiled into the binary, by name.
    public static func builtin(_ name: String) -> Theme? {
        if name == "default" { return Theme.builtinDefault }
        guard let source = BuiltinThemes.sources[name] else { return nil }
        do {
            return try ThemeParser.parse(source, file: "<built-in \(name).theme>")
        } catch {
            preconditionFailure("the built-in \(name) theme does not parse: \(error)")
        }
    }

    /// Loads and parses one theme file; diagnostics name it as given.
    public static func load(path: String) throws(ThemeError) -> Theme {
        let source: String
        do {
            source = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "not readable UTF-8 text" : "no such file"
            throw .unreadable(path: path, reason: reason)
        }
        return try ThemeParser.parse(source, file: path)
    }

    /// Whether the argument names a file rather than a theme.
    public static func isPath(_ nameOrPath: String) -> Bool {
        nameOrPath.contains("/") || nameOrPath.hasSuffix(".theme")
    }

    // MARK: - Listing

    /// A theme the catalog can load, with where it comes from.
    public struct Entry: Hashable, Sendable {
        public var name: String
        /// The file, or `nil` for a theme compiled into the binary.
        public var path: String?
    }

    /// Every theme by name, user themes shadowing bundled ones, bundled ones the built-in
    /// copies, sorted by name; the built-in themes are always present.
    public func entries() -> [Entry] {
        var byName: [String: Entry] = [:]
        for name in ThemeCatalog.builtinNames { byName[name] = Entry(name: name, path: nil) }
        for directory in [bundledDirectory, userDirectory].compactMap({ $0 }) {
            for path in ThemeCatalog.themeFiles(in: directory) {
                let name = String((path as NSString).lastPathComponent.dropLast(".theme".count))
                byName[name] = Entry(name: name, path: path)
            }
        }
        return byName.values.sorted { $0.name < $1.name }
    }

    /// The `*.theme` files directly in a directory, sorted.
    public static func themeFiles(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".theme") }.sorted().map { directory + "/" + $0 }
    }
}
