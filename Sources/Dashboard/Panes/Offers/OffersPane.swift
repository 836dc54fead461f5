import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

/// What pane 5 loads: every eligibility list at as-of and the current flags.
public struct OfferBoard: Equatable, Sendable {
    public var asOf: Instant
    public var eligible: [EligibleSubscriber]
    public var flags: [OfferFlag]
    /// The customer's email of each flagged subscription that has one.
    public var flagEmails: [String: String]

    public init(asOf: Instant, eligible: [EligibleSubscriber], flags: [OfferFlag], flagEmails: [String: String] = [:]) {
        self.asOf = asOf
        self.eligible = eligible
        self.flags = flags
        self.flagEmails = flagEmails
    }
}

/// Pane 5's lists on their way after its first screen: the as-of and scope they are asked at, and
/// the offers whose whole list has come.
public struct OfferStream: Equatable, Sendable {
    public var asOf: Instant
    public var scope: ReportScope
    /// The offers read together, one background query each group: win-back reads the runs ended
    /// lately, the others one pass over the live segments (and service the billing failures).
    public static let groups: [[OfferFlagKind]] = [[.winBackOffer], [.retention, .upgrade, .loyalty, .service]]
    /// The groups to ask for, the one holding `list` first (its first screen grows whole soonest).
    static func groups(first list: OfferList) -> [[OfferFlagKind]] {
        guard case .eligible(let kind) = list, let index = groups.firstIndex(where: { $0.contains(kind) }) else { return groups }
        return [groups[index]] + groups.enumerated().filter { $0.offset != index }.map(\.element)
    }

    /// Each offer's whole list, once come.
    public var lists: [OfferFlagKind: [EligibleSubscriber]] = [:]
    /// The first screen's rows (of one offer's list), shown until that whole list comes.
    public var first: [EligibleSubscriber]

    /// How far along, in percent of the groups come.
    public var percent: Int {
        let done = Self.groups.filter { $0.allSatisfy { lists[$0] != nil } }.count
        return done * 100 / Self.groups.count
    }

    public var isComplete: Bool { OfferFlagKind.allCases.allSatisfy { lists[$0] != nil } }

    /// The rows known now, in the order of the full board: each offer's whole list, or its first rows.
    var eligible: [EligibleSubscriber] {
        OfferFlagKind.allCases.flatMap { kind in lists[kind] ?? first.filter { $0.offer == kind } }
    }
}

/// The lists pane 5 switches between: one per offer kind, the flagged subscribers, then the
/// campaigns' funnel; `enter` on a funnel step lists the subscriptions at that step.
public enum OfferList: Hashable, Sendable, CaseIterable {
    case eligible(OfferFlagKind)
    case flagged
    case campaigns
    /// The subscriptions at one step of one funnel row (not a tab: reached by `enter`).
    case campaignMembers(CampaignDrill)

    public static let allCases: [OfferList] = OfferFlagKind.allCases.map(OfferList.eligible) + [.flagged, .campaigns]

    public var title: String {
        switch self {
        case .eligible(let kind): kind.rawValue
        case .flagged: "flagged"
        case .campaigns: "campaigns"
        case .campaignMembers(let drill): "campaigns › \(drill.step.rawValue) · \(drill.flag.rawValue) \(drill.offerText)"
        }
    }

    /// The funnel or its members: the subscriptions are not eligibility rows.
    public var isCampaigns: Bool {
        switch self {
        case .campaigns, .campaignMembers: true
        case .eligible, .flagged: false
        }
    }

    public var columns: [String] {
        switch self {
        case .eligible: ["Subscription", "Email", "Product", "Why", "Flags"]
        case .flagged: ["Subscription", "Email", "Offers", "Operator", "Flagged at", "Note"]
        case .campaigns: CampaignFunnel.columns
        case .campaignMembers: ["Subscription", "Email", "User id", "Flag", "Offer", "Flagged at"]
        }
    }

