import Foundation

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
