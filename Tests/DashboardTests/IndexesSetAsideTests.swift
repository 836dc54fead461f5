import Dashboard
import GRDB
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI
import Testing

/// A rebuild of many subscriptions sets the derived tables' indexes by time, product and cohort
/// aside while it derives them and builds them again at its end (docs/performance.md): a
/// dashboard open beside it must keep working, only slower ("no such index: segment_start" was
/// what it showed).
@Suite struct ReadersWhileIndexesAreSetAside {
    /// The sample store with those indexes dropped, as a rebuild leaves it between its chunks.
    static func runner() throws -> (EffectRunner, dropped: [String]) {
        let queue = try DatabaseQueue()
        let database = try AppDatabase(queue)
        try database.apply(SampleStore.documents(priced: true))
        let dropped = try queue.write { db -> [String] in
            let names = try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN
                      ('subscription', 'period', 'run', 'segment', 'event', 'billingFailure', 'periodMoney', 'offerUse',
                       'subscriberSearch')
                    """)
            var dropped: [String] = []
            for name in names {
                let lead = try String.fetchOne(
                    db, sql: "SELECT name FROM pragma_index_info(?) WHERE seqno = 0", arguments: [name])
                guard lead != "originalTransactionId" else { continue }
                try db.execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
                dropped.append(name)
            }
            return dropped
        }
        return (EffectRunner(analytics: SubscriberAnalytics(database: database)), dropped)
    }

    @Test func everyPaneAndDrillDownLoads() throws {
        let (runner, dropped) = try Self.runner()
        for index in ["segment_start", "run_cohort", "periodMoney_start", "offerUse_start", "segment_live", "run_winBack"] {
            #expect(dropped.contains(index))
        }
        var state = AppState(asOf: SampleStore.asOf, operatorName: "alice")
        drive(.start, &state, runner)
        #expect(state.status == nil)
        #expect(!state.subscribers.rows.isEmpty)
        try keys("enter", state: &state, runner: runner)
        #expect(state.status == nil && state.subscriber.report != nil)
        try keys("3", state: &state, runner: runner)
        #expect(state.status == nil && state.cohorts.grid != nil)
        try keys("enter", state: &state, runner: runner)
        #expect(state.status == nil && state.pane == .subscribers)
        try keys("4", state: &state, runner: runner)
        #expect(state.status == nil && state.statesEvents.figures != nil)
        try keys("enter", state: &state, runner: runner)
        #expect(state.status == nil && state.pane == .subscribers)
        try keys("5", state: &state, runner: runner)
        #expect(state.status == nil && state.offers.board != nil)
        try keys("6", state: &state, runner: runner)
        #expect(state.status == nil && state.money.figures != nil)
        try keys("enter", state: &state, runner: runner)
        #expect(state.status == nil, "\(state.status ?? "")")
    }
}
