import Foundation
import Hummingbird

/// What the fake App Store's support endpoints hold: orders, refunds, each subscription's renewal
/// date and extensions, mass extensions and app account tokens.
public struct FakeSupportState: Sendable {
    /// Order ID → the transactions (JSON) Apple returns for it; any other order ID is invalid (status 1).
    public var orders: [String: [String]] = [:]
    /// The refunded transactions (JSON) of original transaction "1000", in pages of `refundPageSize`.
    var refunds: [String] = []
    var refundPageSize = 2
    /// Original transaction id → its renewal date (ms): the subscriptions Apple knows.
    public var renewalDates: [String: Int64] = [:]
    var familyShared: Set<String> = []
    /// Subscriptions in a state Apple does not extend (4030004).
    var ineligible: Set<String> = []
    /// Extensions applied, per original transaction id.
    var extensions: [String: Int] = [:]
    /// requestIdentifier → the answer given: the same identifier gets the same answer, extended once.
    var answered: [String: String] = [:]
    /// "product/requestIdentifier" of the mass extensions asked for.
    var massRequests: Set<String> = []
    /// Status requests answered "not complete" (5 succeeded per poll so far, none failed) before
    /// the status says complete (30 succeeded, 2 failed).
    public var massIncompletePolls = 0
    /// Status requests answered, per "product/requestIdentifier".
    var massPolls: [String: Int] = [:]
    /// Original transaction id → the app account token set.
    var tokens: [String: String] = [:]
    /// Transaction ids that are not original ones (4000187 for Set App Account Token).
    var laterTransactions: Set<String> = []
    /// Consumption information accepted, per transaction id.
    var consumptionAnswers: [String: Int] = [:]
}

