import Foundation
import TestSupport
import Testing

/// The real binary: exit codes and the messages a user sees.
@Suite struct CommandLineTests {
    static func temporary(_ name: String) -> String {
        TemporaryDirectory.uniquePath("cli-\(name)")
    }

    @Test func badLinesAreNamedAndTheRestIsImported() throws {
        let db = Self.temporary("db.sqlite")
        let file = Self.temporary("mixed.ndjson")
        defer { for p in [db, db + "-wal", db + "-shm", file] { try? FileManager.default.removeItem(atPath: p) } }
        let good = try String(contentsOfFile: SampleData.examples + "/v1/DID_RENEW.json", encoding: .utf8)
            .replacingOccurrences(of: "\n", with: " ")
        try "\(good)\n{\"notification_type\": \n[1, 2]\n".write(toFile: file, atomically: true, encoding: .utf8)
        let result = try Subdash.run(["import", "--db", db, file])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("\(file):line 2: ") })
        #expect(lines.contains { $0.hasPrefix("\(file):line 3: ") })
        #expect(
            lines.contains {
                $0.hasPrefix("3 documents read from 1 file: 1 applied, 0 duplicates, 2 rejected; 1 subscription touched;")
            })
        // Importing again: nothing doubled, the same rejections.
        let again = try Subdash.run(["import", "--db", db, file])
        #expect(again.status == 1)
        #expect(again.stderr.contains("0 applied, 1 duplicate, 2 rejected"))
    }

    @Test func usageErrorsExitTwo() throws {
        #expect(try Subdash.run(["import"]).status == 2)
        #expect(
            try Subdash.run(["import", "/nonexistent/x.json"]).stderr.contains("/nonexistent/x.json: no such file or directory"))
        let db = Self.temporary("empty.sqlite")
        defer { for p in [db, db + "-wal", db + "-shm"] { try? FileManager.default.removeItem(atPath: p) } }
        // An id that matches nothing is named, and the status says not everything was done.
        let unknown = try Subdash.run(["flag", "--db", db, "--offer", "winBack", "nobody"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("subdash flag: no subscription matches nobody"))
        let backwards = try Subdash.run(["report", "events", "--db", db, "--from", "2025-02-01", "--to", "2025-01-01"])
        #expect(backwards.status == 2)
        #expect(backwards.stderr.contains("--to 2025-01-01T00:00:00Z is not after --from 2025-02-01T00:00:00Z"))
    }

    /// A store of the v1 examples, for reports that need something in it.
    static func examplesStore() throws -> String {
        let db = Self.temporary("examples.sqlite")
        let imported = try Subdash.run(["import", "--db", db, SampleData.examples + "/v1"])
        #expect(imported.status == 0)
        return db
    }

    /// The v1 REVOKE example alone: a family member's revocation, counted only with `--ownership`.
    @Test func ownershipOptionAndPurchasedOnlyHelp() throws {
        let db = Self.temporary("revoke.sqlite")
        defer { Self.remove(db) }
        let revoke = SampleData.examples + "/v1/REVOKE.json"
        #expect(try Subdash.run(["import", "--db", db, revoke]).status == 0)
        let range = ["--from", "2024-01-01", "--to", "2024-05-01", "--format", "json"]
        let purchased = try Subdash.run(["report", "events", "--db", db] + range)
        #expect(purchased.stdout.contains(#""activation":0"#) && purchased.stdout.contains(#""sharingRevoked":0"#))
        let shared = try Subdash.run(["report", "events", "--db", db, "--ownership", "familyShared"] + range)
        #expect(shared.stdout.contains(#""refund":0,"expiration":1}"#))
        #expect(shared.stdout.contains(#""refund":0,"sharingRevoked":1,"other":0}"#))
        let subscriber = try Subdash.run(["report", "subscriber", "1000000900000001", "--db", db])
        #expect(
            subscriber.stdout.contains(
                "Family Sharing — access through a family member's purchase; sharing revoked on 2024-03-25"))
        for report in ["cohorts", "eligibility"] {
            let help = try Subdash.run(["report", report, "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(
                separator: " ")
            #expect(help.contains("Counts purchased subscriptions only"), "\(report)")
        }
        let bogus = try Subdash.run(["report", "states", "--db", db, "--ownership", "bought"])
        #expect(bogus.status == 2)
        #expect(bogus.stderr.contains("'purchased', 'familyShared' or 'all'"))
    }

    static func remove(_ db: String) {
        for p in [db, db + "-wal", db + "-shm"] { try? FileManager.default.removeItem(atPath: p) }
    }

    @Test func aMistypedCommandNamesTheNearestOne() throws {
        let top = try Subdash.run(["reprot", "states"])
        #expect(top.status == 2)
        #expect(top.stderr.contains("`reprot` is not a subdash command; did you mean `subdash report`?"))
        #expect(!top.stderr.contains("USAGE"))
        let nested = try Subdash.run(["report", "stats"])
        #expect(nested.status == 2)
        #expect(nested.stderr.contains("`stats` is not a subdash report command; did you mean `subdash report states`?"))
    }

    @Test func anUnknownProductIsRefusedWithTheKnownOnes() throws {
        let db = try Self.examplesStore()
        defer { Self.remove(db) }
        let states = try Subdash.run(["report", "states", "--db", db, "--product", "com.example.bogus"])
        #expect(states.status == 2)
        #expect(states.stdout.isEmpty)
        #expect(states.stderr.contains("unknown product com.example.bogus (known products: "))
        let known = try Subdash.run(["report", "states", "--db", db, "--format", "json"])
        #expect(known.status == 0)
        let cohorts = try Subdash.run(["report", "cohorts", "--db", db, "--duration", "6months"])
        #expect(cohorts.status == 2)
        #expect(cohorts.stderr.contains("no product in the store bills every 6 months (--duration takes week, month, year)"))
    }

    @Test func tablesShowAsOfAsAnInstantInUTC() throws {
        let db = try Self.examplesStore()
        defer { Self.remove(db) }
        let states = try Subdash.run(["report", "states", "--db", db, "--as-of", "2024-05-01"])
        #expect(states.stdout.hasPrefix("States as of 2024-05-01 00:00 UTC\n"))
        let cohorts = try Subdash.run(["report", "cohorts", "--db", db, "--as-of", "2024-05-01", "--periods", "2"])
        #expect(cohorts.stdout.hasPrefix("Retention by paid periods as of 2024-05-01 00:00 UTC"))
        let help = try Subdash.run(["report", "states", "--help"])
        #expect(help.stdout.contains("YYYY-MM-DD (midnight UTC"))
        #expect(help.stdout.contains("2025-06-30T12:00:00Z"))
    }

    /// The v1 examples priced by a table (1,999.99 USD a month, 59.99 EUR a year): six monthly
    /// charges, one refunded, and the yearly one; the coins purchase stays unpriced.
    @Test func moneyReportsOnAV1StorePricedByATable() throws {
        let db = try Self.examplesStore()
        let prices = Self.temporary("prices.csv")
        defer {
            Self.remove(db)
            try? FileManager.default.removeItem(atPath: prices)
        }
        try [
            "productId,storefront,currency,price,validFrom", "com.example.pro.monthly,,USD,1999.99,2000-01-01",
            "com.example.pro.yearly,,EUR,59.99,2000-01-01",
        ].joined(separator: "\n")
            .write(toFile: prices, atomically: true, encoding: .utf8)
        let imported = try Subdash.run(["prices", "import", "--db", db, prices])
        #expect(imported.status == 0)
        #expect(imported.stderr.contains("2 rows"))
        let range = ["--db", db, "--from", "2020-01-01", "--to", "2030-01-01"]
        let table = try Subdash.run(["report", "revenue"] + range + ["--by", "currency"])
        #expect(table.status == 0)
        let lines = table.stdout.split(separator: "\n").map(String.init)
        // Gross 6 × 1,999.99; the refund 1,999.99; proceeds 70 % of each: 5 × 1,399.993 = 6,999.965.
        #expect(lines.contains { $0.hasPrefix("EUR ") && $0.hasSuffix("  59.99 EUR      41.99 EUR") })
        #expect(
            lines.contains {
                $0.hasPrefix("USD             6  11,999.94 USD         1  1,999.99 USD")
                    && $0.hasSuffix("9,999.95 USD   6,999.97 USD")
            })
        #expect(lines.last == "1 item without a price is not counted (`subdash prices import`)")
        let json = try Subdash.run(["report", "revenue"] + range + ["--by", "currency", "--format", "json"])
        #expect(
            json.stdout.contains(
                #""by":"currency","currency":null,"unpriced":1,"rows":[{"key":"EUR","currency":"EUR","charged":1,"gross":59.99,"#)
        )
        #expect(json.stdout.contains(#""refunds":1999.99,"upgradeCredits":0,"net":9999.95,"proceeds":6999.965}]}"#))
        let mrr = try Subdash.run(["report", "mrr", "--db", db, "--as-of", "2024-03-15", "--by", "currency", "--format", "csv"])
        #expect(mrr.stdout == "key,currency,subscriptions,mrr,commitments,committed\nUSD,USD,1,1999.99,0,0.00\n")
        let alone = try Subdash.run(["report", "mrr", "--db", db, "--currency", "EUR"])
        #expect(alone.status == 2)
        #expect(alone.stderr.contains("--currency and --rates go together"))
    }

    @Test func eligibilityTableKeepsItsOfferColumnNarrow() throws {
        let db = try Self.examplesStore()
        defer { Self.remove(db) }
        // Any case of the offer kind; the counts line under the table widens no column.
        let table = try Subdash.run(["report", "eligibility", "--db", db, "--offer", "winback", "--format", "table"])
        #expect(table.status == 0)
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines[1].hasPrefix("offer  subscription"))
        #expect(lines[2].hasPrefix("─────  "))
        #expect(lines.last == "winBack 0")
        #expect(try Subdash.run(["flags", "--db", db, "--offer", "WINBACK"]).status == 0)
    }

    @Test func subscriberCSVCarriesTheSubscribersFields() throws {
        let db = try Self.examplesStore()
        defer { Self.remove(db) }
        let csv = try Subdash.run(["report", "subscriber", "1000000900000001", "--db", db, "--format", "csv"])
        #expect(csv.status == 0)
        let lines = csv.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("originalTransactionId,userId,email,appAccountToken,asOf,state,autoRenew,"))
        #expect(
            lines[0].hasSuffix(
                ",transactionId,productId,start,end,offerKind,class,refunded,price,currency,refundAmount,upgradeCredit"))
        #expect(lines.count >= 2)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("1000000900000001,") })
    }

    @Test func subscriberTableSaysWhenAccessEnds() throws {
        let db = try Self.examplesStore()
        defer { Self.remove(db) }
        // The same fields the Subscriber pane shows: a yearly period bought on 2024-05-20, as of then.
        let table = try Subdash.run(["report", "subscriber", "1000000900000001", "--db", db])
        #expect(table.status == 0)
        #expect(table.stdout.contains("  renews on           2025-05-20T18:00:00Z (in 365 days)\n"))
        #expect(table.stdout.contains("  billing retry       no\n"))
    }

    @Test func emptyStoresAndUnknownIdsGetClearAnswers() throws {
        let db = Self.temporary("empty.sqlite")
        defer { for p in [db, db + "-wal", db + "-shm"] { try? FileManager.default.removeItem(atPath: p) } }
        let flag = try Subdash.run(["flag", "--db", db, "--offer", "winBack", "nobody"])
        #expect(flag.status == 1)
        #expect(flag.stderr.contains("no subscription matches nobody"))
        let who = try Subdash.run(["report", "subscriber", "nobody", "--db", db])
        #expect(who.status == 1)
        #expect(who.stderr.contains("no subscription matches nobody"))
        let states = try Subdash.run(["report", "states", "--db", db, "--format", "json"])
        #expect(states.status == 0)
        #expect(states.stdout.contains("\"expired\":0},\"active\":0}"))
        let cohorts = try Subdash.run(["report", "cohorts", "--db", db, "--format", "json", "--periods", "2"])
        #expect(cohorts.status == 0)
        #expect(cohorts.stdout.contains("\"average\":{\"retained\":[0,0],\"ended\":[0,0],\"rate\":[null,null]}"))
        let missing = try Subdash.run(["report", "states", "--db", Self.temporary("none.sqlite")])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("no store at"))
    }
}
