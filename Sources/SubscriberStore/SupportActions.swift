import GRDB
import SubscriptionModel

/// One request an operator made of the App Store Server API (README, "Support actions"), as the
/// audit log keeps it: written before it is sent, with every answer (or failure) appended after.
public struct SupportAction: Hashable, Sendable {
    /// What was asked.
    public enum Kind: String, Sendable, CaseIterable {
        case lookupOrder, refundHistory, extend, massExtend, massExtendStatus, link, consumption
    }

    public var id: Int64
    public var kind: Kind
    /// What it acts on: an originalTransactionId, an order ID, a product id.
    public var target: String
    /// `production` or `sandbox`.
    public var environment: String
    /// What was asked, in words ("extend by 7 days (customer-satisfaction)").
    public var summary: String
    /// The body sent, exactly (sent again unchanged on a retry).
    public var request: String?
    public var requestIdentifier: String?
    public var operatorName: String
    public var at: Instant
    public var answers: [SupportAnswer]

    /// Apple's final word: the last answer that is not a failure to get one.
    public var settled: SupportAnswer? { answers.last { $0.outcome != .failed } }
}

/// An answer to a ``SupportAction``.
public struct SupportAnswer: Hashable, Sendable {
    public enum Outcome: String, Sendable {
        /// Apple did it (or answered the lookup).
        case done
        /// Apple answered with an error.
        case refused
        /// No answer: a timeout, a dropped connection, a server error after every retry. Whether
        /// Apple acted is not known.
        case failed
    }

    public var outcome: Outcome
    /// Apple's answer as it came, or the error in words with Apple's code.
    public var answer: String
    public var errorCode: Int?
    /// An extension's new renewal date (`effectiveDate`).
    public var effectiveDate: Instant?
    public var at: Instant

    public init(outcome: Outcome, answer: String, errorCode: Int? = nil, effectiveDate: Instant? = nil, at: Instant) {
        self.outcome = outcome
        self.answer = answer
        self.errorCode = errorCode
        self.effectiveDate = effectiveDate
        self.at = at
    }
}

/// One line of `subdash log`: a flag change or a support action.
public struct AuditEntry: Hashable, Sendable {
    public var at: Instant
    public var operatorName: String
    /// The subscription (or order ID, product) it concerns.
    public var target: String
    /// `flag`, or the action's kind.
    public var kind: String
    /// What was asked.
    public var what: String
    /// Apple's answer or error, what followed (a RENEWAL_EXTENDED notification), or "" for a flag.
    public var answer: String
    public var requestIdentifier: String?
    public var environment: String?
}