    /// The exported file's header: the columns in camelCase, but the email, which comes with the
    /// customer's other ids last in every export (``OfferRow/exportCells(for:)``).
    public var csvHeader: [String] {
        switch self {
        case .eligible: ["originalTransactionId", "productId", "why", "flags"]
        case .flagged: ["originalTransactionId", "offers", "operator", "flaggedAt", "note"]
        case .campaigns: CampaignFunnel.csvHeader
        case .campaignMembers: ["originalTransactionId", "step", "flag", "offer", "flaggedAt"]
        }
    }
}

/// One row of an offer list: a subscription, why it is there and its current flags.
public struct OfferRow: Hashable, Sendable {
    public var id: String
    /// The customer's email (who the offer would go to).
    public var email: String?
    public var productId: String
    /// Why it is eligible, or the flag's note.
    public var detail: String
    /// The offers it is flagged for now.
    public var flags: [OfferFlagKind]
    /// Who flagged it and when (the latest flag), on the flagged list.
    public var flaggedBy: String?
    public var flaggedAt: Instant?
    /// The cells of a campaign list's row (the funnel's figures, a member's ids), as shown.
    public var values: [String]?
    /// The cells of a campaign list's row as exported (``OfferList/csvHeader``).
    public var exportValues: [String]?

    /// " · Apple offers winback.a, winback.b": the win-back offers Apple will present, best first,
    /// beside why the row is eligible ("" when Apple lists none).
    static func appleOffers(_ ids: [String]) -> String {
        ids.isEmpty ? "" : " · Apple offers " + ids.joined(separator: ", ")
    }

    /// The cells for `list`'s columns, as shown and as exported.
    public func cells(for list: OfferList) -> [String] {
        let offers = flags.map(\.rawValue).joined(separator: " ")
        switch list {
        case .eligible: return [id, email ?? "", productId, detail, offers]
        case .flagged: return [id, email ?? "", offers, flaggedBy ?? "", flaggedAt?.iso8601 ?? "", detail]
        case .campaigns, .campaignMembers: return values ?? []
        }
    }

    /// The cells for `list`'s ``OfferList/csvHeader``: as shown, less the email (an export adds
    /// the customer's ids and email last, as every export does).
    public func exportCells(for list: OfferList) -> [String] {
        if list.isCampaigns { return exportValues ?? [] }
        var cells = cells(for: list)
        cells.remove(at: 1)
        return cells
    }
}

/// A sort on one column of the shown list.
public struct OfferSort: Equatable, Sendable {
    public var column: Int
    public var ascending: Bool

    public init(column: Int, ascending: Bool) {
        self.column = column
        self.ascending = ascending
    }
}

/// Pane 5's state. `shown` is derived from the board, the list, the filter and the sort each time one
/// of them changes (never per frame); the cursor and the marks are ids, so they survive all four.
/// What the keys ask of pane 5: its own intents, handled in OffersUpdate.swift.
public enum OffersIntent: Equatable, Sendable {
    /// `j` / `k` and the other row keys: the cursor `delta` rows down or up.
    case move(Int)
    /// `h` / `l`: the column under the cursor (what `[`, `]`, `|` and `\` act on).
    case moveColumn(Int)
    /// `enter`: the subscriber under the cursor on pane 2; on the funnel, the subscribers at the column's step.
    case open
    /// `space`, `s`, `u`, `t`: mark, unmark or toggle the cursor row (then move down).
    case mark(MarkOperation)
    /// `g s`, `g u`, `g t`, `ctrl-\`: every shown row.
    case markAll(MarkOperation)
    /// `ctrl-space`: the rows from the last marked one to the cursor.
    case markRange
    /// `|` / `\`: ask for a regular expression, then mark (true) or unmark the shown rows whose cell
    /// in the cursor's column matches it.
    case markMatching(Bool)
    /// `}` / `{`: the next (1) or previous (-1) marked row.
    case jumpToMark(Int)
    /// `f`: flag the marked rows, or the cursor row, after a confirm dialog.
    case flag
    /// `F`: clear a flag on them, after a confirm dialog.
    case clearFlag
    /// `ctrl-s`: the shown rows as CSV.
    case export
    /// `>` / `<`: the next or previous list.
    case cycleList(Int)
    /// `[` / `]`: sort by the column under the cursor.
    case sort(ascending: Bool)
    /// `/`: the filter line, the rows filtered as it is typed.
    case filter
}

