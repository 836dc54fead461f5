import Foundation
import TestSupport
import Testing

@testable import TerminalUI

@Suite struct ThemeFilesTests {
    static let files = ThemeCatalog.themeFiles(in: themesDirectory)

    @Test func theShippedThemesAreThere() {
        let names = Set(Self.files.map { ($0 as NSString).lastPathComponent })
        #expect(
            names.isSuperset(of: ["default.theme", "light.theme", "mono.theme", "high-contrast.theme", "solarized-dark.theme"]))
    }

    @Test(arguments: files)
    func everyThemeFileParsesAndSetsEveryRole(path: String) throws {
        let source = try String(contentsOfFile: path, encoding: .utf8)
        let theme = try ThemeParser.parse(source, file: path, base: nil)
        let missing = ThemeRole.allCases.filter { theme.specs[$0] == nil }
        #expect(missing.isEmpty, "\(path) leaves out \(missing.map(\.rawValue))")
        #expect(source.contains("# Syntax"), "\(path) documents the syntax at the top")
    }

    @Test func monoThemeIsAttributesOnly() throws {
        let theme = try ThemeCatalog.load(path: themesDirectory + "/mono.theme")
        for role in ThemeRole.allCases {
            #expect(theme.spec(for: role).foreground.isEmpty && theme.spec(for: role).background.isEmpty, "\(role)")
        }
    }

    @Test func builtinDefaultIsTheShippedDefault() throws {
        let file = try String(contentsOfFile: themesDirectory + "/default.theme", encoding: .utf8)
        #expect(BuiltinThemes.defaultSource == file.trimmingCharacters(in: .newlines))
        #expect(try ThemeCatalog.load(path: themesDirectory + "/default.theme").specs == Theme.builtinDefault.specs)
    }

    /// Every shipped theme is compiled into the binary, word for word, so `--theme light` works
    /// outside the checkout.
    @Test func everyShippedThemeIsBuiltIn() throws {
        let shipped = ThemeCatalog.themeFiles(in: themesDirectory)
        #expect(ThemeCatalog.builtinNames == shipped.map { String(($0 as NSString).lastPathComponent.dropLast(6)) })
        for path in shipped {
            let name = String((path as NSString).lastPathComponent.dropLast(6))
            let file = try String(contentsOfFile: path, encoding: .utf8)
            #expect(BuiltinThemes.sources[name] == file.trimmingCharacters(in: .newlines), "\(name)")
            #expect(try ThemeCatalog.builtin(name)?.specs == ThemeCatalog.load(path: path).specs, "\(name)")
        }
        let bare = ThemeCatalog(userDirectory: "/nonexistent/themes", bundledDirectory: nil)
        #expect(try bare.load("light").name == "Light")
        #expect(
            throws: ThemeError.notFound(
                "nope",
                searched: [
                    "/nonexistent/themes/nope.theme",
                    "the built-in themes (default, high-contrast, light, mono, solarized-dark)",
                ])
        ) { try bare.load("nope") }
    }

    @Test func catalogSearchesUserDirectoryThenBundledThenBuiltin() throws {
        let directory = try TemporaryDirectory("themes")
        defer { directory.remove() }
        let user = directory.path
        try "name = \"Mine\"\n".write(toFile: user + "/mono.theme", atomically: true, encoding: .utf8)
        try "text = \"#zzzzzz\"\n".write(toFile: user + "/broken.theme", atomically: true, encoding: .utf8)

        let catalog = ThemeCatalog(userDirectory: user, bundledDirectory: themesDirectory)
        #expect(try catalog.load("mono").name == "Mine")
        #expect(try catalog.load("light").name == "Light")
        #expect(try catalog.load(themesDirectory + "/light.theme").name == "Light")
        #expect(
            throws: ThemeError.invalid([
                ThemeDiagnostic(
                    file: user + "/broken.theme", line: 1, message: "unknown colour \"#zzzzzz\" (hex colours are #rrggbb)")
            ])
        ) {
            try catalog.load("broken")
        }
        #expect(
            throws: ThemeError.notFound(
                "nope",
                searched: [
                    user + "/nope.theme", themesDirectory + "/nope.theme",
                    "the built-in themes (default, high-contrast, light, mono, solarized-dark)",
                ])
        ) {
            try catalog.load("nope")
        }
        let bare = ThemeCatalog(userDirectory: nil, bundledDirectory: nil)
        #expect(try bare.load("default") == Theme.builtinDefault)
        #expect(bare.entries() == ThemeCatalog.builtinNames.map { ThemeCatalog.Entry(name: $0, path: nil) })
        #expect(catalog.entries().first { $0.name == "mono" }?.path == user + "/mono.theme")
    }

    @Test func standardCatalogFindsThemesAboveTheExecutable() {
        let catalog = ThemeCatalog.standard(
            environment: ["XDG_CONFIG_HOME": "/cfg"],
            executablePath: packagePath(".build/debug/subdash"),
            currentDirectory: "/")
        #expect(catalog.userDirectory == "/cfg/subdash/themes")
        #expect(catalog.bundledDirectory == themesDirectory)
    }
}
