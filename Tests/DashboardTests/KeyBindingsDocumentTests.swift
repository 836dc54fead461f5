import Dashboard
import Foundation
import TestSupport
import Testing

@Suite struct KeyBindingsDocumentTests {
    @Test func committedDocMatchesTheTable() throws {
        let url = packageRoot.appendingPathComponent(KeyBindingsDocument.path)
        let generated = KeyBindingsDocument.markdown()
        let committed = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        #expect(
            committed == generated,
            "\(KeyBindingsDocument.path) is stale (the key table changed): regenerate it with `\(KeyBindingsDocument.regenerate)` and commit it"
        )
    }

    @Test func everyBindingIsInTheDoc() {
        let doc = KeyBindingsDocument.markdown()
        for binding in KeyBindings.all {
            #expect(doc.contains("`\(binding.chord.description.replacingOccurrences(of: "|", with: "\\|"))`"))
            #expect(doc.contains(binding.description))
        }
        // keys doing the same thing share a row
        #expect(doc.split(separator: "\n").contains { $0.contains("`↓` `j`") && $0.contains("Move down") })
    }
}
