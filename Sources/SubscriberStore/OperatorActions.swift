import Foundation
import GRDB
import SubscriptionModel

/// An operator's write as a team log carries it (docs/team.md, "Operator writes"): a flag set or
/// cleared with its note, a support action written before it is sent, or an answer to one. A view
/// applies it with ``AppDatabase/applyOperatorActions(_:)``; the store it is applied to knows it
/// by everything it says (no id of the log's is kept in the store), so applying it again, from a
/// replayed sync or after the writer's own local write, changes nothing.
public struct OperatorAction: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case flag, supportAction, supportAnswer }
    public var kind: Kind
    /// The subscription (or order ID, product) it concerns.
    public var subject: String
    public var operatorName: String
    /// Milliseconds since 1970. A flag's is the log's clock when it committed, so "the later flag"
    /// means the same on every host; a support action's and an answer's are the operator's.
    public var at: Int64
    /// A flag's offer kind, whether it clears it, and its note.
    public var offer: String?
    public var clear: Bool?
    public var note: String?
    /// A support action's kind (an answer's: the answered action's), environment, summary, body
    /// sent and request identifier.
    public var supportKind: String?
    public var environment: String?
    public var summary: String?
    public var request: String?
    public var requestIdentifier: String?
    /// An answer: the instant of the action it answers (with `supportKind`, `subject` and
    /// `operatorName`, which name it), and the answer.
    public var actionAt: Int64?
    public var outcome: String?
    public var answer: String?
    public var errorCode: Int?
    public var effectiveDate: Int64?

    public init(kind: Kind, subject: String, operatorName: String, at: Int64) {
        self.kind = kind
        self.subject = subject
        self.operatorName = operatorName
        self.at = at
    }
}

/// Where a view's operator writes are committed before the view writes them (docs/team.md,
/// "Operator writes"): the team log.
public protocol OperatorActionLog: Sendable {
    /// Commits `actions` to the log in one transaction, or throws a ``StoreError`` saying why it
    /// could not (nothing committed). Returns them as committed: a flag's `at` is the log's clock.
    func commit(_ actions: [OperatorAction]) throws -> [OperatorAction]
}

extension AppDatabase {
    /// From now on, flags and support actions written through this store are committed to `log`
    /// first and then written here (the same rows a sync of them writes, so a sync does not double
    /// them); a write the log refuses or cannot take is not written here either. nil: here only.
    public func writeOperatorActions(through log: (any OperatorActionLog)?) {
        operatorActionLog.withLock { $0 = log }
    }

    var teamActionLog: (any OperatorActionLog)? { operatorActionLog.withLock { $0 } }

    /// Applies actions read from a team log (or committed to it by this store), each once: an
    /// action whose row the store holds already is skipped. A flag set replaces the current flag
    /// only when it is at least as late, and a clear removes only an earlier flag, so views that
    /// apply the same actions in any order agree: the later one wins, and the audit log keeps both.
    /// - Returns: how many were new to the store.
    @discardableResult
    public func applyOperatorActions(_ actions: [OperatorAction]) throws -> Int {
        guard !actions.isEmpty else { return 0 }
        return try WriterTurn.shortWrite(storePath: path) {
            try writer.write { db in try Self.applyOperatorActions(actions, db) }
        }
    }

    static func applyOperatorActions(_ actions: [OperatorAction], _ db: Database) throws -> Int {
        var new = 0
        for action in actions {
            switch action.kind {
            case .flag: if try applyFlag(action, db) { new += 1 }
            case .supportAction: if try applySupportAction(action, db) != nil { new += 1 }
            case .supportAnswer: if try applySupportAnswer(action, db) { new += 1 }
            }
        }
        return new
    }

