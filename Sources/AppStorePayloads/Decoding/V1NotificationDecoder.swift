import SubscriptionModel

/// App Store Server Notifications v1 (`responseBodyV1`), including the legacy top-level
/// `latest_receipt_info` / `latest_expired_receipt_info` of notifications sent before March 2021.
enum V1NotificationDecoder {
    static func decode(_ root: JSONObject, sha256: String) throws(PayloadError) -> DocumentFacts {
        let top = FieldReader(root, path: "")
        let type = try top.requiredString("notification_type")
        let unified = try top.object("unified_receipt")
        var wireEnvironment = try ReceiptRows.environment(top, "environment")
        if wireEnvironment == nil, let unified { wireEnvironment = try ReceiptRows.environment(unified, "environment") }
        let environment = wireEnvironment ?? .production

        var rows = ReceiptRows(environment: environment)
        if let unified {
            for row in try unified.objects("latest_receipt_info") { try rows.add(row) }
        }
        for key in ["latest_receipt_info", "latest_expired_receipt_info"] {
            for row in try legacyRows(top, key) { try rows.add(row) }
        }
        var pending = try unified?.objects("pending_renewal_info") ?? []
        if pending.isEmpty { pending = try top.objects("pending_renewal_info") }

        // The subscription the notification is about.
        var subject = try top.v1String("original_transaction_id") ?? rows.latestOverall?.originalTransactionId
        if subject == nil, let first = pending.first { subject = try first.v1String("original_transaction_id") }
        if let subject, let cancelled = try top.v1Milliseconds("cancellation_date_ms") {
            rows.noteInstant(cancelled, for: subject)
        }

        // docs/metrics.md, "Fact instants": the toggle's own date for DID_CHANGE_RENEWAL_STATUS, else
        // the latest purchase or cancellation among the subject's rows.
        let isToggleType = type == "DID_CHANGE_RENEWAL_STATUS"
        let changeDate = try isToggleType ? top.v1Milliseconds("auto_renew_status_change_date_ms") : nil
        guard let instant = changeDate ?? subject.flatMap({ rows.latestInstant[$0] }) ?? rows.latestInstantOverall else {
            throw PayloadError(
                "\(type) notification has no instant: no auto_renew_status_change_date_ms and no "
                    + "latest_receipt_info row with purchase_date_ms or cancellation_date_ms")
        }

        let notification = NotificationFact(
            notificationId: "sha256:" + sha256,
            format: .v1Notification,
            notificationType: type,
            instant: instant,
            originalTransactionId: subject,
            transactionId: subject.flatMap { rows.latestRow[$0]?.transactionId },
            environment: environment,
            autoRenewStatus: try isToggleType ? top.v1Bool("auto_renew_status") : nil,
            bundleId: try top.v1String("bid"))

        var renewals: [RenewalFact] = []
        renewals.reserveCapacity(pending.count)
        // A toggle's date is the instant of the whole document, so every renewal fact it carries
        // speaks at that date; otherwise each subscription speaks at its own latest row.
        for row in pending {
            let originalTransactionId = try row.requiredV1String("original_transaction_id")
            let factInstant = changeDate ?? rows.latestInstant[originalTransactionId] ?? instant
            renewals.append(
                try ReceiptRows.renewal(
                    row, instant: factInstant,
                    transactionId: rows.latestRow[originalTransactionId]?.transactionId,
                    environment: environment))
        }
        return DocumentFacts(
            format: .v1Notification, notifications: [notification],
            transactions: rows.transactions, renewals: renewals)
    }

    /// Legacy top-level receipt info: one object (sometimes `{}`), or an array of them.
    private static func legacyRows(_ top: FieldReader, _ key: String) throws(PayloadError) -> [FieldReader] {
        switch top.object[key] {
        case nil, .null?: return []
        case .object(let o)?: return o.isEmpty ? [] : [FieldReader(o, path: key)]
        case .array?: return try top.objects(key)
        case let value?: throw top.mismatch(key, expected: "an object or an array of objects", found: value)
        }
    }
}
