import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// Who a campaign member is: what outreach needs beside the subscription id.
public struct CampaignCustomer: Equatable, Sendable {
    public var email: String?
    public var userId: String?
    public var appAccountToken: String?

    public init(email: String?, userId: String?, appAccountToken: String?) {
        self.email = email
        self.userId = userId
        self.appAccountToken = appAccountToken
    }
}

/// One step of one funnel row: what `enter` lists.
public struct CampaignDrill: Hashable, Sendable {
    public var flag: OfferFlagKind
    public var offer: CampaignReport.Offer?
    public var step: CampaignReport.Step

    /// "promotional:save-30", or "none" when the catalogue has no offer for the flag.
    public var offerText: String { CampaignFunnel.offerText(offer) }
}

/// The Offers pane's campaigns (docs/metrics.md, "Campaigns"): the same figures as
/// `subdash report campaigns` over every flag set by as-of, with the members' customers.
public struct CampaignFunnel: Equatable, Sendable {
    public var report: CampaignReport
    /// By original transaction id, for every subscription of the report.
    public var customers: [String: CampaignCustomer]
    /// When each member's campaign started, by flag kind and subscription (its latest one).
    public var flaggedAt: [String: Instant]
    /// Flags set after as-of (today's flags on a store whose data ends earlier): not counted.
    public var setAfterAsOf: Int

    public init(
        report: CampaignReport, customers: [String: CampaignCustomer], flaggedAt: [String: Instant] = [:], setAfterAsOf: Int = 0
    ) {
        self.report = report
        self.customers = customers
        self.flaggedAt = flaggedAt
        self.setAfterAsOf = setAfterAsOf
    }

    /// The funnel's steps, in the order of its columns after the flag and the offer.
    public static let steps: [CampaignReport.Step] = [.flagged, .served, .redeemed, .converted, .lapsed]

    public static let columns = [
        "Flag", "Offer", "Flagged", "Served", "Redeemed", "Converted", "Lapsed", "Served %", "Redeem %", "Convert %", "Days",
        "P3", "P6",
    ]

    /// The funnel export's columns: `report campaigns --format csv`'s, less `pending`.
    public static let csvHeader = CampaignsOutput.csvHeader(.funnel)

    /// The step of funnel column `column`, nil on the flag, offer and rate columns.
    public static func step(column: Int) -> CampaignReport.Step? {
        steps.indices.contains(column - 2) ? steps[column - 2] : nil
    }

    static func offerText(_ offer: CampaignReport.Offer?) -> String {
        offer.map { "\($0.kind.rawValue):\($0.identifier)" } ?? "none"
    }

    static func key(_ flag: OfferFlagKind, _ offer: CampaignReport.Offer?) -> String {
        flag.rawValue + " " + offerText(offer)
    }

    /// The rows of `list`: the funnel, or the members of one of its steps.
    func rows(for list: OfferList) -> [OfferRow] {
        func rate(_ x: Double?) -> String { x.map { String(format: "%.1f%%", $0 * 100) } ?? "–" }
        switch list {
        case .campaigns:
            return report.rows.map { row in
                OfferRow(
                    id: Self.key(row.flag, row.offer), email: nil, productId: "", detail: "", flags: [],
                    values: [
                        row.flag.rawValue, Self.offerText(row.offer), CountText.grouped(row.flagged),
                        CountText.grouped(row.served),
                        CountText.grouped(row.redeemed), CountText.grouped(row.converted), CountText.grouped(row.lapsed),
                        rate(row.servedRate), rate(row.redemptionRate), rate(row.conversionRate),
                        row.timeToRedeemDays.map(String.init) ?? "–", rate(row.retention3), rate(row.retention6),
                    ],
                    exportValues: CampaignsOutput.csvCells(row, .funnel))
            }
        case .campaignMembers(let drill):
            guard let row = report.rows.first(where: { $0.flag == drill.flag && $0.offer == drill.offer }) else { return [] }
            var seen: Set<String> = []
            return (row.members[drill.step] ?? []).filter { seen.insert($0).inserted }.map { id in
                let customer = customers[id]
                let at = flaggedAt[drill.flag.rawValue + " " + id]?.iso8601 ?? ""
                return OfferRow(
                    id: id, email: customer?.email, productId: "", detail: "", flags: [drill.flag],
                    values: [id, customer?.email ?? "", customer?.userId ?? "", drill.flag.rawValue, drill.offerText, at],
                    exportValues: [id, drill.step.rawValue, drill.flag.rawValue, drill.offerText, at])
            }
        case .eligible, .flagged:
            return []
        }
    }
}

// MARK: - Loading, drilling

/// What the campaigns list asks for: every flag set by as-of.
func loadCampaigns(_ state: inout AppState) -> [Effect] {
    guard let asOf = state.asOf else { return [] }
    state.offers.campaignsLoading = true
    return [.loadCampaigns(asOf: asOf, catalogue: state.catalogueOffers)]
}

