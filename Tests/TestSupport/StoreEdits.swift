import GRDB
import SubscriberStore

extension AppDatabase {
    /// Takes the latest transaction away from the first `count` subscriptions (by id) that have
    /// more than one period, as if their last renewal or refund had not arrived yet, and marks them
    /// pending: the next `rebuildPending()` replaces their derived rows with shorter lives. Tests
    /// of the kept tables use it to check the tables follow a rebuild, down to rows falling to zero.
    public func takeLatestTransactionAway(fromSubscriptions count: Int) throws {
        try writer.write { db in
            try db.execute(
                sql: """
                    DROP TABLE IF EXISTS temp.chosen;
                    CREATE TEMP TABLE chosen AS
                        SELECT originalTransactionId FROM subscription WHERE periodCount > 1
                        ORDER BY originalTransactionId LIMIT \(count);
                    DELETE FROM "transaction" WHERE transactionId IN (
                        SELECT (SELECT t.transactionId FROM "transaction" t WHERE t.originalTransactionId = c.originalTransactionId
                                ORDER BY t.purchaseDate DESC LIMIT 1) FROM chosen c);
                    INSERT INTO pendingSubscription SELECT originalTransactionId FROM chosen;
                    """)
        }
    }
}
