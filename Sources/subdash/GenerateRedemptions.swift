import ArgumentParser
import Foundation
import LifecycleSimulator
import SubscriberStore
import SubscriptionModel

/// `subdash generate-redemptions`: simulated customers redeem a share of the offers a store has
/// served (README, "Offers that reach the customer").
struct GenerateRedemptions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate-redemptions",
        abstract: "Simulate customers redeeming a share of the signed offers a store has served.",
        discussion: """
            Reads the offers served (`subdash offer sign`, `listen --offers`) and each subscription's latest \
            transaction, and writes DIR/v2/notifications-0001.ndjson and DIR/test-root.pem: for a deterministic \
            share of subscriptions (its latest served offer), an OFFER_REDEEMED notification whose signed \
            transaction carries offerType 2 (promotional), 3 (offer code) or 4 (win-back) and the served \
            offerIdentifier, dated between five minutes and a day after the offer was served; for a share of \
            those, the paid renewals that follow. Nothing is dated after --until. The same store and seed give \
            the same choices. Import with: subdash import --trust-root DIR/test-root.pem DIR.
            """)

    @OptionGroup var store: StoreOptions

    @Option(help: "The share of subscriptions with a served offer that redeem it (0 to 1).")
    var share: Double = 0.5

    @Option(help: "The share of redemptions followed by paid periods (0 to 1).")
    var convertedShare: Double = 0.5

    @Option(help: "Seed of the choices and of the test signing chain.")
    var seed: UInt64 = 1

    @Option(help: "Nothing is dated after this instant (default: now), as in report --as-of.")
    var until: InstantArgument?

    @Option(help: "Output directory (created; must not already hold generated output).")
    var out: String

    func validate() throws {
        guard (0...1).contains(share) else { throw ValidationError("--share must be between 0 and 1, not \(share)") }
        guard (0...1).contains(convertedShare) else {
            throw ValidationError("--converted-share must be between 0 and 1, not \(convertedShare)")
        }
    }

    func run() throws {
        let database: AppDatabase
        do {
            try store.requireExisting()
            database = try store.open(readOnly: true)
        } catch let error as CLIError { error.exit() }
        let subjects = try Self.subjects(database)
        let until = self.until?.instant ?? Instant(Date())
        let generator = ServedOfferRedemptions(seed: seed, share: share, convertedShare: convertedShare, until: until)
        let summary = try generator.write(subjects, into: URL(fileURLWithPath: out))
        let paid = summary.redemptions.map(\.paidPeriods).reduce(0, +)
        print(
            """
            \(summary.redemptions.count) of \(summary.considered) subscriptions with a served offer redeem it \
            (\(summary.redemptions.filter { $0.paidPeriods > 0 }.count) then pay, \(paid) paid periods): \
            \(summary.documents) v2 documents under \(out)
            Import with: \(Generate.importCommand(out: out, versions: .v2))
            """)
    }

    /// Every served offer with what the store knows of its subscription (none for a subscription
    /// the store has no transaction of, or a family-shared one: Apple never redeems those).
    static func subjects(_ database: AppDatabase) throws -> [ServedOfferSubject] {
        guard let app = try database.storeApp() else { return [] }
        var subjects: [ServedOfferSubject] = []
        var known: [String: (OfferSubject, (purchase: Instant, expires: Instant?, originalPurchase: Instant?))?] = [:]
        for served in try database.servedOffers() {
            let id = served.originalTransactionId
            if known[id] == nil {
                if let subject = try database.offerSubject(originalTransactionId: id),
                    let dates = try database.latestTransactionDates(originalTransactionId: id)
                {
                    known[id] = (subject, dates)
                } else {
                    known[id] = .some(nil)
                }
            }
            guard let (subject, dates) = known[id] ?? nil, !subject.isFamilyShared else { continue }
            subjects.append(
                ServedOfferSubject(
                    originalTransactionId: id, offerKind: served.offerKind, offerIdentifier: served.offerIdentifier,
                    servedAt: served.at, productId: served.productId.isEmpty ? subject.productId : served.productId,
                    subscriptionGroupIdentifier: subject.subscriptionGroupIdentifier, bundleId: app.bundleId,
                    appAppleId: app.appAppleId, environment: subject.environment, appAccountToken: subject.appAccountToken,
                    appTransactionId: subject.appTransactionId, latestPurchase: dates.purchase, latestExpires: dates.expires,
                    originalPurchaseDate: dates.originalPurchase))
        }
        return subjects
    }
}
