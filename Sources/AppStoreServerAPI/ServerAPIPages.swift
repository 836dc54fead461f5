import Foundation

/// The App Store Server API requests subdash makes, each walking every page. A page is handed to
/// `page` as the bytes Apple sent (to be stored through the import path) before the next is asked
/// for, so an interrupted fetch keeps every page it received.
extension AppStoreServerClient {
    /// Get Transaction History (v2): every page, following `revision` while `hasMore`.
    public func transactionHistory(_ transactionId: String, page: (Data, Int) async throws -> Void) async throws {
        var revision: String?
        var number = 1
        while true {
            var query: [(String, String)] = [("sort", "ASCENDING")]
            if let revision { query.append(("revision", revision)) }
            let body = try await send(.GET, "/inApps/v2/history/\(Self.pathComponent(transactionId))", query: query)
            try await page(body, number)
            let fields = try Self.fields(body, "GET /inApps/v2/history")
            guard fields["hasMore"] as? Bool == true else { return }
            guard let next = fields["revision"] as? String, !next.isEmpty, next != revision else {
                throw AppStoreAPIError("GET /inApps/v2/history: hasMore without a new revision on page \(number)")
            }
            revision = next
            number += 1
        }
    }

    /// Get All Subscription Statuses: one response.
    public func subscriptionStatuses(_ transactionId: String) async throws -> Data {
        try await send(.GET, "/inApps/v1/subscriptions/\(Self.pathComponent(transactionId))")
    }

    /// Get Notification History between two instants (milliseconds since 1970): every page,
    /// following `paginationToken` while `hasMore`.
    public func notificationHistory(startMilliseconds: Int64, endMilliseconds: Int64, page: (Data, Int) async throws -> Void)
        async throws
    {
        let request = try JSONSerialization.data(
            withJSONObject: ["startDate": startMilliseconds, "endDate": endMilliseconds],
            options: [.sortedKeys])
        var token: String?
        var number = 1
        while true {
            let query = token.map { [("paginationToken", $0)] } ?? []
            let body = try await send(.POST, "/inApps/v1/notifications/history", query: query, json: request)
            try await page(body, number)
            let fields = try Self.fields(body, "POST /inApps/v1/notifications/history")
            guard fields["hasMore"] as? Bool == true else { return }
            guard let next = fields["paginationToken"] as? String, !next.isEmpty, next != token else {
                throw AppStoreAPIError(
                    "POST /inApps/v1/notifications/history: hasMore without a new paginationToken on page \(number)")
            }
            token = next
            number += 1
        }
    }

    /// Request a Test Notification: Apple sends a TEST notification to the app's server URL.
    /// Returns its `testNotificationToken`.
    public func requestTestNotification() async throws -> String {
        let body = try await send(.POST, "/inApps/v1/notifications/test")
        guard let token = try Self.fields(body, "POST /inApps/v1/notifications/test")["testNotificationToken"] as? String else {
            throw AppStoreAPIError("POST /inApps/v1/notifications/test: no testNotificationToken in the answer")
        }
        return token
    }

    /// Get Test Notification Status: the signed TEST notification and Apple's attempts to send it.
    public func testNotificationStatus(_ token: String) async throws -> Data {
        try await send(.GET, "/inApps/v1/notifications/test/\(Self.pathComponent(token))")
    }

    static func fields(_ body: Data, _ what: String) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw AppStoreAPIError("\(what): the answer is not a JSON object")
        }
        return object
    }

    static func pathComponent(_ s: String) -> String { percentEncoded(s) }
}