public struct OffersPane: Equatable, Sendable {
    /// On a first visit, the first screen's rows until the stream has brought every list.
    public var board: OfferBoard?
    /// The lists still on their way (the title shows how far); nil once the board is whole.
    public var stream: OfferStream?
    public var loading = false
    public var list: OfferList = .eligible(.winBackOffer)
    /// Case-insensitive text every shown row contains in one of its cells.
    public var filter: String?
    public var sort: OfferSort?
    /// The column under the cursor (what `[` and `]` sort by).
    public var column = 0
    public private(set) var shown: [OfferRow] = []
    public var selected = 0
    /// Marked subscriptions by original transaction id.
    public var marks: Set<String> = []
    /// The last row marked: where `ctrl-space` starts its range.
    public var lastMark: String?
    /// The campaigns' funnel (``OfferList/campaigns``), loaded when that list is first shown.
    public var campaigns: CampaignFunnel?
    public var campaignsLoading = false
    /// The funnel row and step column the cursor was on before `enter` listed its members.
    public var funnelRow = 0
    public var funnelColumn = 0

    /// The offer last flagged or cleared, proposed again where the list does not say which.
    public var lastOffer: OfferFlagKind = .winBackOffer

    /// How many rows the first query reads: more than a screen holds.
    public var firstScreenRows = 200

    public init() {}

    public var selectedRow: OfferRow? { shown.indices.contains(selected) ? shown[selected] : nil }

    /// Rows per list (before the filter), for the list selector; counted once per load, not per frame.
    public private(set) var counts: [OfferList: Int] = [:]

    public func count(of list: OfferList) -> Int { counts[list] ?? 0 }

    /// Whether `list` is whole, so its count is known (not while it is streamed).
    public func isCounted(_ list: OfferList) -> Bool { (board != nil || list == .campaigns) && counts[list] != nil }

    /// Recomputes `shown` (and the counts), keeping the cursor on the same subscription when it is still shown.
    public mutating func refreshShown() {
        let cursorId = selectedRow?.id
        counts = [:]
        if let board {
            for kind in OfferFlagKind.allCases where stream == nil || stream?.lists[kind] != nil { counts[.eligible(kind)] = 0 }
            for row in board.eligible where counts[.eligible(row.offer)] != nil { counts[.eligible(row.offer), default: 0] += 1 }
            counts[.flagged] = Set(board.flags.map(\.originalTransactionId)).count
        }
        if let campaigns { counts[.campaigns] = campaigns.report.rows.count }
        shown =
            list.isCampaigns
            ? OffersPane.filtered(campaigns?.rows(for: list) ?? [], list: list, filter: filter, sort: sort)
            : OffersPane.rows(board: board, list: list, filter: filter, sort: sort)
        if let cursorId, let index = shown.firstIndex(where: { $0.id == cursorId }) {
            selected = index
        } else {
            selected = clamp(selected, 0, max(0, shown.count - 1))
        }
        column = clamp(column, 0, list.columns.count - 1)
    }