/// The funnel, when the campaigns list is shown and the one there is missing or read at another
/// as-of (new data, `:asof`), unless one is on its way.
func campaignsIfNeeded(_ state: inout AppState) -> [Effect] {
    guard state.offers.list.isCampaigns, !state.offers.campaignsLoading,
        state.offers.campaigns == nil || state.offers.campaigns?.report.asOf != state.asOf
    else { return [] }
    return loadCampaigns(&state)
}

func campaignsLoaded(_ state: inout AppState, _ funnel: CampaignFunnel) -> [Effect] {
    state.offers.campaignsLoading = false
    // Read at an as-of that has moved on since it was asked for: ask again.
    guard funnel.report.asOf == state.asOf else { return campaignsIfNeeded(&state) }
    state.offers.campaigns = funnel
    state.offers.refreshShown()
    return []
}

/// `enter` on the funnel: the subscriptions at the step under the column cursor (the flagged ones
/// on the flag and offer columns, and on the rates); `esc` comes back to the same cell.
func drillCampaign(_ state: inout AppState) -> [Effect] {
    guard let funnel = state.offers.campaigns, let selected = state.offers.selectedRow,
        let row = funnel.report.rows.first(where: { CampaignFunnel.key($0.flag, $0.offer) == selected.id })
    else { return [] }
    let step = CampaignFunnel.step(column: state.offers.column) ?? .flagged
    state.offers.funnelRow = state.offers.selected
    state.offers.funnelColumn = state.offers.column
    state.offers.list = .campaignMembers(CampaignDrill(flag: row.flag, offer: row.offer, step: step))
    state.offers.filter = nil
    state.offers.sort = nil
    state.offers.selected = 0
    state.offers.column = 0
    state.offers.refreshShown()
    if state.offers.shown.isEmpty {
        state.notice = "nobody at \(step.rawValue) for \(row.flag.rawValue) \(CampaignFunnel.offerText(row.offer))"
    }
    return []
}

/// `esc` on a step's members: the funnel, the cursor on the cell it left.
func leaveCampaignMembers(_ state: inout AppState) -> Bool {
    guard case .campaignMembers = state.offers.list else { return false }
    state.offers.list = .campaigns
    state.offers.filter = nil
    state.offers.sort = nil
    state.offers.refreshShown()
    state.offers.selected = clamp(state.offers.funnelRow, 0, max(0, state.offers.shown.count - 1))
    state.offers.column = clamp(state.offers.funnelColumn, 0, OfferList.campaigns.columns.count - 1)
    return true
}

/// The export of a campaign list: the funnel's figures, or the members with the customer's ids
/// (user id, email and appAccountToken, last as in every export).
func exportCampaigns(_ state: inout AppState) -> [Effect] {
    let list = state.offers.list
    guard !state.offers.shown.isEmpty else {
        state.notice = "nothing to export: the list is empty (no file written)"
        return []
    }
    let asOf = state.offers.campaigns?.report.asOf ?? state.asOf ?? Instant(milliseconds: 0)
    var stem = "offers-campaigns-\(asOf.isoDate)"
    var idColumn: Int?
    if case .campaignMembers(let drill) = list {
        stem += "-\(drill.flag.rawValue)-\(drill.step.rawValue)"
        idColumn = 0
    }
    return [
        .exportCSV(
            stem: stem, header: list.csvHeader, rows: state.offers.shown.map { $0.exportCells(for: list) }, idColumn: idColumn)
    ]
}

extension SubscriberAnalytics {
    /// The Offers pane's campaigns: every flag set by `asOf`, as `report campaigns` counts them,
    /// with each member's customer.
    func campaignFunnel(asOf: Instant, catalogue: CatalogueOffers?) throws -> CampaignFunnel {
        let offer = catalogue?.campaignOffer?() ?? { _, _, _ in nil }
        let report = try campaigns(from: Instant(milliseconds: 0), to: asOf.adding(milliseconds: 1), asOf: asOf, offer: offer)
        var customers: [String: CampaignCustomer] = [:]
        for row in report.rows {
            for id in row.members[.flagged] ?? [] where customers[id] == nil {
                let customer = try database.customer(of: id)
                customers[id] = CampaignCustomer(
                    email: customer.email, userId: customer.userId, appAccountToken: customer.appAccountToken)
            }
        }
        var flaggedAt: [String: Instant] = [:]
        var later = 0
        for line in try database.flagLog() where line.action == .set {
            if line.at <= asOf {
                flaggedAt[line.offer.rawValue + " " + line.originalTransactionId] = line.at
            } else {
                later += 1
            }
        }
        return CampaignFunnel(report: report, customers: customers, flaggedAt: flaggedAt, setAfterAsOf: later)
    }
}
