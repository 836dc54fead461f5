import Foundation
import GRDB
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

@testable import StoreImport

/// Imports killed without warning and imports sharing the store with other writers, with real
/// processes: the store stays whole and ends as if everything had been done in turn.
@Suite(.serialized) struct KillsAndWritersTests {
    static let generated = SampleData.generated

    static func importProcess(_ path: String, _ input: String) throws -> Process {
        try Subdash.process([
            "import", "--db", path, "--batch-size", "25", "--transaction-size", "50",
            "--trust-root", SampleData.trustRoot, input,
        ])
    }

    /// Documents in the store so far, 0 before it exists.
    static func documentCount(_ path: String) -> Int { (try? AppStoreImportTests.documentCount(path)) ?? 0 }

    static func integrity(_ path: String) throws -> String? {
        let db = try AppDatabase.open(path: path, readOnly: true)
        return try db.writer.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
    }

    /// Every report's JSON, as a script would read it.
    static func reports(_ path: String) throws -> [String] {
        let asOf = ["--as-of", "2026-01-01"]
        return try [
            ["states"] + asOf, ["cohorts"] + asOf, ["eligibility"] + asOf,
            ["events", "--from", "2024-01-01", "--to", "2026-01-01"],
            ["recovery", "--from", "2024-01-01", "--to", "2026-01-01"],
        ].map { args in
            let run = try Subdash.run(["report"] + args + ["--db", path, "--format", "json"])
            #expect(run.status == 0, "report \(args): \(run.stderr)")
            return run.stdout
        }
    }

    /// The dump, with the moments flags were set and the log's numbering left out (they depend on
    /// when each writer got its turn, nothing else).
    static func dumpIgnoringFlagTimes(_ db: AppDatabase) throws -> [String: [String]] {
        var dump = try storeDump(db)
        for table in ["offerFlag", "offerFlagLog"] {
            dump[table] = dump[table]?.map { row in
                row.split(separator: " ").filter { !$0.hasPrefix("at=") && !$0.hasPrefix("id=") }.joined(separator: " ")
            }.sorted()
        }
        return dump
    }

    /// SIGKILL at 20 random moments, each time re-running the import on the same store: every
    /// time the store passes SQLite's integrity check, and the last run leaves it, and every
    /// report, as a clean import does.
    @Test func twentyKillsAtRandomMomentsThenARerunGiveTheCleanStore() throws {
        let directory = try TemporaryDirectory("kills")
        defer { directory.remove() }
        let path = directory.path("store.sqlite")

        var moments: [Double] = []
        for _ in 0..<20 {
            let process = try Self.importProcess(path, Self.generated)
            let moment = Double.random(in: 0.05...0.8)
            moments.append(moment)
            try process.run()
            Thread.sleep(forTimeInterval: moment)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if FileManager.default.fileExists(atPath: path) {
                #expect(try Self.integrity(path) == "ok", "killed after \(moments)")
            }
        }
        let rerun = try Self.importProcess(path, Self.generated)
        try rerun.run()
        rerun.waitUntilExit()
        #expect(rerun.terminationStatus == 0)
        #expect(try Self.integrity(path) == "ok")
        #expect(try storeDump(AppDatabase.open(path: path)) == SampleDataStore.dump(.signedOnly), "killed after \(moments)")
        #expect(try Self.reports(path) == Self.reports(SampleDataStore.path(.signedOnly)))
    }

    /// An import runs while `subdash flag` processes and the dashboard's flagging (the store's own
    /// call, from another connection) write to the same store: all of them finish, and the store
    /// is what the import and the flags give done one after the other.
    @Test func anImportWhileFlagsAreWrittenEndsAsIfDoneInTurn() throws {
        let v1 = Self.generated + "/v1"
        let v2 = Self.generated + "/v2"
        let directory = try TemporaryDirectory("writers")
        defer { directory.remove() }
        let path = directory.path("writers.sqlite")
        // The v1 half imported once, into the store the writers share; the in-turn store starts as a copy.
        let store = try AppDatabase.open(path: path)
        _ = try AppStoreImportTests.importer(store).0.importPaths([v1])
        let v1Documents = Self.documentCount(path)
        let turn = try AppDatabase.open(path: directory.path("turn.sqlite"))
        try store.writer.backup(to: turn.writer)
        let ids = try turn.writer.read { db in
            try String.fetchAll(db, sql: "SELECT originalTransactionId FROM subscription ORDER BY 1 LIMIT 12")
        }
        try #require(ids.count == 12)
        let cliIds = Array(ids.prefix(6))
        let dashboardIds = Array(ids.suffix(6))
        let now = Instant(Date())

        // In turn: flags, then the import.
        _ = try turn.setFlags(OfferFlagWrite(offer: .winBackOffer, ids: cliIds, operatorName: "alice", note: "cli"), at: now)
        for id in dashboardIds {
            _ = try turn.setFlags(OfferFlagWrite(offer: .retention, ids: [id], operatorName: "bob", note: "dashboard"), at: now)
        }
        _ = try AppStoreImportTests.importer(turn).0.importPaths([v2])

        // At once: the flags are written once the import has committed its first batches.
        let importing = try Self.importProcess(path, v2)
        try importing.run()
        _ = waitUntil(timeout: 60) { !importing.isRunning || Self.documentCount(path) > v1Documents }
        #expect(importing.isRunning, "the import finished before the flags were written")
        var flagStatuses: [Int32] = []
        for (k, id) in cliIds.enumerated() {
            let run = try Subdash.run(["flag", "--db", path, "--offer", "winBack", "--note", "cli", "--operator", "alice", id])
            flagStatuses.append(run.status)
            // The dashboard flags from its own connection between the command's writes.
            let dashboard = try AppDatabase.open(path: path)
            _ = try dashboard.setFlags(
                OfferFlagWrite(offer: .retention, ids: [dashboardIds[k]], operatorName: "bob", note: "dashboard"),
                at: Instant(Date()))
        }
        importing.waitUntilExit()
        #expect(importing.terminationStatus == 0)
        #expect(flagStatuses == Array(repeating: 0, count: cliIds.count))
        #expect(try Self.integrity(path) == "ok")
        #expect(try Self.dumpIgnoringFlagTimes(store) == Self.dumpIgnoringFlagTimes(turn))
    }

    /// Two imports of the same store at once (the v2 half and everything) both finish, and the
    /// store is what one clean import gives.
    @Test func twoImportsAtOnceFinishWithTheCleanStore() throws {
        let directory = try TemporaryDirectory("two")
        defer { directory.remove() }
        let path = directory.path("store.sqlite")
        _ = try AppDatabase.open(path: path)
        let first = try Self.importProcess(path, Self.generated + "/v2")
        let second = try Self.importProcess(path, Self.generated)
        try first.run()
        try second.run()
        first.waitUntilExit()
        second.waitUntilExit()
        #expect([first.terminationStatus, second.terminationStatus] == [0, 0])
        #expect(try Self.integrity(path) == "ok")
        #expect(try storeDump(AppDatabase.open(path: path)) == SampleDataStore.dump(.signedOnly))
    }
}
