import Foundation

/// The App Store Server API requests subdash makes, each walking every page. A page is handed to
/// `page` as the bytes Apple sent (to be stored through the import path) before the next is asked
/// for, so an interrupted fetch keeps every page it received.
///
/// A walk ends when Apple says there is no more. It stops with an error, never loops, when a page
/// gives a token the walk has already followed (A, B, A, … as well as A, A), and when a page is
/// too large to read: the token of the next page is inside it.
extension AppStoreServerClient {
    /// Get Transaction History (v2): every page, following `revision` while `hasMore`.
    public func transactionHistory(_ transactionId: String, page: (FetchedPage, Int) async throws -> Void) async throws {
        var walk = PageWalk(request: "GET /inApps/v2/history", token: "revision")
        while true {
            var query: [(String, String)] = [("sort", "ASCENDING")]
            if let revision = walk.token { query.append(("revision", revision)) }
            let fetched = try await send(.GET, "/inApps/v2/history/\(Self.pathComponent(transactionId))", query: query)
            try await page(fetched, walk.number)
            guard try walk.next(after: fetched) else { return }
        }
    }

    /// Get All Subscription Statuses: one response.
    public func subscriptionStatuses(_ transactionId: String) async throws -> FetchedPage {
        try await send(.GET, "/inApps/v1/subscriptions/\(Self.pathComponent(transactionId))")
    }

    /// Get Notification History between two instants (milliseconds since 1970): every page,
    /// following `paginationToken` while `hasMore`.
    public func notificationHistory(
        startMilliseconds: Int64, endMilliseconds: Int64, page: (FetchedPage, Int) async throws -> Void
    )
        async throws
    {
        let request = try JSONSerialization.data(
            withJSONObject: ["startDate": startMilliseconds, "endDate": endMilliseconds],
            options: [.sortedKeys])
        var walk = PageWalk(request: "POST /inApps/v1/notifications/history", token: "paginationToken")
        while true {
            let query = walk.token.map { [("paginationToken", $0)] } ?? []
            let fetched = try await send(.POST, "/inApps/v1/notifications/history", query: query, json: request)
            try await page(fetched, walk.number)
            guard try walk.next(after: fetched) else { return }
        }
    }

    /// Request a Test Notification: Apple sends a TEST notification to the app's server URL.
    /// Returns its `testNotificationToken`.
    public func requestTestNotification() async throws -> String {
        let what = "POST /inApps/v1/notifications/test"
        guard case .body(let body) = try await send(.POST, "/inApps/v1/notifications/test") else {
            throw AppStoreAPIError("\(what): the answer is too large to read")
        }
        guard let token = try Self.fields(body, what)["testNotificationToken"] as? String else {
            throw AppStoreAPIError("\(what): no testNotificationToken in the answer")
        }
        return token
    }

    /// Get Test Notification Status: the signed TEST notification and Apple's attempts to send it.
    public func testNotificationStatus(_ token: String) async throws -> FetchedPage {
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
