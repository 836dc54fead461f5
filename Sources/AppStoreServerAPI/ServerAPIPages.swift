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

/// Where a paginated walk is: the page asked for next, its token, and every token followed so far
/// with the page it was asked with.
struct PageWalk {
    let request: String
    /// The name of the token field (`revision`, `paginationToken`).
    let tokenName: String
    private(set) var number = 1
    private(set) var token: String?
    private var followed: [String: Int] = [:]

    init(request: String, token: String) {
        self.request = request
        self.tokenName = token
    }

    /// Moves to the next page when `page` says there is one (true), or says the walk is over
    /// (false); throws when it cannot go on.
    mutating func next(after page: FetchedPage) throws -> Bool {
        guard case .body(let body) = page else {
            throw AppStoreAPIError(
                "\(request): page \(number) is too large to read, and the \(tokenName) of the next page is in it: "
                    + "stopped after \(number) page\(number == 1 ? "" : "s")")
        }
        let fields = try AppStoreServerClient.fields(body, request)
        guard fields["hasMore"] as? Bool == true else { return false }
        guard let next = fields[tokenName] as? String, !next.isEmpty else {
            throw AppStoreAPIError("\(request): hasMore without a \(tokenName) on page \(number)")
        }
        if let earlier = followed[next] {
            throw AppStoreAPIError(
                "\(request): page \(number) gives the \(tokenName) \(Self.shown(next)) that page \(earlier) was asked with: "
                    + "the server is sending the same pages again; stopped after \(number) pages")
        }
        number += 1
        followed[next] = number
        token = next
        return true
    }

    /// A token as a message quotes it: at most 64 characters.
    static func shown(_ token: String) -> String {
        token.count <= 64 ? "'\(token)'" : "'\(token.prefix(64))…'"
    }
}
