import ReportOutputs
import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// What `enter` acts on in pane 6.
public enum MoneyFocus: Equatable, Sendable {
    /// The MRR movement bar under the cursor (`h`/`l`).
    case movement
    /// The offer row under the cursor (`j`/`k`).
    case offers
}

extension MoneyPane {
    /// The bar under the cursor: the chosen month, else the latest.
    public var shownBar: Int? {
        guard let buckets = figures?.movement?.buckets, !buckets.isEmpty else { return nil }
        return clamp(bar ?? buckets.count - 1, 0, buckets.count - 1)
    }

    /// The movement bridge of the bar under the cursor in the shown currency (nil: no MRR in it in these months).
    public var selectedMovement: MRRMovement.Row? {
        guard let movement = figures?.movement, let bar = shownBar, let currency = shownCurrency else { return nil }
        let bucket = movement.buckets[bar]
        return movement.rows.first { $0.bucket == bucket && $0.currency == currency }
    }

    /// MRR at each shown month's end (as-of for the last) in the shown currency, as a line.
    func mrrLineModel(store: String) -> ChartModel? {
        guard let figures, let currency = shownCurrency, let line = figures.mrrLine(in: currency) else { return nil }
        let months = figures.shownMonths
        return ChartModel(
            title: "MRR at each month's end, \(currency)", labels: months.map(\.description),
            incomplete: [months.count - 1],
            series: [
                ChartModel.Series(
                    name: "MRR", kind: .line, values: line.map { Double($0) / 1000 },
                    role: .accent)
            ], unit: currency, decimals: 2,
            caption: ReportCharts.caption(asOf: figures.asOf, store: store, command: "dashboard · Money"))
    }

    /// The movement bars in the shown currency: the chart `report movement --format svg` draws.
    func movementModel(store: String) -> ChartModel? {
        guard let movement = figures?.movement, let currency = shownCurrency else { return nil }
        return ReportCharts.movement(movement, store: store).first { $0.unit == currency }
    }
}
