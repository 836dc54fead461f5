import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// `subdash report subscriber`.
struct SubscriberReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscriber",
        abstract: "One subscriber's timeline and figures.",
        discussion: """
            ID may be an originalTransactionId, transactionId, webOrderLineItemId, appAccountToken, appTransactionId \
            (every subscription of that Apple Account is listed), user id or email (any case); when nothing matches it exactly, a prefix or part of one, as the dashboard's / search and \
            :user read it. Every environment is searched; several matches are listed to pick from.
            """)
    @OptionGroup var options: ReportOptions
    @OptionGroup var asOf: AsOfOption
    @Argument(help: "Any id of the subscriber.") var id: String

    mutating func run() async throws {
        let analytics = try options.analytics()
        switch try analytics.subscriber(id, asOf: asOf.asOf?.instant) {
        case .notFound(let id):
            throw CLIError(
                "no subscription matches \(id) (tried originalTransactionId, transactionId, webOrderLineItemId, appAccountToken, user id and email)"
            )
        case .ambiguous(let id, let matches):
            throw CLIError(try Self.ambiguity(id, matches, analytics: analytics, asOf: asOf.asOf?.instant))
        case .found(let report):
            emit(SubscriberOutput(report), format: options.format)
        }
    }
}

extension SubscriberReportCommand {
    /// "N subscriptions match ID" and the first of them as the dashboard lists them (any
    /// environment), so the right one can be picked by its originalTransactionId.
    static func ambiguity(_ id: String, _ matches: [String], analytics: SubscriberAnalytics, asOf: Instant?) throws -> String {
        let shown = 20
        let at = try analytics.resolveAsOf(asOf)
        let rows = try analytics.subscriberList(
            offset: 0, limit: AppDatabase.searchLimit, asOf: at, scope: ReportScope(environment: .all, ownership: .all),
            matching: id)
        let byId = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var table = TextTable(headers: ["subscription", "environment", "product", "state", "user", "email"])
        table.rows = matches.prefix(shown).map { match in
            guard let row = byId[match] else { return [match, "", "", "", "", ""] }
            return [
                row.id, row.environment.rawValue, row.productId, row.state ?? "not started", row.userId ?? "", row.email ?? "",
            ].map(TextSanitizer.visible)
        }
        let count = matches.count >= AppDatabase.searchLimit ? "\(grouped(AppDatabase.searchLimit))+" : grouped(matches.count)
        // An appTransactionId names one Apple Account: its subscriptions are listed as such.
        let account = try analytics.database.subscriptions(sharingAppTransactionId: id) == matches
        var text =
            (account
                ? "\(count) subscriptions of this Apple Account (appTransactionId \(TextSanitizer.visible(id))); "
                    + "pass one originalTransactionId:\n"
                : "\(count) subscriptions match \(TextSanitizer.visible(id)); pass one originalTransactionId:\n")
            + table.render()
        if matches.count > shown { text += "\n… and \(grouped(matches.count - shown)) more" }
        return text
    }
}
