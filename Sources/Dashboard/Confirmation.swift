import SubscriberStore
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
    /// The flags `ids` already have (any offer): an earlier flag of the chosen offer is kept
    /// unless the operator asks to replace it (`r`).
    public var existing: [OfferFlag]
    /// `r` in the dialog: the earlier flags of the chosen offer give way to this one.
    public var replace = false

    public init(offer: OfferFlagKind, ids: [String], clear: Bool, hidden: Int = 0, existing: [OfferFlag] = []) {
        self.offer = offer
        self.ids = ids
        self.clear = clear
        self.hidden = hidden
        self.existing = existing.filter { Set(ids).contains($0.originalTransactionId) }
    }

    /// The catalogue's offers, when the dashboard has a catalogue.
    public var catalogue: CatalogueOffers? {
        didSet { nameCatalogueOffers() }
    }
    /// What the chosen offer means for `ids` by the catalogue (``CatalogueOffers``); none when clearing.
    public private(set) var catalogueLines: [String] = []

    mutating func nameCatalogueOffers() {
        catalogueLines = clear ? [] : catalogue?.lines(offer, ids) ?? []
    }

    /// Win-back: the offers Apple will present to each of `ids` that has a list, best first
    /// (docs/metrics.md, "Renewal details from Apple").
    public var appleOffers: [String: [String]] = [:]

    /// "Apple will present winback.half (then winback.month).": what the customer will see, so a
    /// flag can name the same offer; for several subscribers, how many have a list.
    var appleOfferLines: [String] {
        guard !clear, offer == .winBackOffer, !appleOffers.isEmpty else { return [] }
        if ids.count == 1, let list = appleOffers[ids[0]], let best = list.first {
            let rest = list.dropFirst().map(TextSanitizer.visible)
            return [
                "Apple will present \(TextSanitizer.visible(best))"
                    + (rest.isEmpty ? "." : " (then \(rest.joined(separator: ", "))).")
            ]
        }
        let counts = Dictionary(grouping: ids.compactMap { appleOffers[$0]?.first }, by: { $0 }).mapValues(\.count)
        let listed = counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map {
            "\(TextSanitizer.visible($0.key)) to \($0.value)"
        }
        return ["Apple will present " + listed.joined(separator: ", ") + " of them."]
    }

    /// The flags of the chosen offer already on `ids`, oldest first.
    public var alreadyFlagged: [OfferFlag] {
        existing.filter { $0.offer == offer }.sorted { ($0.at, $0.originalTransactionId) < ($1.at, $1.originalTransactionId) }
    }

    /// "already flagged by alice on 2025-11-20 …": whose flag stands in the way, and what enter does with it.
    var alreadyLines: [String] {
        let already = alreadyFlagged
        guard !clear, let first = already.first else { return [] }
        let who =
            "by \(TextSanitizer.visible(first.operatorName)) on \(first.at.isoDate)"
            + (first.note.map { " (note: \(TextSanitizer.visible($0)))" } ?? "")
        var lines: [String]
        if ids.count == 1 {
            lines = ["Already flagged for \(offer.rawValue) \(who)."]
        } else {
            let others = already.count > 1 ? " and \(already.count - 1) more" : ""
            lines = [
                "\(already.count) of them already flagged for \(offer.rawValue): \(first.originalTransactionId) \(who)\(others)."
            ]
        }
        lines.append(
            replace
                ? "Replacing the earlier flag\(already.count == 1 ? "" : "s") with yours (r: keep)."
                : "The earlier flag\(already.count == 1 ? " is" : "s are") kept (r: replace with yours).")
        return lines
    }

    /// "Flag 2 subscribers for winBack?"
    public var question: String {
        let noun = ids.count == 1 ? "subscriber" : "subscribers"
        return clear
            ? "Clear the \(offer.rawValue) flag on \(ids.count) \(noun)?" : "Flag \(ids.count) \(noun) for \(offer.rawValue)?"
    }

    public var dialog: Dialog {
        var lines = [question]
        if hidden > 0 { lines.append("(\(hidden) of them \(hidden == 1 ? "is" : "are") marked but not shown here)") }
        lines += alreadyLines
        lines += appleOfferLines
        lines += catalogueLines.map(TextSanitizer.visible)
        if let note { lines.append("Note: \(TextSanitizer.visible(note))") }
        let replaceKey = clear || alreadyFlagged.isEmpty ? "" : "r: \(replace ? "keep" : "replace") · "
        lines.append(
            "o: another offer · n: note · \(replaceKey)enter: \(clear ? "clear" : "flag") · esc: cancel")
        return Dialog(
            title: clear ? "Clear offer flag" : "Flag for an offer", message: lines.joined(separator: "\n"),
            buttons: clear ? ["Clear", "Keep"] : ["Flag", "Cancel"], selectedButton: selectedButton)
    }

    /// What a key does to the dialog: nil while it stays open, else whether it was confirmed.
    mutating func handle(_ event: KeyEvent) -> Bool? {
        if event.key == .char("o") || event.key == .char("O") {
            let all = OfferFlagKind.allCases
            let index = all.firstIndex(of: offer) ?? 0
            offer = all[(index + (event.key == .char("o") ? 1 : all.count - 1)) % all.count]
            nameCatalogueOffers()
            return nil
        }
        if event.key == .char("r"), !clear, !alreadyFlagged.isEmpty {
            replace.toggle()
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

/// `f` / `F` in `--read-only`: the notice says why no dialog opens (false).
func flagsAreWritable(_ state: inout AppState) -> Bool {
    guard state.readOnly else { return true }
    state.notice = "read-only: flags cannot be changed (\(state.readOnlyReason))"
    return false
}
