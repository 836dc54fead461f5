import GRDB

extension AppDatabase {
    /// Every subscription (`originalTransactionId`) an id a support agent pasted can mean:
    /// an originalTransactionId, a transactionId, a webOrderLineItemId, an appAccountToken, an
    /// appTransactionId (every subscription of that Apple Account), a user id or an email
    /// (case-insensitive). Each path is an index lookup. Sorted.
    /// (CROSS JOIN keeps the customers as the outer loop: with no customers imported SQLite chose
    /// to scan every transaction instead — 1 s per lookup at 1,000,000 subscribers.)
    public func subscriptions(matching id: String) throws -> [String] {
        let id = id.trimmingCharacters(in: .whitespaces)
        guard !id.isEmpty else { return [] }
        return try writer.read { db in try Self.subscriptions(matching: id, in: db) }
    }

    static func subscriptions(matching id: String, in db: Database) throws -> [String] {
        let sql = """
            SELECT originalTransactionId FROM "transaction" WHERE originalTransactionId = ?1
            UNION SELECT originalTransactionId FROM "transaction" WHERE transactionId = ?1
            UNION SELECT originalTransactionId FROM "transaction" WHERE webOrderLineItemId = ?1
            UNION SELECT originalTransactionId FROM "transaction" WHERE appAccountToken = ?1
            UNION SELECT originalTransactionId FROM notification WHERE originalTransactionId = ?1
            UNION SELECT originalTransactionId FROM "transaction" WHERE appTransactionId = ?1
            UNION SELECT originalTransactionId FROM renewalFact WHERE appTransactionId = ?1
            UNION SELECT c.originalTransactionId FROM customer c
                  WHERE c.originalTransactionId <> '' AND (c.userId = ?1 OR c.email = ?1 COLLATE NOCASE OR c.appAccountToken = ?1)
            UNION SELECT t.originalTransactionId FROM customer c CROSS JOIN "transaction" t ON t.appAccountToken = c.appAccountToken
                  WHERE c.appAccountToken <> '' AND (c.userId = ?1 OR c.email = ?1 COLLATE NOCASE)
            ORDER BY 1
            """
        return try String.fetchAll(db, sql: sql, arguments: [id])
    }

    /// The customer ids linked to a subscription (directly or through its appAccountToken).
    public func customer(of originalTransactionId: String) throws -> (userId: String?, email: String?, appAccountToken: String?) {
        try writer.read { db in
            let token = try String.fetchOne(
                db,
                sql: """
                    SELECT appAccountToken FROM "transaction" WHERE originalTransactionId = ? AND appAccountToken IS NOT NULL
                    ORDER BY purchaseDate DESC LIMIT 1
                    """, arguments: [originalTransactionId])
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT NULLIF(userId, ''), NULLIF(email, ''), NULLIF(appAccountToken, '') FROM customer
                    WHERE originalTransactionId = ?1 OR (appAccountToken <> '' AND appAccountToken = ?2)
                    ORDER BY userId = '', email = '', userId, email LIMIT 1
                    """, arguments: [originalTransactionId, token])
            return (row?[0], row?[1], (row?[2] as String?) ?? token)
        }
    }
}
