import ArgumentParser
import Dashboard
import Foundation
import SubscriberAnalytics
import TerminalUI

extension BucketSize: ExpressibleByArgument {}

struct MovementReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "movement",
        abstract: "What moved MRR in each month, week or day: new, reactivation, expansion, contraction, churn, fx.",
        discussion:
            "Each purchased subscription's MRR at a bucket's start and end compared: mrrStart + new + reactivation + expansion + contraction + churn + fx = mrrEnd, and mrrStart and mrrEnd are `report mrr` at the bucket's ends (docs/metrics.md, \"MRR movement\"). A bucket cut short by --to or as-of is marked *."
    )
    @OptionGroup var options: ReportOptions
    @OptionGroup var range: RangeOptions
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var conversion: ConversionOptions
    @OptionGroup var plan: PlanOption
    @Option(help: "Bucket length.") var by: BucketSize = .month

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let rates = try conversion.load()
        let r = try moneyReport {
            try analytics.movement(
                from: range.from.instant, to: range.to.instant, asOf: at, by: by, scope: plan.applied(to: options.scope),
                rates: rates)
        }
        let store = URL(fileURLWithPath: options.store.path).lastPathComponent
        emit(
            options.format, json: { ReportJSON.movement(r) },
            csv: { MovementCSV.render(r) }, table: { Self.table(r) },
            svg: { ChartSVG.render(ReportCharts.movement(r, store: store)) })
    }

    static func table(_ r: MRRMovement) -> String {
        var t = TextTable(
            headers: [r.by.rawValue, "currency", "MRR start"] + MovementComponent.allCases.map(\.rawValue) + ["fx", "MRR end"],
            rightAligned: Set(2...10))
        t.rows = r.rows.map { row in
            func money(_ m: Int64) -> String { MoneyFormat.number(m, currency: row.currency) }
            return [row.bucket.label + (row.bucket.isComplete ? "" : "*"), row.currency, money(row.mrrStart)]
                + MovementComponent.allCases.map { "\(money(row[$0])) (\(grouped(row.count($0))))" }
                + [money(row.fx), money(row.mrrEnd)]
        }
        var text = "MRR movement \(r.from.iso8601) – \(r.to.iso8601), as of \(r.asOf.iso8601)"
        if let c = r.currency { text += ", converted to \(c)" }
        text += " (amount and subscriptions per movement)\n" + t.render()
        if r.rows.contains(where: { !$0.bucket.isComplete }) { text += "\n* bucket cut short by --to or as-of" }
        return text
    }
}
