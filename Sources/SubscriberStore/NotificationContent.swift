import GRDB
import SubscriptionModel

/// What a stored notification says, to tell a redelivery (the same content under its
/// `notificationUUID`: a duplicate) from another notification under an id already taken (a
/// conflict). The instant is left out: a notification sent again may be signed again, at
/// another `signedDate`; so is the format (a notification history repeats v2 notifications).
struct NotificationContent: Equatable, CustomStringConvertible {
    var notificationType: String
    var subtype: String?
    var originalTransactionId: String?
    var transactionId: String?
    var environment: String
    var status: Int?
    var autoRenewStatus: Bool?
    var bundleId: String?
    /// The stored row's document (not compared).
    var document = ""

    init(_ n: NotificationFact) {
        notificationType = n.notificationType
        subtype = n.subtype
        originalTransactionId = n.originalTransactionId
        transactionId = n.transactionId
        environment = n.environment.rawValue
        status = n.status
        autoRenewStatus = n.autoRenewStatus
        bundleId = n.bundleId
    }

    private init(row: Row) {
        notificationType = row["notificationType"]
        subtype = row["subtype"]
        originalTransactionId = row["originalTransactionId"]
        transactionId = row["transactionId"]
        environment = row["environment"]
        status = row["status"]
        autoRenewStatus = row["autoRenewStatus"]
        bundleId = row["bundleId"]
        document = row["documentSha256"]
    }

    /// The stored notification with this id, if any.
    static func stored(_ notificationId: String, _ db: Database) throws -> NotificationContent? {
        let statement = try db.cachedStatement(
            sql: """
                SELECT notificationType, subtype, originalTransactionId, transactionId, environment, status,
                       autoRenewStatus, bundleId, documentSha256
                FROM notification WHERE notificationId = ?
                """)
        return try Row.fetchOne(statement, arguments: [notificationId]).map(NotificationContent.init(row:))
    }

    static func == (a: NotificationContent, b: NotificationContent) -> Bool {
        (a.notificationType, a.subtype, a.originalTransactionId, a.transactionId, a.environment)
            == (b.notificationType, b.subtype, b.originalTransactionId, b.transactionId, b.environment)
            && a.status == b.status && a.autoRenewStatus == b.autoRenewStatus && a.bundleId == b.bundleId
    }

    /// `DID_RENEW/BILLING_RECOVERY for 2000000000001000 (Production)`.
    var description: String {
        notificationType + (subtype.map { "/" + $0 } ?? "") + (originalTransactionId.map { " for " + $0 } ?? "")
            + " (\(environment))"
    }
}