extension FakeAppStore {
    /// The answer of a support endpoint, with Apple's validation and error codes, or nil when
    /// `path` is not one.
    func supportResponse(method: String, path: String, query: [String: String], body: String) -> Response? {
        let object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        func error(_ status: Int, _ code: Int, _ message: String) -> Response {
            Self.json(status, #"{"errorCode":\#(code),"errorMessage":"\#(message)"}"#)
        }
        if method == "GET", path.hasPrefix("/inApps/v1/lookup/") {
            let order = String(path.dropFirst("/inApps/v1/lookup/".count))
            guard let transactions = support.withLock({ $0.orders[order] }) else {
                return Self.json(200, #"{"status":1,"signedTransactions":[]}"#)
            }
            let signed = transactions.map { "\"\(sign($0))\"" }.joined(separator: ",")
            return Self.json(200, #"{"status":0,"signedTransactions":[\#(signed)]}"#)
        }
        if method == "GET", path.hasPrefix("/inApps/v2/refund/lookup/") {
            let id = String(path.dropFirst("/inApps/v2/refund/lookup/".count))
            guard id == "1000" || id.hasPrefix("100") else { return error(404, 4_040_010, "Transaction id not found.") }
            let (refunds, size) = support.withLock { ($0.refunds, $0.refundPageSize) }
            guard let start = query["revision"].map({ Int($0.dropFirst(4)) }) ?? 0 else {
                return error(400, 4_000_005, "Invalid request revision.")
            }
            let page = refunds[min(start, refunds.count)..<min(start + size, refunds.count)]
            let signed = page.map { "\"\(sign($0))\"" }.joined(separator: ",")
            return Self.json(
                200,
                #"{"revision":"ref-\#(start + size)","hasMore":\#(start + size < refunds.count),"signedTransactions":[\#(signed)]}"#
            )
        }
        if method == "PUT", path.hasPrefix("/inApps/v1/subscriptions/extend/"),
            !path.hasPrefix("/inApps/v1/subscriptions/extend/mass")
        {
            let id = String(path.dropFirst("/inApps/v1/subscriptions/extend/".count))
            guard let object else { return error(400, 4_000_000, "Invalid request.") }
            guard let days = object["extendByDays"] as? Int, (1...90).contains(days) else {
                return error(400, 4_000_009, "Invalid extend by days value.")
            }
            guard let reason = object["extendReasonCode"] as? Int, (0...3).contains(reason) else {
                return error(400, 4_000_010, "Invalid extend reason code.")
            }
            guard let requestIdentifier = object["requestIdentifier"] as? String, !requestIdentifier.isEmpty,
                requestIdentifier.count <= 128
            else { return error(400, 4_000_011, "Invalid request identifier.") }
            return support.withLock { state in
                if let earlier = state.answered[requestIdentifier] { return Self.json(200, earlier) }
                guard let renewal = state.renewalDates[id] else {
                    return error(404, 4_040_005, "Original transaction id not found.")
                }
                if state.familyShared.contains(id) {
                    return error(403, 4_030_007, "Family shared subscription extension ineligible.")
                }
                if state.ineligible.contains(id) { return error(403, 4_030_004, "Subscription extension ineligible.") }
                if state.extensions[id, default: 0] >= 2 { return error(403, 4_030_005, "Subscription max extension.") }
                let effective = renewal + Int64(days) * 86_400_000
                state.renewalDates[id] = effective
                state.extensions[id, default: 0] += 1
                let answer =
                    #"{"originalTransactionId":"\#(id)","webOrderLineItemId":"\#(id)-w","success":true,"effectiveDate":\#(effective)}"#
                state.answered[requestIdentifier] = answer
                return Self.json(200, answer)
            }
        }
        if method == "POST", path == "/inApps/v1/subscriptions/extend/mass" {
            guard let object, let product = object["productId"] as? String, !product.isEmpty else {
                return error(400, 4_000_023, "Invalid product id.")
            }
            guard let days = object["extendByDays"] as? Int, (1...90).contains(days) else {
                return error(400, 4_000_009, "Invalid extend by days value.")
            }
            guard let reason = object["extendReasonCode"] as? Int, (0...3).contains(reason) else {
                return error(400, 4_000_010, "Invalid extend reason code.")
            }
            guard let requestIdentifier = object["requestIdentifier"] as? String, !requestIdentifier.isEmpty else {
                return error(400, 4_000_011, "Invalid request identifier.")
            }
            if let codes = object["storefrontCountryCodes"] {
                guard let codes = codes as? [String], !codes.isEmpty else {
                    return error(400, 4_000_027, "Invalid empty storefront country code list.")
                }
                guard codes.allSatisfy({ $0.count == 3 && $0.allSatisfy(\.isUppercase) }) else {
                    return error(400, 4_000_028, "Invalid storefront country code.")
                }
            }
            _ = support.withLock { $0.massRequests.insert(product + "/" + requestIdentifier) }
            return Self.json(200, #"{"requestIdentifier":"\#(requestIdentifier)"}"#)
        }
        if method == "GET", path.hasPrefix("/inApps/v1/subscriptions/extend/mass/") {
            let key = String(path.dropFirst("/inApps/v1/subscriptions/extend/mass/".count))
            guard support.withLock({ $0.massRequests.contains(key) }) else {
                return error(404, 4_040_009, "Status request not found.")
            }
            let id = key.split(separator: "/").last.map(String.init) ?? ""
            let polls = support.withLock { state in
                state.massPolls[key, default: 0] += 1
                return (state.massPolls[key]!, state.massIncompletePolls)
            }
            if polls.0 <= polls.1 {
                return Self.json(
                    200,
                    #"{"requestIdentifier":"\#(id)","complete":false,"succeededCount":\#(5 * polls.0),"failedCount":0}"#)
            }
            return Self.json(
                200,
                #"{"requestIdentifier":"\#(id)","complete":true,"completeDate":1767225600000,"succeededCount":30,"failedCount":2}"#
            )
        }
        if method == "PUT", path.hasPrefix("/inApps/v1/transactions/"), path.hasSuffix("/appAccountToken") {
            let id = String(path.dropFirst("/inApps/v1/transactions/".count).dropLast("/appAccountToken".count))
            guard let token = object?["appAccountToken"] as? String, UUID(uuidString: token) != nil else {
                return error(400, 4_000_183, "Invalid app account token.")
            }
            return support.withLock { state in
                if state.laterTransactions.contains(id) {
                    return error(400, 4_000_187, "Transaction id is not original transaction id.")
                }
                if state.familyShared.contains(id) { return error(400, 4_000_185, "Family transaction not supported.") }
                guard state.renewalDates[id] != nil else { return error(404, 4_040_010, "Transaction id not found.") }
                state.tokens[id] = token
                return Self.json(200, "")
            }
        }
        if method == "PUT", path.hasPrefix("/inApps/v2/transactions/consumption/") {
            let id = String(path.dropFirst("/inApps/v2/transactions/consumption/".count))
            guard let object else { return error(400, 4_000_000, "Invalid request.") }
            guard object["customerConsented"] as? Bool == true else {
                return error(400, 4_000_035, "Invalid customer consented.")
            }
            let statuses = [
                "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
                "UNDELIVERED_OTHER",
            ]
            guard let delivery = object["deliveryStatus"] as? String, statuses.contains(delivery) else {
                return error(400, 4_000_036, "Invalid delivery status.")
            }
            guard object["sampleContentProvided"] is Bool else {
                return error(400, 4_000_041, "Invalid sample content provided.")
            }
            if let percentage = object["consumptionPercentage"] {
                guard let value = percentage as? Int, (0...100_000).contains(value), delivery == "DELIVERED" || value == 0,
                    object["refundPreference"] as? String != "GRANT_PRORATED"
                else { return error(400, 4_000_000, "Invalid consumption percentage.") }
            }
            if let preference = object["refundPreference"] {
                guard let value = preference as? String, ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"].contains(value) else {
                    return error(400, 4_000_000, "Invalid refund preference.")
                }
            }
            guard id.hasPrefix("100") else { return error(404, 4_040_010, "Transaction id not found.") }
            support.withLock { $0.consumptionAnswers[id, default: 0] += 1 }
            return Self.json(202, "")
        }
        return nil
    }

    /// A transaction (JSON) with the app account token set for its subscription, when there is one,
    /// signed now as Apple signs what it answers (so the version carrying the token is the newer).
    func withAccountToken(_ transaction: String) -> String {
        let tokens = support.withLock { $0.tokens }
        for (id, token) in tokens where transaction.contains(#""originalTransactionId":"\#(id)""#) {
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            return transaction.replacingOccurrences(
                of: #""originalTransactionId":"#, with: #""appAccountToken":"\#(token)","originalTransactionId":"#
            ).replacingOccurrences(of: #""signedDate":[0-9]+"#, with: #""signedDate":\#(now)"#, options: .regularExpression)
        }
        return transaction
    }
}