    static func rows(board: OfferBoard?, list: OfferList, filter: String?, sort: OfferSort?) -> [OfferRow] {
        guard let board else { return [] }
        var flagsById: [String: [OfferFlag]] = [:]
        for flag in board.flags { flagsById[flag.originalTransactionId, default: []].append(flag) }
        func kinds(_ id: String) -> [OfferFlagKind] {
            let set = Set((flagsById[id] ?? []).map(\.offer))
            return OfferFlagKind.allCases.filter(set.contains)
        }
        var rows: [OfferRow]
        switch list {
        case .eligible(let kind):
            rows = board.eligible.filter { $0.offer == kind }.map {
                OfferRow(
                    id: $0.originalTransactionId, email: $0.email, productId: $0.productId,
                    detail: $0.detail + OfferRow.appleOffers($0.appleOfferIds),
                    flags: kinds($0.originalTransactionId))
            }
        case .flagged:
            // Flags come newest first: the first one of a subscription is its latest.
            var seen: Set<String> = []
            rows = []
            for flag in board.flags where seen.insert(flag.originalTransactionId).inserted {
                let notes = (flagsById[flag.originalTransactionId] ?? []).compactMap(\.note)
                rows.append(
                    OfferRow(
                        id: flag.originalTransactionId, email: board.flagEmails[flag.originalTransactionId], productId: "",
                        detail: notes.joined(separator: "; "),
                        flags: kinds(flag.originalTransactionId), flaggedBy: flag.operatorName, flaggedAt: flag.at))
            }
        case .campaigns, .campaignMembers:
            rows = []
        }
        return filtered(rows, list: list, filter: filter, sort: sort)
    }

    private static func ungrouped(_ cell: String, _ list: OfferList) -> String {
        list == .campaigns ? cell.replacingOccurrences(of: ",", with: "") : cell
    }

    /// `rows` with the filter and the sort applied.
    static func filtered(_ rows: [OfferRow], list: OfferList, filter: String?, sort: OfferSort?) -> [OfferRow] {
        var rows = rows
        if let filter, !filter.isEmpty {
            rows = rows.filter { row in row.cells(for: list).contains { $0.range(of: filter, options: .caseInsensitive) != nil } }
        }
        if let sort, list.columns.indices.contains(sort.column) {
            // Stable, by the column's text compared as people read numbers (`9` before `10`), ties by id.
            rows = rows.enumerated().sorted { a, b in
                // The funnel's counts are grouped ("1,234"): compared without the separators.
                let x = ungrouped(a.element.cells(for: list)[sort.column], list)
                let y = ungrouped(b.element.cells(for: list)[sort.column], list)
                let order = x.compare(y, options: [.numeric, .caseInsensitive])
                if order == .orderedSame { return a.offset < b.offset }
                return sort.ascending == (order == .orderedAscending)
            }.map(\.element)
        }
        return rows
    }
}

extension OffersPane: DashboardPane {
    static let title = "Offers"
    static var loadingFlag: WritableKeyPath<AppState, Bool> { \.offers.loading }

    static func rows(_ delta: Int) -> Action? { .offers(.move(delta)) }

    static func isEmpty(_ state: AppState) -> Bool { state.offers.board == nil }

    static func load(_ state: inout AppState, asOf: Instant) -> [Effect] {
        state.offers.loading = true
        // The campaigns list reads its funnel again with the lists (a flag written, a new as-of).
        let campaigns = state.offers.list.isCampaigns ? loadCampaigns(&state) : []
        // A board already shown stays until the new one replaces it whole; a first visit draws the
        // first screen at once and streams the rest.
        guard state.offers.board == nil else { return [.loadOffers(asOf: asOf, scope: state.scope)] + campaigns }
        return [.loadOffersFirst(asOf: asOf, scope: state.scope, list: state.offers.list, limit: state.offers.firstScreenRows)]
            + campaigns
    }

    static func refresh(_ state: inout AppState, asOf: Instant) -> [Effect] {
        // Marks are ids and the cursor follows its id: both survive the new board.
        [.loadOffers(asOf: asOf, scope: state.scope)] + (state.offers.list.isCampaigns ? loadCampaigns(&state) : [])
    }

    static func invalidate(_ state: inout AppState) {
        state.offers.board = nil
        state.offers.stream = nil
        state.offers.refreshShown()
    }

    /// `esc`: the filter goes first, then a campaign step's members give way to the funnel.
    static func back(_ state: inout AppState) -> Bool {
        if state.offers.filter != nil {
            state.offers.filter = nil
            state.offers.refreshShown()
            return true
        }
        return leaveCampaignMembers(&state)
    }

    static func render(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
        renderOffers(state, in: area, buffer: &buffer, palette: palette)
    }
}
