import Foundation
import GRDB
import NotificationListener
import StoreImport
import SubscriberStore
import Synchronization
import TestSupport
import Testing

/// How concurrent notifications share commits: in process for the committer's timing, and through
/// the real binary for what a sender sees.
@Suite(.serialized) struct GroupCommitTests {
    @Test func aDocumentStillBeingVerifiedJoinsTheCommitOfOneAlreadyWaiting() async throws {
        let path = ListenTests.temporaryPath("group") + ".sqlite"
        defer { ListenTests.remove(path) }
        let database = try AppDatabase.open(path: path)
        let importer = Importer.appStore(database: database, verifier: try SampleDataStore.verifier(), report: { _ in })
        let committer = GroupCommitter(database: database, gatherWait: 5, onDerivationError: { _ in })
        defer { committer.stop() }
        let documents = try ListenTests.v2.get()
        let slowStarted = Flag()
        let quickPrepared = Flag()
        // The slow request is still verifying when the quick one's document is waiting: the commit
        // waits for it rather than going without it. Each waits for the other with a deadline, on
        // threads of their own: the test run's shared pool may be blocked by other tests.
        let (a, b) = await withTaskExecutorPreference(ThreadPerJobExecutor()) {
            async let slow = committer.commit(preparing: {
                _ = slowStarted.set()
                _ = waitUntil(timeout: 5) { quickPrepared.isSet }
                Thread.sleep(forTimeInterval: 0.1)
                return importer.incoming(documents[0], source: "listen")
            })
            async let quick = committer.commit(preparing: {
                _ = waitUntil(timeout: 5) { slowStarted.isSet }
                defer { _ = quickPrepared.set() }
                return importer.incoming(documents[1], source: "listen")
            })
            return await (slow, quick)
        }
        #expect((try a.outcome.get()).applied == 1)
        #expect((try b.outcome.get()).applied == 1)
        #expect(a.commit == 1)
        #expect(b.commit == 1)
    }

    @Test func aSteadyStreamIsDerivedWithinASecondOfItsLastCommit() async throws {
        let path = ListenTests.temporaryPath("derive") + ".sqlite"
        defer { ListenTests.remove(path) }
        let database = try AppDatabase.open(path: path)
        let importer = Importer.appStore(database: database, verifier: try SampleDataStore.verifier(), report: { _ in })
        let committer = GroupCommitter(database: database, onDerivationError: { _ in })
        defer { committer.stop() }
        // One after another, as fast as they come: derivation waits for its interval between them.
        for document in try ListenTests.v2.get() {
            _ = await committer.commit(preparing: { importer.incoming(document, source: "listen") })
        }
        let committed = Date()
        #expect(try waitUntil(timeout: 5) { try database.pendingCount() == 0 })
        #expect(Date().timeIntervalSince(committed) < 1)
    }

    @Test func derivationInSlicesOfOneSubscriptionEndsWithTheStoreOfAnImport() async throws {
        let path = ListenTests.temporaryPath("slices") + ".sqlite"
        let reference = ListenTests.temporaryPath("reference") + ".sqlite"
        defer { ListenTests.remove(path, reference) }
        let database = try AppDatabase.open(path: path)
        let importer = Importer.appStore(database: database, verifier: try SampleDataStore.verifier(), report: { _ in })
        // The smallest budget: every commit carries a slice of one subscription.
        let committer = GroupCommitter(
            database: database, derivationInterval: 0, derivationBudget: 1e-9, onDerivationError: { _ in })
        let documents = try ListenTests.v2.get()
        var pendingSeen: [Int] = []
        for document in documents {
            _ = await committer.commit(preparing: { importer.incoming(document, source: "listen") })
            pendingSeen.append(try database.pendingCount())
        }
        #expect(try waitUntil(timeout: 10) { try database.pendingCount() == 0 })
        committer.stop()
        #expect(pendingSeen.contains { $0 > 0 }, "slices of one leave some pending between commits")
        let imported = try AppDatabase.open(path: reference)
        let referenceImporter = Importer.appStore(database: imported, verifier: try SampleDataStore.verifier(), report: { _ in })
        try imported.apply(documents.map { referenceImporter.incoming($0, source: "listen") })
        #expect(try Self.derivedTables(database) == Self.derivedTables(imported))
    }

    /// The derived tables and the tables of counts, row by row.
    static func derivedTables(_ store: AppDatabase) throws -> [String] {
        try store.writer.read { db in
            var rows: [String] = []
            for table in [
                "subscription", "period", "run", "segment", "event", "billingFailure", "periodMoney", "offerUse",
                "subscriberSearch", "commitment", "segmentDay", "eventDay", "productDuration", "subscriptionStartDay",
                "cohortStepDay",
                "cohortStepMonth", "mrrDay", "mrrMonth", "ltvMemberDay", "ltvMemberMonth", "ltvPriceDay", "ltvPriceMonth",
                "mrrMovementMonth", "mrrChange",
            ] {
                rows += try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map { "\(table) \($0)" }.sorted()
            }
            return rows
        }
    }

    @Test func sixteenConnectionsPostingEveryNotificationTwiceAreAllAnsweredAndStoredOnce() throws {
        let binary = try ListenTests.binary()
        let store = ListenTests.temporaryPath("sixteen") + ".sqlite"
        let log = ListenTests.temporaryPath("log") + ".ndjson"
        defer { ListenTests.remove(store, log) }
        let documents = try ListenTests.v2.get()
        // Each notification twice, the copies far apart, so most pairs are in flight on two
        // connections at about the same time.
        let posted = documents + documents
        let listener = try ListenerProcess(
            binary: binary, store: store, extra: ["--trust-root", ListenTests.trustRoot, "--log", log])
        let answers = PostAnswers()
        let finished = DispatchGroup()
        for worker in 0..<16 {
            finished.enter()
            Thread.detachNewThread {
                var i = worker
                while i < posted.count {
                    let response = try? LoopbackHTTP(port: listener.port).post("/notifications", posted[i])
                    answers.add(response?.status ?? 0, response?.body ?? "")
                    i += 16
                }
                finished.leave()
            }
        }
        finished.wait()
        #expect(answers.statuses == [200: posted.count])
        // The sample holds a few byte-for-byte repeats already: each distinct one applied once.
        let distinct = Set(documents).count
        #expect(answers.bodies["applied\n"] == distinct)
        #expect(answers.bodies["duplicate\n"] == posted.count - distinct)
        try ListenTests.waitForDerivation(store)
        #expect(listener.stop().status == 0)

        let (_, cleanPath) = try ListenTests.cleanImport(documents)
        defer { ListenTests.remove(cleanPath) }
        #expect(try ListenTests.dump(store) == ListenTests.dump(cleanPath))
        // Every request names its commit; concurrent ones shared them.
        let commits = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["commit"] as? Int
        }
        #expect(commits.count == posted.count)
        #expect(Set(commits).count < posted.count)
    }
}

/// Runs each job on a new thread, so a task that blocks its thread never waits for a free one.
final class ThreadPerJobExecutor: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread.detachNewThread { job.runSynchronously(on: executor) }
    }
}

final class PostAnswers: Sendable {
    private struct Counts {
        var statuses: [Int: Int] = [:]
        var bodies: [String: Int] = [:]
    }
    private let counts = Mutex(Counts())
    var statuses: [Int: Int] { counts.withLock { $0.statuses } }
    var bodies: [String: Int] { counts.withLock { $0.bodies } }
    func add(_ status: Int, _ body: String) {
        counts.withLock {
            $0.statuses[status, default: 0] += 1
            $0.bodies[body, default: 0] += 1
        }
    }
}
