import SubscriptionModel
import TerminalUI

/// A flag change waiting for the operator's yes: the dialog `f` and `F` open.
public struct Confirmation: Equatable, Sendable {
    public var offer: OfferFlagKind
    /// The subscriptions it applies to, sorted.
    public var ids: [String]
    public var clear: Bool
    /// How many of `ids` the current view does not show (marked, then filtered away or in another list).
    public var hidden: Int
    /// A note to keep with the flags (`n` in the dialog).
    public var note: String?
    public var selectedButton = 0

    public init(offer: OfferFlagKind, ids: [String], clear: Bool, hidden: Int = 0) {
        self.offer = offer
        self.ids = ids
        self.clear = clear
        self.hidden = hidden
    }

    /// "Flag 2 subscribers for winBack?"
    public var question: String {
        let noun = ids.count == 1 ? "subscriber" : "subscribers"
        return clear ? "Clear the \(offer.rawValue) flag on \(ids.count) \(noun)?" : "Flag \(ids.count) \(noun) for \(offer.rawValue)?"
    }

    public var dialog: Dialog {
        var lines = [question]
        if hidden > 0 { lines.append("(\(hidden) of them \(hidden == 1 ? "is" : "are") marked but not shown here)") }
        if let note { lines.append("Note: \(TextSanitizer.visible(note))") }
        lines.append("o: another offer · \(clear ? "" : "n: note · ")enter: \(clear ? "clear" : "flag") · esc: cancel")
        return Dialog(title: clear ? "Clear offer flag" : "Flag for an offer", message: lines.joined(separator: "\n"),
                      buttons: clear ? ["Clear", "Keep"] : ["Flag", "Cancel"], selectedButton: selectedButton)
    }

    /// What a key does to the dialog: nil while it stays open, else whether it was confirmed.
    mutating func handle(_ event: KeyEvent) -> Bool? {
        if event.key == .char("o") || event.key == .char("O") {
            let all = OfferFlagKind.allCases
            let index = all.firstIndex(of: offer) ?? 0
            offer = all[(index + (event.key == .char("o") ? 1 : all.count - 1)) % all.count]
            return nil
        }
        var dialog = dialog
        switch dialog.handle(event) {
        case .pending:
            selectedButton = dialog.selectedButton
            return nil
        case .chosen(let button): return button == 0
        case .cancelled: return false
        }
    }
}
