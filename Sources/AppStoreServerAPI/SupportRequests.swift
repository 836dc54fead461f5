import Foundation

/// The App Store Server API requests a support agent acts with (README, "Support actions"): find a
/// purchase by the order ID of Apple's receipt, the refunds Apple granted, and the requests that
/// change something at Apple (extend a renewal date, link a purchase to an account). Each returns
/// Apple's answer, or throws ``AppStoreAPIError`` with Apple's error code said in words.
extension AppStoreServerClient {
    /// What Look Up Order ID answered: `status` 0 (valid, with the order's signed transactions) or
    /// 1 (invalid), and the body as it came (stored through the import path).
    public struct OrderLookup: Sendable {
        public var valid: Bool
        public var transactionCount: Int
        public var body: FetchedPage
    }

    /// Look Up Order ID: `GET /inApps/v1/lookup/{orderId}`. Apple does not offer it in the sandbox.
    public func lookUpOrder(_ orderId: String) async throws -> OrderLookup {
        let what = "GET /inApps/v1/lookup"
        let page = try await send(.GET, "/inApps/v1/lookup/\(Self.pathComponent(orderId))")
        guard case .body(let body) = page else { return OrderLookup(valid: true, transactionCount: 0, body: page) }
        let fields = try Self.fields(body, what)
        guard let status = (fields["status"] as? NSNumber)?.intValue else {
            throw AppStoreAPIError("\(what): no status in the answer")
        }
        let count = (fields["signedTransactions"] as? [Any])?.count ?? 0
        return OrderLookup(valid: status == 0, transactionCount: count, body: page)
    }

    /// Get Refund History (v2): every page, following `revision` while `hasMore`; each page is
    /// handed over as Apple sent it before the next is asked for.
    public func refundHistory(_ transactionId: String, page: (FetchedPage, Int) async throws -> Void) async throws {
        var walk = PageWalk(request: "GET /inApps/v2/refund/lookup", token: "revision")
        while true {
            let query = walk.token.map { [("revision", $0)] } ?? []
            let fetched = try await send(.GET, "/inApps/v2/refund/lookup/\(Self.pathComponent(transactionId))", query: query)
            try await page(fetched, walk.number)
            guard try walk.next(after: fetched) else { return }
        }
    }

    /// Apple's reason codes for an extension (`extendReasonCode`).
    public enum ExtendReason: String, Sendable, CaseIterable {
        case undeclared
        case customerSatisfaction = "customer-satisfaction"
        case other
        case serviceIssue = "service-issue"

        public var code: Int {
            switch self {
            case .undeclared: 0
            case .customerSatisfaction: 1
            case .other: 2
            case .serviceIssue: 3
            }
        }
    }

    /// The body of Extend a Subscription Renewal Date, exactly as sent (so it can be stored before
    /// it is sent, and sent again unchanged).
    public static func extendRequestBody(days: Int, reason: ExtendReason, requestIdentifier: String) -> Data {
        let object: [String: Any] = [
            "extendByDays": days, "extendReasonCode": reason.code, "requestIdentifier": requestIdentifier,
        ]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    /// What Apple answered an extension.
    public struct ExtendAnswer: Sendable, Equatable {
        public var success: Bool
        public var effectiveDateMilliseconds: Int64?
        public var webOrderLineItemId: String?
        /// The body as it came, for the audit log.
        public var text: String
    }

    /// Extend a Subscription Renewal Date: `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}`
    /// with `body` (``extendRequestBody(days:reason:requestIdentifier:)``). Retries (a timeout, a
    /// dropped connection, 5xx) send the same body, so the same `requestIdentifier`.
    public func extendRenewalDate(originalTransactionId: String, body: Data) async throws -> ExtendAnswer {
        let what = "PUT /inApps/v1/subscriptions/extend"
        let page = try await send(
            .PUT, "/inApps/v1/subscriptions/extend/\(Self.pathComponent(originalTransactionId))", json: body)
        guard case .body(let answer) = page else { throw AppStoreAPIError("\(what): the answer is too large to read") }
        let fields = try Self.fields(answer, what)
        guard let success = fields["success"] as? Bool else { throw AppStoreAPIError("\(what): no success in the answer") }
        return ExtendAnswer(
            success: success, effectiveDateMilliseconds: (fields["effectiveDate"] as? NSNumber)?.int64Value,
            webOrderLineItemId: (fields["webOrderLineItemId"] as? String).map(Self.printable),
            text: Self.printable(String(decoding: answer, as: UTF8.self)))
    }

    /// The body of Extend Subscription Renewal Dates for All Active Subscribers.
    public static func massExtendRequestBody(
        productId: String, days: Int, reason: ExtendReason, requestIdentifier: String, storefronts: [String]
    ) -> Data {
        var object: [String: Any] = [
            "extendByDays": days, "extendReasonCode": reason.code, "requestIdentifier": requestIdentifier, "productId": productId,
        ]
        if !storefronts.isEmpty { object["storefrontCountryCodes"] = storefronts }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    /// `POST /inApps/v1/subscriptions/extend/mass`: returns Apple's `requestIdentifier`.
    public func massExtend(body: Data) async throws -> String {
        let what = "POST /inApps/v1/subscriptions/extend/mass"
        guard case .body(let answer) = try await send(.POST, "/inApps/v1/subscriptions/extend/mass", json: body) else {
            throw AppStoreAPIError("\(what): the answer is too large to read")
        }
        guard let id = try Self.fields(answer, what)["requestIdentifier"] as? String else {
            throw AppStoreAPIError("\(what): no requestIdentifier in the answer")
        }
        return Self.printable(id)
    }

    /// Where a mass extension stands.
    public struct MassExtendStatus: Sendable, Equatable {
        public var complete: Bool
        public var completeDateMilliseconds: Int64?
        public var succeededCount: Int64?
        public var failedCount: Int64?
        public var text: String
    }

    /// `GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`.
    public func massExtendStatus(productId: String, requestIdentifier: String) async throws -> MassExtendStatus {
        let what = "GET /inApps/v1/subscriptions/extend/mass"
        let path =
            "/inApps/v1/subscriptions/extend/mass/\(Self.pathComponent(productId))/\(Self.pathComponent(requestIdentifier))"
        guard case .body(let answer) = try await send(.GET, path) else {
            throw AppStoreAPIError("\(what): the answer is too large to read")
        }
        let fields = try Self.fields(answer, what)
        return MassExtendStatus(
            complete: fields["complete"] as? Bool ?? false,
            completeDateMilliseconds: (fields["completeDate"] as? NSNumber)?.int64Value,
            succeededCount: (fields["succeededCount"] as? NSNumber)?.int64Value,
            failedCount: (fields["failedCount"] as? NSNumber)?.int64Value,
            text: Self.printable(String(decoding: answer, as: UTF8.self)))
    }

    /// Set App Account Token: `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`;
    /// Apple answers with no body.
    public func setAppAccountToken(originalTransactionId: String, body: Data) async throws {
        _ = try await send(
            .PUT, "/inApps/v1/transactions/\(Self.pathComponent(originalTransactionId))/appAccountToken", json: body)
    }
}

extension AppStoreServerClient {
    /// Send Consumption Information (v2): `PUT /inApps/v2/transactions/consumption/{transactionId}`
    /// with a `ConsumptionRequest` body; Apple answers 202 with no body.
    public func sendConsumptionInformation(transactionId: String, body: Data) async throws {
        _ = try await send(.PUT, "/inApps/v2/transactions/consumption/\(Self.pathComponent(transactionId))", json: body)
    }
}
