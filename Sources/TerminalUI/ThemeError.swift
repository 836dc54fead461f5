/// One problem on one line of a theme file.
public struct ThemeDiagnostic: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `Themes/broken.theme:7: unknown colour "#12345g"`. The message quotes the file's own keys
    /// and words, and a theme file may come from anywhere: what a terminal would act on is
    /// taken out (sanitise: the visible form once there is one for every output).
    public var description: String { "\(TextSanitizer.strip(file)):\(line): \(TextSanitizer.strip(message))" }
}

/// Why a theme could not be used. A broken theme is reported, never silently replaced.
public enum ThemeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file has problems, one diagnostic per bad line.
    case invalid([ThemeDiagnostic])
    /// No theme by that name or path; `searched` lists where it was looked for.
    case notFound(String, searched: [String])
    /// The file exists but could not be read.
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .invalid(let diagnostics):
            return diagnostics.map(\.description).joined(separator: "\n")
        case .notFound(let name, let searched):
            return "theme \"\(name)\" not found (looked in: \(searched.joined(separator: ", ")))"
        case .unreadable(let path, let reason):
            return "\(path): cannot read theme: \(reason)"
        }
    }
}
