/// `docs/keybindings.md`, generated from ``KeyBindings/all`` so the doc cannot drift from the keys.
///
/// `subdash keys --markdown > docs/keybindings.md` writes it; a test fails when the committed
/// file differs from what this returns.
public enum KeyBindingsDocument {
    public static let path = "docs/keybindings.md"
    public static let regenerate = "swift run subdash keys --markdown > docs/keybindings.md"

    public static func markdown(_ bindings: [KeyBinding] = KeyBindings.all) -> String {
        var text = """
            # Dashboard keys

            Generated from `Sources/Dashboard/KeyBindings.swift` (the table the help bar and the `?` overlay are
            drawn from) by `subdash keys --markdown`; do not edit by hand. Regenerate with:

                \(regenerate)

            Keys marked *bar* are shown in the help bar at the bottom of the screen; `?` lists every key of
            the pane you are on. Keys marked *writes* change the store (through its audit log): `--read-only`
            hides them.

            `:plan upfront`, `:plan monthly` or `:plan all` (the default; `:plan` alone too) counts one billing
            plan, as `--plan` does: the Cohorts grid then shows that plan's members only (a member counts
            under its first paid period's plan), one plan at a time; the Money pane's MRR, revenue and
            offer uses that plan's periods; States & Events and Trends the states and events of that plan's
            periods (a state or event counts under the plan of the period it is about), and the list behind
            any of their figures that plan's subscriptions. The line under the tabs says `plan monthly`
            there, and `both plans here` on the panes that count both whatever `:plan` says (Offers, and
            Subscribers outside such a list).

            """
        text += section("Everywhere", bindings.filter { $0.panes == nil })
        for pane in Pane.allCases {
            let scoped = bindings.filter { $0.panes?.contains(pane) == true }
            if !scoped.isEmpty { text += section("\(pane.rawValue + 1) \(pane.title)", scoped) }
        }
        return text
    }

    /// One table; bindings that do the same thing (same description) share a row: `j` `down`.
    private static func section(_ title: String, _ bindings: [KeyBinding]) -> String {
        var rows: [(keys: [String], name: String, description: String, bar: Bool, writes: Bool)] = []
        for binding in bindings {
            let key = "`" + escaped(binding.chord.description) + "`"
            if let index = rows.firstIndex(where: { $0.description == binding.description && $0.name == binding.name }) {
                rows[index].keys.append(key)
                rows[index].bar = rows[index].bar || binding.shownInBar
            } else {
                rows.append(([key], binding.name, binding.description, binding.shownInBar, binding.writes))
            }
        }
        var text = "\n## \(title)\n\n| keys | name | what it does | in bar |\n|---|---|---|---|\n"
        for row in rows {
            let notes = [row.bar ? "bar" : nil, row.writes ? "writes" : nil].compactMap { $0 }.joined(separator: ", ")
            text += "| \(row.keys.joined(separator: " ")) | \(escaped(row.name)) | \(escaped(row.description)) | \(notes) |\n"
        }
        return text
    }

    private static func escaped(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
}