    private static func applyFlag(_ action: OperatorAction, _ db: Database) throws -> Bool {
        guard let offer = action.offer, OfferFlagKind(rawValue: offer) != nil else { return false }
        let verb = action.clear == true ? "clear" : "set"
        let held = try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM offerFlagLog WHERE originalTransactionId = ? AND offer = ? AND action = ?
                    AND note IS ? AND operator = ? AND at = ?)
                """, arguments: [action.subject, offer, verb, action.note, action.operatorName, action.at])
        guard held != true else { return false }
        try db.execute(
            sql: "INSERT INTO offerFlagLog (originalTransactionId, offer, action, note, operator, at) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [action.subject, offer, verb, action.note, action.operatorName, action.at])
        let current = try Int64.fetchOne(
            db, sql: "SELECT at FROM offerFlag WHERE originalTransactionId = ? AND offer = ?", arguments: [action.subject, offer])
        if let current, current > action.at { return true }  // a later flag stands
        if action.clear == true {
            try db.execute(
                sql: "DELETE FROM offerFlag WHERE originalTransactionId = ? AND offer = ?", arguments: [action.subject, offer])
        } else {
            try db.execute(
                sql: """
                    INSERT INTO offerFlag (originalTransactionId, offer, note, operator, at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(originalTransactionId, offer) DO UPDATE SET note = excluded.note, operator = excluded.operator,
                        at = excluded.at
                    """, arguments: [action.subject, offer, action.note, action.operatorName, action.at])
        }
        return true
    }

    /// The store's id of the support action named by kind, target, operator and instant.
    private static func supportActionId(
        kind: String, target: String, operatorName: String, at: Int64, _ db: Database
    ) throws -> Int64? {
        try Int64.fetchOne(
            db,
            sql: "SELECT id FROM supportAction WHERE kind = ? AND target = ? AND operator = ? AND at = ? ORDER BY id LIMIT 1",
            arguments: [kind, target, operatorName, at])
    }

    /// The new action's id, or nil when the store holds it already.
    private static func applySupportAction(_ action: OperatorAction, _ db: Database) throws -> Int64? {
        guard let kind = action.supportKind, SupportAction.Kind(rawValue: kind) != nil else { return nil }
        if try supportActionId(kind: kind, target: action.subject, operatorName: action.operatorName, at: action.at, db)
            != nil
        {
            return nil
        }
        try db.execute(
            sql: """
                INSERT INTO supportAction (kind, target, environment, summary, request, requestIdentifier, operator, at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                kind, action.subject, action.environment ?? "", action.summary ?? "", action.request,
                action.requestIdentifier, action.operatorName, action.at,
            ])
        return db.lastInsertedRowID
    }

    private static func applySupportAnswer(_ action: OperatorAction, _ db: Database) throws -> Bool {
        guard let kind = action.supportKind, let actionAt = action.actionAt, let outcome = action.outcome,
            SupportAnswer.Outcome(rawValue: outcome) != nil,
            let parent = try supportActionId(
                kind: kind, target: action.subject, operatorName: action.operatorName, at: actionAt, db)
        else { return false }
        let held = try Bool.fetchOne(
            db,
            sql: "SELECT EXISTS (SELECT 1 FROM supportAnswer WHERE actionId = ? AND outcome = ? AND answer = ? AND at = ?)",
            arguments: [parent, outcome, action.answer ?? "", action.at])
        guard held != true else { return false }
        try db.execute(
            sql: """
                INSERT INTO supportAnswer (actionId, outcome, answer, errorCode, effectiveDate, at) VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [parent, outcome, action.answer ?? "", action.errorCode, action.effectiveDate, action.at])
        return true
    }

    /// `setFlags` in a view of a team log: the subscriptions whose flag would change are worked
    /// out here (as a local write decides), their changes committed to the log, then applied here.
    func setFlags(_ write: OfferFlagWrite, through log: any OperatorActionLog, at: Instant) throws -> Int {
        let offer = write.offer.rawValue
        let changing: [String] = try writer.read { db in
            try Set(write.ids).sorted().filter { id in
                let row = try Row.fetchOne(
                    db, sql: "SELECT note, operator FROM offerFlag WHERE originalTransactionId = ? AND offer = ?",
                    arguments: [id, offer])
                guard let row else { return !write.clear }
                if write.clear { return true }
                return write.replace && ((row[0] as String?) != write.note || (row[1] as String) != write.operatorName)
            }
        }
        guard !changing.isEmpty else { return 0 }
        let actions = changing.map { id in
            var action = OperatorAction(kind: .flag, subject: id, operatorName: write.operatorName, at: at.milliseconds)
            action.offer = offer
            action.clear = write.clear ? true : nil
            action.note = write.note
            return action
        }
        try applyOperatorActions(try log.commit(actions))
        return changing.count
    }

    /// `beginSupportAction` in a view of a team log: committed there, then written here.
    func beginSupportAction(_ action: OperatorAction, through log: any OperatorActionLog) throws -> Int64 {
        let committed = try log.commit([action])
        return try WriterTurn.shortWrite(storePath: path) {
            try writer.write { db in
                _ = try Self.applyOperatorActions(committed, db)
                guard
                    let id = try Self.supportActionId(
                        kind: action.supportKind ?? "", target: action.subject, operatorName: action.operatorName,
                        at: action.at, db)
                else { throw StoreError("the support action committed to the team log could not be written here") }
                return id
            }
        }
    }

    /// `recordSupportAnswer` in a view of a team log: committed there, then written here. An
    /// answer the log cannot take is still written here (Apple has answered), and the error says so.
    func recordSupportAnswer(_ answer: SupportAnswer, action id: Int64, through log: any OperatorActionLog) throws {
        let answered = try writer.read { db in
            try Row.fetchOne(db, sql: "SELECT kind, target, operator, at FROM supportAction WHERE id = ?", arguments: [id])
        }
        guard let answered else { throw StoreError("no support action \(id) in this store") }
        var action = OperatorAction(
            kind: .supportAnswer, subject: answered[1], operatorName: answered[2], at: answer.at.milliseconds)
        action.supportKind = answered[0]
        action.actionAt = answered[3]
        action.outcome = answer.outcome.rawValue
        action.answer = answer.answer
        action.errorCode = answer.errorCode
        action.effectiveDate = answer.effectiveDate?.milliseconds
        do {
            try applyOperatorActions(try log.commit([action]))
        } catch let error as StoreError {
            try applyOperatorActions([action])
            throw StoreError("Apple's answer is kept in this store, but not in the team log: \(error.message)")
        }
    }
}
