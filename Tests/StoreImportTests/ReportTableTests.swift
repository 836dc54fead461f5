import Foundation
import TestSupport
import Testing

/// The default `--format table` output of every `report` command, exactly as a user sees it, on
/// the store of SampleData/examples (Apple's example documents, v1, v2 and API responses).
@Suite struct ReportTableTests {
    /// The examples imported once (unsigned examples included: `--no-verify`).
    static let store = Result<String, any Error> {
        let db = CommandLineTests.temporary("report-tables.sqlite")
        let imported = try Subdash.run([
            "import", "--no-verify", "--db", db,
            SampleData.examples,
        ])
        guard imported.status == 0 else { throw TableStoreError.importFailed(imported.stderr) }
        return db
    }

    enum TableStoreError: Error { case importFailed(String) }

    /// `subdash report ARGUMENTS --db <the examples store>`: its standard output, and nothing on
    /// standard error.
    static func report(_ arguments: [String]) throws -> String {
        let result = try Subdash.run(["report"] + arguments + ["--db", try store.get()])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        return result.stdout
    }

    /// A table of every state, its share and the total.
    @Test func statesAtTheHorizon() throws {
        #expect(
            try Self.report(["states"]) == """
                States as of 2024-08-07 10:00 UTC
                state         subscriptions  share
                ────────────  ─────────────  ─────
                standard                  1  33.3%
                freeTrial                 0   0.0%
                introductory              0   0.0%
                promotional               0   0.0%
                offerCode                 0   0.0%
                winBack                   0   0.0%
                gracePeriod               0   0.0%
                billingRetry              0   0.0%
                expired                   2  66.7%
                active                    1  33.3%
                ────────────  ─────────────  ─────
                total                     3

                """)
    }

    /// Six paid periods shown, the rest named.
    @Test func cohortsWithMorePeriodsThanShown() throws {
        #expect(
            try Self.report(["cohorts", "--from", "2024-01", "--to", "2024-05", "--periods", "8"]) == """
                Retention by paid periods as of 2024-08-07 10:00 UTC (Kaplan–Meier: share reaching the next paid period among members whose fate is known; – not known yet)
                cohort   started      P1      P2      P3    P4    P5    P6
                ───────  ───────  ──────  ──────  ──────  ────  ────  ────
                2024-01        1  100.0%  100.0%  100.0%  0.0%  0.0%  0.0%
                2024-02        0       –       –       –     –     –     –
                2024-03        2   50.0%   50.0%    0.0%  0.0%  0.0%  0.0%
                2024-04        0       –       –       –     –     –     –
                2024-05        1       –       –       –     –     –     –
                ───────  ───────  ──────  ──────  ──────  ────  ────  ────
                average        4   66.7%   66.7%   33.3%  0.0%  0.0%  0.0%
                (2 more periods: use --format csv or json)

                """)
    }

    /// Every event type, then the expirations by reason.
    @Test func eventsWithTheirExpirationReasons() throws {
        #expect(
            try Self.report(["events", "--from", "2024-01-01", "--to", "2024-09-01"]) == """
                Events in [2024-01-01 00:00 UTC, 2024-09-01 00:00 UTC) as of 2024-08-07 10:00 UTC
                event                             count
                ────────────────────────────────  ─────
                activation                            2
                reactivation                          2
                renewal                               3
                conversion                            2
                billingRecovery                       2
                productChange                         3
                billingIssue                          2
                autoRenewOff                          2
                autoRenewOn                           1
                refund                                0
                expiration                            3
                  expiration: voluntary               1
                  expiration: billing                 1
                  expiration: priceIncrease           0
                  expiration: productUnavailable      0
                  expiration: refund                  0
                  expiration: sharingRevoked          0
                  expiration: other                   1

                """)
    }

    /// Outcomes and the cumulative recoveries, each with its share of the failures.
    @Test func recoveryWithShares() throws {
        #expect(
            try Self.report(["recovery", "--from", "2024-01-01", "--to", "2024-09-01"]) == """
                Billing failures in [2024-01-01 00:00 UTC, 2024-09-01 00:00 UTC) as of 2024-08-07 10:00 UTC
                billing failures            count   share
                ──────────────────────────  ─────  ──────
                recovered                       2  100.0%
                expired                         0    0.0%
                pending                         0    0.0%
                  recovered within 3 days       2  100.0%
                  recovered within 7 days       2  100.0%
                  recovered within 16 days      2  100.0%
                  recovered within 30 days      2  100.0%
                  recovered within 60 days      2  100.0%
                ──────────────────────────  ─────  ──────
                total                           2

                """)
    }

    /// `--offset` and `--limit` take a page of the list in its order, the counts staying the whole
    /// list's (the offer column as wide as the offers counted: "retention"); a value that is not a whole number 0 or more is refused, naming its option.
    @Test func eligibilityPages() throws {
        let db = try Self.store.get()
        func run(_ extra: [String]) throws -> Subdash.Run {
            try Subdash.run(["report", "eligibility", "--db", db, "--as-of", "2024-06-15"] + extra)
        }
        let header = "offer,originalTransactionId,productId,detail\n"
        let entry = "retention,2000000900000001,com.example.pro.yearly,\"auto-renew off, offerCode\"\n"
        #expect(try run(["--format", "csv"]).stdout == header + entry)
        #expect(try run(["--format", "csv", "--offset", "0", "--limit", "1"]).stdout == header + entry)
        #expect(try run(["--format", "csv", "--limit", "0"]).stdout == header)
        #expect(try run(["--format", "csv", "--offset", "1"]).stdout == header)
        #expect(
            try run(["--format", "json", "--limit", "0"]).stdout
                == #"{"asOf":"2024-06-15T00:00:00Z","counts":{"winBack":0,"retention":1,"upgrade":0,"loyalty":0,"service":0},"subscribers":[]}"#
                + "\n")
        #expect(
            try run(["--offset", "5"]).stdout == """
                Eligible as of 2024-06-15 00:00 UTC
                offer      subscription  product  why
                ─────────  ────────────  ───────  ───
                ─────────  ────────────  ───────  ───
                winBack 0, retention 1, upgrade 0, loyalty 0, service 0

                """)
        for (option, value) in [("--limit", "-1"), ("--offset", "ten"), ("--limit", "1.5")] {
            let refused = try run([option, value])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("\(option) takes a whole number, 0 or more; got '\(value)'"), "\(refused.stderr)")
            #expect(refused.stdout.isEmpty)
        }
        let help = try Subdash.run(["report", "eligibility", "--help"]).stdout
        #expect(help.contains("--offset <offset>") && help.contains("--limit <limit>"))
        #expect(help.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains("pages concatenate to the whole list"))
    }

    /// One retention suggestion and the count of every offer.
    @Test func eligibilityWithOneSuggestion() throws {
        #expect(
            try Self.report(["eligibility", "--as-of", "2024-06-15"]) == """
                Eligible as of 2024-06-15 00:00 UTC
                offer      subscription      product                 why
                ─────────  ────────────────  ──────────────────────  ─────────────────────────
                retention  2000000900000001  com.example.pro.yearly  auto-renew off, offerCode
                ─────────  ────────────────  ──────────────────────  ─────────────────────────
                winBack 0, retention 1, upgrade 0, loyalty 0, service 0

                """)
    }

    /// The fields, the periods and the events.
    @Test func subscriberFieldsPeriodsAndEvents() throws {
        #expect(
            try Self.report(["subscriber", "2000000900000001"]) == """
                Subscription 2000000900000001 as of 2024-08-07 10:00 UTC
                  user                –
                  appAccountToken     7e3fb20b-4cdb-47cc-936d-99d65f608138
                  environment         Production
                  ownership           purchased
                  product             com.example.pro.monthly
                  state               expired
                  auto-renew          off
                  renews to           com.example.pro.monthly
                  expired on          2024-08-01T12:00:00Z (5 days ago)
                  billing retry       no
                  grace until         –
                  price increase      –
                  expiration reason   billing
                  paid periods        3
                  billing failures    1
                  paid                39.20 USD
                  paid service        152 days
                  renewal             Renewal price 9.99 USD (no renewal ahead)
                  win-back offers     –
                  apple account       704289651234567890 · 2 subscriptions of this Apple Account: also 0

                transaction       product                  start       end         offer                                  class                price   returned
                ────────────────  ───────────────────────  ──────────  ──────────  ─────────────────────────────────────  ───────────────  ─────────  ─────────
                2000000900000001  com.example.pro.monthly  2024-03-01  2024-03-08  freeTrial (1 week offer, by customer)  activation        0.00 USD
                2000000900000101  com.example.pro.monthly  2024-03-08  2024-04-08  standard (by Apple)                    conversion        9.99 USD
                2000000900000102  com.example.pro.monthly  2024-04-08  2024-05-08  standard (by Apple)                    billingRecovery   9.99 USD
                2000000900000103  com.example.pro.monthly  2024-05-08  2024-05-20  standard (by Apple)                    renewal           9.99 USD   3.77 USD
                2000000900000201  com.example.pro.yearly   2024-05-20  2024-05-20  standard (by customer)                 productChange    99.99 USD  99.99 USD
                2000000900000202  com.example.pro.yearly   2024-05-20  2024-07-01  offerCode (1 year offer, by customer)  productChange    69.99 USD  61.98 USD
                2000000900000401  com.example.pro.monthly  2024-07-01  2024-08-01  winBack (by customer)                  productChange     4.99 USD

                at                    event                 product
                ────────────────────  ────────────────────  ───────────────────────
                2024-03-01T10:00:00Z  activation            com.example.pro.monthly
                2024-03-08T10:00:00Z  conversion            com.example.pro.monthly
                2024-03-20T21:15:00Z  autoRenewOff          com.example.pro.monthly
                2024-03-22T08:40:00Z  autoRenewOn           com.example.pro.monthly
                2024-04-08T09:58:00Z  billingIssue          com.example.pro.monthly
                2024-04-08T09:58:00Z  billingRecovery       com.example.pro.monthly
                2024-05-08T09:59:00Z  renewal               com.example.pro.monthly
                2024-05-20T18:00:00Z  productChange         com.example.pro.yearly
                2024-05-20T18:00:00Z  productChange         com.example.pro.yearly
                2024-07-01T12:00:00Z  productChange         com.example.pro.monthly
                2024-08-01T12:00:00Z  expiration (billing)  com.example.pro.monthly

                """)
    }
}
