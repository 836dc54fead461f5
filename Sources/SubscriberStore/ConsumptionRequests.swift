import Foundation
import GRDB
import SubscriptionModel

/// A CONSUMPTION_REQUEST notification: Apple asks for consumption information about a refund the
/// customer requested (README, "Support actions").
public struct ConsumptionRequestRecord: Hashable, Sendable {
    public var notificationId: String
    public var at: Instant
    public var transactionId: String?
    public var originalTransactionId: String?
    public var environment: String
    /// Apple's `consumptionRequestReason` (UNINTENDED_PURCHASE, FULFILLMENT_ISSUE,
    /// UNSATISFIED_WITH_PURCHASE, LEGAL, OTHER), read from the archived signed payload; nil when
    /// it carries none (or an unknown value, kept out of what the team sees).
    public var reason: String?
    /// The REFUND or REFUND_DECLINED notification that followed, and when.
    public var outcome: (type: String, at: Instant)?

    public static func == (a: Self, b: Self) -> Bool { a.notificationId == b.notificationId }
    public func hash(into hasher: inout Hasher) { hasher.combine(notificationId) }

    public static let reasons: Set<String> = [
        "UNINTENDED_PURCHASE", "FULFILLMENT_ISSUE", "UNSATISFIED_WITH_PURCHASE", "LEGAL", "OTHER",
    ]
}

extension AppDatabase {
    /// Every CONSUMPTION_REQUEST stored, oldest first, with the outcome that followed it.
    public func consumptionRequests() throws -> [ConsumptionRequestRecord] {
        let rows = try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT r.notificationId, r.instant, r.transactionId, r.originalTransactionId, r.environment, r.documentSha256,
                        (SELECT o.notificationType || ' ' || o.instant FROM notification o
                         WHERE o.notificationType IN ('REFUND', 'REFUND_DECLINED') AND o.instant >= r.instant
                             AND o.transactionId = r.transactionId
                         ORDER BY o.instant LIMIT 1) AS outcome
                    FROM notification r WHERE r.notificationType = 'CONSUMPTION_REQUEST' ORDER BY r.instant, r.notificationId
                    """)
        }
        return try rows.map { row in
            var record = ConsumptionRequestRecord(
                notificationId: row[0], at: Instant(milliseconds: row[1]), transactionId: row[2], originalTransactionId: row[3],
                environment: row[4], reason: nil, outcome: nil)
            if let body = try archivedBody(sha256: row[5]) {
                let reason = Self.consumptionReason(in: body, notificationId: record.notificationId)
                record.reason = reason.flatMap { ConsumptionRequestRecord.reasons.contains($0) ? $0 : nil }
            }
            if let outcome = row[6] as String? {
                let parts = outcome.split(separator: " ")
                if parts.count == 2, let ms = Int64(parts[1]) { record.outcome = (String(parts[0]), Instant(milliseconds: ms)) }
            }
            return record
        }
    }

    /// `data.consumptionRequestReason` of the notification `notificationId` in an archived
    /// document (a signed payload, `{"signedPayload": …}`, or a page of notification history).
    /// The document was verified when it was applied; only its payload is read here.
    static func consumptionReason(in body: Data, notificationId: String) -> String? {
        (notificationPayload(in: body, notificationId: notificationId)?["data"] as? [String: Any])?["consumptionRequestReason"]
            as? String
    }
}
