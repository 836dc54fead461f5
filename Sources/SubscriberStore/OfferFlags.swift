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
    /// What the store records. A `set` on a flag already set replaced it: ``kind`` tells them apart.
    public enum Action: String, Sendable, Codable { case set, clear }
    /// What the line did, as `subdash flags --log` shows it.
    public enum Kind: String, Sendable, Codable { case set, changed, cleared }
    public var id: Int64
    public var originalTransactionId: String
    public var offer: OfferFlagKind
    public var action: Action
    public var note: String?
    public var operatorName: String
    public var at: Instant
    /// `changed` when the flag was already set by an earlier line (the log keeps both).
    public var kind: Kind = .set
}

/// One change of offer flags an operator asked for (from `subdash flag` or the dashboard):
/// what ``AppDatabase/setFlags(_:at:)`` writes.
public struct OfferFlagWrite: Equatable, Sendable {
    public var offer: OfferFlagKind
    public var ids: [String]
    /// Remove the flag instead of setting it.
    public var clear: Bool
    public var operatorName: String
    /// Kept with each flag set (and in the audit log).
    public var note: String?
    /// The operator confirmed replacing flags the subscriptions already have.
    public var replace: Bool

    public init(
        offer: OfferFlagKind, ids: [String], clear: Bool = false, operatorName: String, note: String? = nil,
        replace: Bool = false
    ) {
        self.offer = offer
        self.ids = ids
        self.clear = clear
        self.operatorName = operatorName
        self.note = note
        self.replace = replace
    }
}

extension AppDatabase {
    /// The one way offer flags are written: sets (or with `clear`, removes) `offer` on every
    /// subscription of `write`, in one transaction, each change written to the audit log. Returns
    /// how many flags actually changed.
    ///
    /// A subscription that already has the flag keeps it (its note, operator and date) unless
    /// `replace` says the operator confirmed the change; a replaced flag is logged as another
    /// `set`, so the log holds the earlier flag and the change. Refuses an empty `operatorName`:
    /// the log never holds a change by nobody.
    @discardableResult
    public func setFlags(_ write: OfferFlagWrite, at: Instant) throws -> Int {
        let (offer, originalTransactionIds, note, operatorName, clear, replace) =
            (write.offer, write.ids, write.note, write.operatorName, write.clear, write.replace)
        guard !operatorName.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw StoreError(OperatorIdentity.missingMessage)
        }
        if let teamLog = teamActionLog { return try setFlags(write, through: teamLog, at: at) }
        // An import may be writing: this write goes between its transactions, in its turn.
        return try WriterTurn.shortWrite(storePath: path) {
            try writer.write { db in
                let log = try db.cachedStatement(
                    sql: """
                        INSERT INTO offerFlagLog (originalTransactionId, offer, action, note, operator, at) VALUES (?, ?, ?, ?, ?, ?)
                        """)
                let set = try db.cachedStatement(
                    sql: replace
                        ? """
                        INSERT INTO offerFlag (originalTransactionId, offer, note, operator, at) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT(originalTransactionId, offer) DO UPDATE SET note = excluded.note, operator = excluded.operator,
                            at = excluded.at
                        WHERE offerFlag.note IS NOT excluded.note OR offerFlag.operator IS NOT excluded.operator
                        """
                        : """
                        INSERT INTO offerFlag (originalTransactionId, offer, note, operator, at) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT(originalTransactionId, offer) DO NOTHING
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
    }

    /// Current flags, newest first, optionally of one offer kind or one subscription.
    public func flags(offer: OfferFlagKind? = nil, originalTransactionId: String? = nil) throws -> [OfferFlag] {
        try writer.read { db in
            var sql = "SELECT originalTransactionId, offer, note, operator, at FROM offerFlag WHERE 1"
            var arguments: StatementArguments = []
            if let offer {
                sql += " AND offer = ?"
                arguments += [offer.rawValue]
            }
            if let originalTransactionId {
                sql += " AND originalTransactionId = ?"
                arguments += [originalTransactionId]
            }
            sql += " ORDER BY at DESC, originalTransactionId, offer"
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                OfferFlag(
                    originalTransactionId: row[0], offer: OfferFlagKind(rawValue: row[1]) ?? .service, note: row[2],
                    operatorName: row[3], at: Instant(milliseconds: row[4]))
            }
        }
    }

    /// The audit log, oldest first (by time, then as written), each line's ``OfferFlagChange/kind`` worked out from the
    /// lines before it; optionally of one subscription or one offer kind.
    public func flagLog(originalTransactionId: String? = nil, offer: OfferFlagKind? = nil) throws -> [OfferFlagChange] {
        try writer.read { db in
            var sql = "SELECT id, originalTransactionId, offer, action, note, operator, at FROM offerFlagLog WHERE 1"
            var arguments: StatementArguments = []
            if let originalTransactionId {
                sql += " AND originalTransactionId = ?"
                arguments += [originalTransactionId]
            }
            if let offer {
                sql += " AND offer = ?"
                arguments += [offer.rawValue]
            }
            // In time order: a view of a team log may receive an earlier flag after a later one
            // (docs/team.md, "Operator writes"); a single store's ids are in time order anyway.
            sql += " ORDER BY at, id"
            var isSet = Set<String>()
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                var change = OfferFlagChange(
                    id: row[0], originalTransactionId: row[1], offer: OfferFlagKind(rawValue: row[2]) ?? .service,
                    action: OfferFlagChange.Action(rawValue: row[3]) ?? .set, note: row[4],
                    operatorName: row[5], at: Instant(milliseconds: row[6]))
                let key = change.originalTransactionId + "\u{0}" + change.offer.rawValue
                switch change.action {
                case .set: change.kind = isSet.insert(key).inserted ? .set : .changed
                case .clear:
                    change.kind = .cleared
                    isSet.remove(key)
                }
                return change
            }
        }
    }
}