extension AppDatabase {
    /// Writes an action before it is sent; returns its id. Refuses an empty operator: the log
    /// never holds an action by nobody.
    public func beginSupportAction(
        kind: SupportAction.Kind, target: String, environment: String, summary: String, request: String?,
        requestIdentifier: String?, operatorName: String, at: Instant
    ) throws -> Int64 {
        guard !operatorName.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw StoreError(OperatorIdentity.missingMessage)
        }
        if let teamLog = teamActionLog {
            var action = OperatorAction(kind: .supportAction, subject: target, operatorName: operatorName, at: at.milliseconds)
            action.supportKind = kind.rawValue
            action.environment = environment
            action.summary = summary
            action.request = request
            action.requestIdentifier = requestIdentifier
            return try beginSupportAction(action, through: teamLog)
        }
        return try WriterTurn.shortWrite(storePath: path) {
            try writer.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO supportAction (kind, target, environment, summary, request, requestIdentifier, operator, at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        kind.rawValue, target, environment, summary, request, requestIdentifier, operatorName, at.milliseconds,
                    ])
                return db.lastInsertedRowID
            }
        }
    }

    /// Appends an answer (or a failure to get one) to action `id`.
    public func recordSupportAnswer(_ answer: SupportAnswer, action id: Int64) throws {
        if let teamLog = teamActionLog { return try recordSupportAnswer(answer, action: id, through: teamLog) }
        try WriterTurn.shortWrite(storePath: path) {
            try writer.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO supportAnswer (actionId, outcome, answer, errorCode, effectiveDate, at) VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        id, answer.outcome.rawValue, answer.answer, answer.errorCode, answer.effectiveDate?.milliseconds,
                        answer.at.milliseconds,
                    ])
            }
        }
    }

    /// Actions oldest first, each with its answers; optionally of one target or kind.
    public func supportActions(target: String? = nil, kind: SupportAction.Kind? = nil) throws -> [SupportAction] {
        try writer.read { db in
            var sql = """
                SELECT id, kind, target, environment, summary, request, requestIdentifier, operator, at FROM supportAction WHERE 1
                """
            var arguments: StatementArguments = []
            if let target {
                sql += " AND target = ?"
                arguments += [target]
            }
            if let kind {
                sql += " AND kind = ?"
                arguments += [kind.rawValue]
            }
            sql += " ORDER BY id"
            var actions = try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                SupportAction(
                    id: row[0], kind: SupportAction.Kind(rawValue: row[1]) ?? .lookupOrder, target: row[2], environment: row[3],
                    summary: row[4], request: row[5], requestIdentifier: row[6], operatorName: row[7],
                    at: Instant(milliseconds: row[8]), answers: [])
            }
            let answers = try db.cachedStatement(
                sql: "SELECT outcome, answer, errorCode, effectiveDate, at FROM supportAnswer WHERE actionId = ? ORDER BY id")
            for index in actions.indices {
                actions[index].answers = try Row.fetchAll(answers, arguments: [actions[index].id]).map { row in
                    SupportAnswer(
                        outcome: SupportAnswer.Outcome(rawValue: row[0]) ?? .failed, answer: row[1], errorCode: row[2],
                        effectiveDate: (row[3] as Int64?).map(Instant.init(milliseconds:)), at: Instant(milliseconds: row[4]))
                }
            }
            return actions
        }
    }

    /// The instants of the RENEWAL_EXTENDED notifications stored for a subscription, oldest first.
    public func renewalExtendedNotifications(originalTransactionId: String) throws -> [Instant] {
        try writer.read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT instant FROM notification WHERE originalTransactionId = ? AND notificationType = 'RENEWAL_EXTENDED'
                    ORDER BY instant
                    """, arguments: [originalTransactionId]
            ).map(Instant.init(milliseconds:))
        }
    }

    /// Each extension Apple accepted for a subscription, with the RENEWAL_EXTENDED notification
    /// that followed it (the first one at or after Apple's answer not matched to an earlier
    /// extension), and the notifications no action of this store asked for (another tool's
    /// extensions, mass extensions).
    public func extensionHistory(originalTransactionId: String) throws -> (
        extensions: [(action: SupportAction, notification: Instant?)], unmatched: [Instant]
    ) {
        var notifications = try renewalExtendedNotifications(originalTransactionId: originalTransactionId)
        var extensions: [(SupportAction, Instant?)] = []
        for action in try supportActions(target: originalTransactionId, kind: .extend) {
            guard let done = action.settled, done.outcome == .done else { continue }
            // The notification is signed after Apple accepted; a minute's slack for the two clocks.
            let from = done.at.adding(milliseconds: -60_000)
            if let index = notifications.firstIndex(where: { $0 >= from }) {
                extensions.append((action, notifications.remove(at: index)))
            } else {
                extensions.append((action, nil))
            }
        }
        return (extensions, notifications)
    }

    /// The instants of the extensions that count toward Apple's two per 365 days, from `since`:
    /// every RENEWAL_EXTENDED notification, and every accepted extension no notification matched yet.
    public func extensionsCounted(originalTransactionId: String, since: Instant) throws -> [Instant] {
        let history = try extensionHistory(originalTransactionId: originalTransactionId)
        let all =
            history.unmatched
            + history.extensions.map { $0.notification ?? $0.action.settled?.at ?? $0.action.at }
        return all.filter { $0 >= since }.sorted()
    }

    /// The audit log, oldest first: every flag change and every support action, with Apple's
    /// answers; optionally of one subscription.
    public func auditLog(target: String? = nil) throws -> [AuditEntry] {
        var entries = try flagLog(originalTransactionId: target).map { change in
            AuditEntry(
                at: change.at, operatorName: change.operatorName, target: change.originalTransactionId, kind: "flag",
                what: "flag \(change.offer.rawValue) \(change.kind.rawValue)" + (change.note.map { ": \($0)" } ?? ""),
                answer: "", requestIdentifier: nil, environment: nil)
        }
        var followed: [Int64: Instant] = [:]
        let extendTargets = Set(try supportActions(target: target, kind: .extend).map(\.target))
        for id in extendTargets {
            for (action, notification) in try extensionHistory(originalTransactionId: id).extensions {
                if let notification { followed[action.id] = notification }
            }
        }
        for action in try supportActions(target: target) {
            var answer: String
            if action.answers.isEmpty {
                answer = "no answer recorded"
            } else {
                answer = action.answers.map { "\($0.outcome.rawValue): \($0.answer)" }.joined(separator: "; ")
            }
            if let notification = followed[action.id] { answer += "; RENEWAL_EXTENDED received \(notification.iso8601)" }
            entries.append(
                AuditEntry(
                    at: action.at, operatorName: action.operatorName, target: action.target, kind: action.kind.rawValue,
                    what: action.summary, answer: answer, requestIdentifier: action.requestIdentifier,
                    environment: action.environment))
        }
        return entries.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }
}
