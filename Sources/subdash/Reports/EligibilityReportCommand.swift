import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// `subdash report eligibility`.
struct EligibilityReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eligibility", abstract: "Subscribers suggested for each offer at as-of.",
        discussion: """
            \(purchasedOnlyDiscussion) The list is written as it is read, by offer then \
            originalTransactionId; --offset and --limit take a page of it in that order (pages \
            concatenate to the whole list), while the counts stay those of the whole list. Definitions \
            in docs/metrics.md, "Offer eligibility".
            """)
    @OptionGroup var options: ReportOptions
    @OptionGroup var asOf: AsOfOption
    @Option(help: "Only this offer (any case).") var offer: OfferFlagKind?
    @Option(
        parsing: .unconditional,
        help: "Skip this many entries of the list (a whole number, 0 or more; default 0).")
    var offset: String?
    @Option(
        parsing: .unconditional,
        help: "Write at most this many entries (a whole number, 0 or more; default all).")
    var limit: String?

    func validate() throws {
        _ = try Self.count(offset, option: "--offset")
        _ = try Self.count(limit, option: "--limit")
    }

    /// `text` as a whole number 0 or more, nil when not given; otherwise an error naming `option`.
    static func count(_ text: String?, option: String) throws -> Int? {
        guard let text else { return nil }
        guard let n = Int(text), n >= 0 else {
            throw ValidationError("\(option) takes a whole number, 0 or more; got '\(text)'")
        }
        return n
    }

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        if options.format == .svg {
            printError("subdash: --format svg draws report series, movement and cohorts only")
            Foundation.exit(ExitStatus.usage)
        }
        let format: EligibilityStream.Format =
            switch options.format {
            case .json: .json
            case .csv: .csv
            case .table, .svg: .table
            }
        let offset = try Self.count(self.offset, option: "--offset") ?? 0
        let limit = try Self.count(self.limit, option: "--limit")
        var stream = EligibilityStream(format: format, asOf: at, offer: offer)
        // Table and CSV text reaching a terminal is shown as `emit` shows it.
        let visible = format == .table || isatty(1) != 0
        func write(_ text: String) {
            guard !text.isEmpty else { return }
            print(visible ? TextSanitizer.visibleLines(text) : text, terminator: "")
        }
        let kinds = offer.map { [$0] } ?? OfferFlagKind.allCases
        // CSV prints no counts: its first entries wait for no count, unless an offset wants them
        // to skip whole offers.
        let counted = format != .csv || offset > 0
        if !counted { write(stream.begin(counts: [:])) }
        try analytics.forEachEligible(
            asOf: at, offers: kinds, scope: options.scope, offset: offset, limit: limit,
            counted: counted ? { counts in write(stream.begin(counts: counts)) } : nil
        ) { rows in write(stream.write(rows)) }
        write(stream.end())
    }
}
