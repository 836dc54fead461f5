import GRDB
import SubscriptionModel

/// A current offer flag on a subscription.
public struct OfferFlag: Hashable, Sendable, Codable {
    public var originalTransactionId: String
    public var offer: OfferFlagKind
    public var note: String?
    public var operatorName: String
    public var at: Instant

    public init(originalTransactionId: String, offer: OfferFlagKind, note: String?, operatorName: String, at: Instant) {
        self.originalTransactionId = originalTransactionId
        self.offer = offer
        self.note = note
        self.operatorName = operatorName
        self.at = at
    }
}

/// One line of the append-only audit log.
public struct OfferFlagChange: Hashable, Sendable, Codable {
    public enum Action: String, Sendable, Codable { case set, clear }
    public var id: Int64
    public var originalTransactionId: String
    public var offer: OfferFlagKind
    public var action: Action
    public var note: String?
    public var operatorName: String
    public var at: Instant
}

extension AppDatabase {
    /// Sets (or with `clear`, removes) `offer` on every subscription, in one transaction, each
    /// change written to the audit log. Returns how many flags actually changed.
    @discardableResult
    public func setFlags(_ offer: OfferFlagKind, on originalTransactionIds: [String], note: String?, operatorName: String,
                         at: Instant, clear: Bool = false) throws -> Int {
        try writer.write { db in
            let log = try db.cachedStatement(sql: """
                INSERT INTO offerFlagLog (originalTransactionId, offer, action, note, operator, at) VALUES (?, ?, ?, ?, ?, ?)
                """)
            let set = try db.cachedStatement(sql: """
                INSERT INTO offerFlag (originalTransactionId, offer, note, operator, at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(originalTransactionId, offer) DO UPDATE SET note = excluded.note, operator = excluded.operator,
                    at = excluded.at
                WHERE offerFlag.note IS NOT excluded.note
                """)
            let remove = try db.cachedStatement(sql: "DELETE FROM offerFlag WHERE originalTransactionId = ? AND offer = ?")
            var changed = 0
            for id in Set(originalTransactionIds).sorted() {
                if clear {
                    try remove.execute(arguments: [id, offer.rawValue])
                } else {
                    try set.execute(arguments: [id, offer.rawValue, note, operatorName, at.milliseconds])
                }
                guard db.changesCount > 0 else { continue }
                changed += 1
                try log.execute(arguments: [id, offer.rawValue, clear ? "clear" : "set", note, operatorName, at.milliseconds])
            }
            return changed
        }
    }

    /// Current flags, newest first, optionally of one offer kind or one subscription.
    public func flags(offer: OfferFlagKind? = nil, originalTransactionId: String? = nil) throws -> [OfferFlag] {
        try writer.read { db in
            var sql = "SELECT originalTransactionId, offer, note, operator, at FROM offerFlag WHERE 1"
            var arguments: StatementArguments = []
            if let offer { sql += " AND offer = ?"; arguments += [offer.rawValue] }
            if let originalTransactionId { sql += " AND originalTransactionId = ?"; arguments += [originalTransactionId] }
            sql += " ORDER BY at DESC, originalTransactionId, offer"
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                OfferFlag(originalTransactionId: row[0], offer: OfferFlagKind(rawValue: row[1]) ?? .service, note: row[2],
                          operatorName: row[3], at: Instant(milliseconds: row[4]))
            }
        }
    }

    /// The audit log, oldest first.
    public func flagLog(originalTransactionId: String? = nil) throws -> [OfferFlagChange] {
        try writer.read { db in
            var sql = "SELECT id, originalTransactionId, offer, action, note, operator, at FROM offerFlagLog"
            var arguments: StatementArguments = []
            if let originalTransactionId { sql += " WHERE originalTransactionId = ?"; arguments += [originalTransactionId] }
            sql += " ORDER BY id"
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                OfferFlagChange(id: row[0], originalTransactionId: row[1], offer: OfferFlagKind(rawValue: row[2]) ?? .service,
                                action: OfferFlagChange.Action(rawValue: row[3]) ?? .set, note: row[4], operatorName: row[5],
                                at: Instant(milliseconds: row[6]))
            }
        }
    }
}
