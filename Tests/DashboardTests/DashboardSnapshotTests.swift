import Dashboard
import Foundation
import TerminalUI
import TestSupport
import Testing

/// Every pane as a whole screen through the real run loop and a ``TestBackend``, at 80×24 and
/// 120×40, in the `default` and `mono` themes: text and a per-cell style map (see ``Snapshot``).
@Suite struct DashboardSnapshots {
    /// A screen: the keys that reach it from the start.
    struct Screen: CustomStringConvertible, Sendable {
        var name: String
        var keys: [String]
        /// Subscriptions flagged for win-back (by alice, at as-of) before the dashboard starts.
        var flagged: [String] = []
        /// The store's transactions carry prices (`SampleStore` priced).
        var priced = false
        var description: String { name }
    }

    static let screens: [Screen] = [
        Screen(name: "subscribers", keys: ["j", "j", "space", "j"]),
        Screen(name: "subscribers-scrolled", keys: ["space"] + Array(repeating: "j", count: 20)),
        Screen(name: "subscriber", keys: ["j", "j", "j", "j", "enter"]),
        Screen(name: "subscriber-events", keys: ["j", "j", "j", "j", "enter", "e", "G"], flagged: ["5040"]),
        Screen(name: "subscriber-flag", keys: ["j", "j", "j", "j", "enter", "f"]),
        Screen(name: "cohorts", keys: ["3", "j", "l"]),
        Screen(name: "states-events", keys: ["4"]),
        Screen(name: "help", keys: ["?"]),
        Screen(
            name: "offers", keys: ["5", "<", "<", "space", "j", "j", "space", "l"], flagged: ["5000", "5010", "5020", "5030"]),
        Screen(name: "offers-confirm", keys: ["5", "<", "<", "g s", "F"], flagged: ["5000", "5010", "5020"]),
        Screen(name: "money", keys: ["6", "j", "s"], priced: true),
    ]

    struct Look: CustomStringConvertible, Sendable {
        var theme: String
        var width: Int
        var height: Int
        var description: String { "\(theme)-\(width)x\(height)" }
    }

    static let looks: [Look] = ["default", "mono"].flatMap { theme in
        [Look(theme: theme, width: 80, height: 24), Look(theme: theme, width: 120, height: 40)]
    }

    static func palette(_ theme: String) throws -> Palette {
        try ThemeCatalog.load(path: packageRoot.appendingPathComponent("Themes/\(theme).theme").path).palette(for: .truecolor)
    }

    @Test(arguments: screens, looks)
    func pane(_ screen: Screen, _ look: Look) throws {
        let palette = try Self.palette(look.theme)
        let runner = try SampleStore.runner(priced: screen.priced)
        try runner.analytics.database.setFlags(
            FlagWrite(offer: .winBackOffer, ids: screen.flagged, operatorName: "alice"), at: SampleStore.asOf)
        let session = DashboardSession(
            backend: TestBackend(width: look.width, height: look.height), runner: runner,
            palette: palette, state: AppState(asOf: SampleStore.asOf))
        session.apply(.start)
        session.settle()
        for chord in screen.keys {
            for key in try KeyChord(parsing: chord).keys { session.press(key) }
            session.settle()
        }
        session.draw()
        Snapshot.assertMatches(session.backend.screen, palette: palette, named: "\(screen.name)-\(look)")
    }

    @Test(arguments: ["default", "mono"])
    func tooSmall(_ theme: String) throws {
        let palette = try Self.palette(theme)
        for (width, height) in [(79, 24), (60, 20)] {
            let session = DashboardSession(
                backend: TestBackend(width: width, height: height), runner: try SampleStore.runner(),
                palette: palette, state: AppState(asOf: SampleStore.asOf))
            session.apply(.start)
            session.settle()
            session.draw()
            Snapshot.assertMatches(session.backend.screen, palette: palette, named: "too-small-\(theme)-\(width)x\(height)")
        }
    }
}
