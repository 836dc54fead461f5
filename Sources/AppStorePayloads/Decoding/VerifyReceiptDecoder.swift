import SubscriptionModel

/// A `/verifyReceipt` response body: transactions from `latest_receipt_info` (or `receipt.in_app`
/// when there is none) and renewal facts from `pending_renewal_info`.
enum VerifyReceiptDecoder {
    static func decode(_ root: JSONObject) throws(PayloadError) -> DocumentFacts {
        let top = FieldReader(root, path: "")
        guard let status = try top.int("status") else { throw top.missing("status") }
        guard status == 0 else { throw PayloadError(Self.statusMessage(status)) }
        let environment = try ReceiptRows.environment(top, "environment") ?? .production

        var rows = ReceiptRows(environment: environment)
        let latest = try top.objects("latest_receipt_info")
        if latest.isEmpty, let receipt = try top.object("receipt") {
            for row in try receipt.objects("in_app") { try rows.add(row) }
        } else {
            for row in latest { try rows.add(row) }
        }
        // A response carries no instant of its own. Like a v1 notification, its renewal facts
        // speak at the latest purchase or cancellation among the subscription's rows; a
        // subscription with no rows falls back to the latest row of any, then the request date.
        var fallback = rows.latestInstantOverall
        if fallback == nil, let receipt = try top.object("receipt") {
            fallback = try receipt.v1Milliseconds("request_date_ms")
        }
        var renewals: [RenewalFact] = []
        for row in try top.objects("pending_renewal_info") {
            let originalTransactionId = try row.requiredV1String("original_transaction_id")
            guard let instant = rows.latestInstant[originalTransactionId] ?? fallback else {
                throw PayloadError(
                    "\(row.path): no instant for subscription \(originalTransactionId): the response has "
                        + "no latest_receipt_info row with purchase_date_ms and no receipt.request_date_ms")
            }
            renewals.append(
                try ReceiptRows.renewal(
                    row, instant: instant,
                    transactionId: rows.latestRow[originalTransactionId]?.transactionId,
                    environment: environment))
        }
        return DocumentFacts(format: .verifyReceipt, transactions: rows.transactions, renewals: renewals)
    }

    /// Apple's `status` codes (appstorereceipts/status), as one line a person can act on.
    static func statusMessage(_ status: Int) -> String {
        let meaning: String
        switch status {
        case 21000: meaning = "the request to the App Store was not an HTTP POST"
        case 21001: meaning = "status 21001 is no longer sent by the App Store"
        case 21002: meaning = "the receipt-data was malformed or the service had a temporary issue (try again)"
        case 21003: meaning = "the receipt could not be authenticated"
        case 21004: meaning = "the shared secret does not match the one on file for the account"
        case 21005: meaning = "the receipt server was temporarily unable to provide the receipt (try again)"
        case 21006: meaning = "the receipt is valid but the subscription has expired (iOS 6-style receipt)"
        case 21007:
            meaning =
                "this receipt is from the sandbox but was sent to production for verification (verify it against the sandbox)"
        case 21008:
            meaning =
                "this receipt is from production but was sent to the sandbox for verification (verify it against production)"
        case 21009: meaning = "internal data access error at the App Store (try again later)"
        case 21010: meaning = "the user account cannot be found or has been deleted"
        case 21100...21199: meaning = "internal data access error at the App Store (try again later)"
        default: meaning = "an unknown status code"
        }
        return "verifyReceipt status \(status): \(meaning); the response holds no receipt to import"
    }
}
