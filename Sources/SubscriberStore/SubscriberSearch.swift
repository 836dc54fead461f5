import GRDB

extension AppDatabase {
    /// The most subscriptions one search returns: a prefix such as `2` matches nearly everyone, and
    /// a list of that size is no answer to "find this customer".
    public static let searchLimit = 5_000

    /// Subscriptions a support agent's partial text can mean, sorted, at most `limit`: a prefix of the
    /// originalTransactionId, of any transactionId or webOrderLineItemId, of the appAccountToken, user
    /// id or email (case-insensitively), or, from three characters on, a substring of the
    /// originalTransactionId, appAccountToken, user id or email; and every exact match
    /// ``subscriptions(matching:)`` finds (any customer row linked to it).
    ///
    /// Prefixes are index ranges. A substring cannot use an index: it reads every row of
    /// `subscriberSearch` (one short row per subscription), stopping once `limit` have matched.
    public func subscriptions(searching text: String, limit: Int = AppDatabase.searchLimit) throws -> [String] {
        try writer.read { db in try Self.subscriptions(searching: text, limit: limit, in: db) }
    }

    /// The same inside a read the caller holds.
    public static func subscriptions(searching text: String, limit: Int, in db: Database) throws -> [String] {
        let query = text.trimmingCharacters(in: .whitespaces)
        guard !query.isEmpty else { return [] }
        // [q, q + U+10FFFF) holds every string that starts with q, under BINARY and NOCASE alike
        // (U+10FFFF sorts after every character).
        let high = query + "\u{10FFFF}"
        func range(_ table: String, _ column: String) -> String {
            "SELECT * FROM (SELECT originalTransactionId FROM \(table) WHERE \(column) >= ?1 AND \(column) < ?2 LIMIT ?3)"
        }
        var branches = [
            range("subscription", "originalTransactionId"),
            range("\"transaction\"", "transactionId"),
            range("\"transaction\"", "webOrderLineItemId"),
            range("subscriberSearch", "userId"),
            range("subscriberSearch", "email"),
            range("subscriberSearch", "appAccountToken"),
        ]
        if query.count >= 3 {
            branches.append(
                """
                SELECT * FROM (SELECT originalTransactionId FROM subscriberSearch
                    WHERE instr(originalTransactionId, ?4) OR instr(lower(userId), ?4) OR instr(lower(email), ?4)
                       OR instr(lower(appAccountToken), ?4)
                    LIMIT ?3)
                """)
        }
        let sql = branches.joined(separator: "\nUNION ") + "\nORDER BY 1 LIMIT ?3"
        var arguments: StatementArguments = [query, high, limit]
        if query.count >= 3 { arguments += [query.lowercased()] }
        var found = try String.fetchAll(db, sql: sql, arguments: arguments)
        if found.count < limit {
            let exact = try subscriptions(matching: query, in: db)
            if !exact.allSatisfy(Set(found).contains) {
                found = Array(Set(found).union(exact).sorted().prefix(limit))
            }
        }
        return found
    }

    /// `SELECT column` of the customer row a subscription `s` is shown with: linked by its
    /// originalTransactionId or its appAccountToken, the one with a user id and an email first
    /// (as ``customer(of:)`` picks it). '' reads as NULL.
    static func customerSQL(_ column: String, subscription: String = "s") -> String {
        """
        (SELECT NULLIF(c.\(column), '') FROM customer c
         WHERE c.originalTransactionId = \(subscription).originalTransactionId
            OR (c.appAccountToken <> '' AND c.appAccountToken = \(subscription).appAccountToken)
         ORDER BY c.userId = '', c.email = '', c.userId, c.email LIMIT 1)
        """
    }
}
