import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// `GET /offers/{appAccountToken or originalTransactionId}` of `subdash listen --offers`: the
/// subscriber's flagged offer, signed for StoreKit, for the app's backend (docs/security.md,
/// "The offers endpoint"). Authenticated by a bearer token of its own (never the App Store key),
/// compared in constant time; rate-limited per client address.
public struct OffersEndpoint: Sendable {
    /// What the app's backend asked for.
    public struct Request: Sendable {
        public var id: String
        /// `signature` or `jws` (`?format=`; default `signature`).
        public var format: String
        /// `?username=`: the applicationUsername the app gives StoreKit.
        public var username: String
        /// The client's address, for the record.
        public var client: String

        public init(id: String, format: String, username: String, client: String) {
            self.id = id
            self.format = format
            self.username = username
            self.client = client
        }
    }

    /// 200 with a JSON body, or 204 with why nothing applies (logged, not sent).
    public enum Reply: Sendable {
        case offer(json: String)
        case nothing(reason: String)
        case failed(reason: String)
    }

    public var token: String
    public var requestsPerMinute: Int
    public var answer: @Sendable (Request) async -> Reply

    public init(token: String, requestsPerMinute: Int, answer: @escaping @Sendable (Request) async -> Reply) {
        self.token = token
        self.requestsPerMinute = requestsPerMinute
        self.answer = answer
    }

    public static let pathPrefix = "/offers/"

    /// Equal in time that depends on the lengths only, never on where the first difference is.
    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) {
            difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return difference == 0
    }
}

/// Requests per client per minute (fixed windows), for at most `maxClients` clients at once: past
/// that, a new client in a window is refused (a flood of addresses cannot grow the table).
final class OfferRateLimiter: Sendable {
    struct Window {
        var start: Int64
        var counts: [String: Int] = [:]
    }
    let limit: Int
    let maxClients: Int
    private let window = Mutex(Window(start: 0))

    init(limit: Int, maxClients: Int = 10_000) {
        self.limit = limit
        self.maxClients = maxClients
    }

    /// Whether `client` may make one more request now.
    func allow(_ client: String, now: Date = Date()) -> Bool {
        let minute = Int64(now.timeIntervalSince1970 / 60)
        return window.withLock { w in
            if w.start != minute { w = Window(start: minute) }
            let used = w.counts[client] ?? 0
            if used == 0 && w.counts.count >= maxClients { return false }
            guard used < limit else { return false }
            w.counts[client] = used + 1
            return true
        }
    }
}

/// The listener's request context: Hummingbird's basic one and the client's address.
struct ListenerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The client's IP address, or "unknown".
    var client: String { remoteAddress?.ipAddress ?? "unknown" }
}

extension NotificationResponder {
    func answerOffer(
        _ request: Hummingbird.Request, endpoint: OffersEndpoint, limiter: OfferRateLimiter, client: String,
        entry: inout RequestLog.Entry
    ) async -> Response {
        guard request.method == .get else {
            entry.outcome = "method not allowed"
            return Self.text(.methodNotAllowed, "use GET\n", allow: "GET")
        }
        let authorization = request.headers[.authorization] ?? ""
        let given = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst("Bearer ".count)) : ""
        guard !endpoint.token.isEmpty, OffersEndpoint.constantTimeEquals(given, endpoint.token) else {
            entry.outcome = "unauthorized"
            var response = Self.text(.unauthorized, "a bearer token is required\n")
            response.headers[.wwwAuthenticate] = "Bearer"
            return response
        }
        guard limiter.allow(client) else {
            entry.outcome = "rate limited"
            var response = Self.text(.tooManyRequests, "over \(endpoint.requestsPerMinute) requests a minute\n")
            response.headers[.retryAfter] = "60"
            return response
        }
        let raw = String(request.uri.path.dropFirst(OffersEndpoint.pathPrefix.count))
        let id = raw.removingPercentEncoding ?? raw
        guard !id.isEmpty, id.count <= 200, !id.contains("/"),
            id.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control })
        else {
            entry.outcome = "bad request"
            return Self.text(.badRequest, "give an appAccountToken or originalTransactionId: /offers/ID\n")
        }
        let query = request.uri.queryParameters
        let format = query["format"].map(String.init) ?? "signature"
        guard format == "signature" || format == "jws" else {
            entry.outcome = "bad request"
            return Self.text(.badRequest, "format is signature or jws\n")
        }
        let username = query["username"].map(String.init) ?? ""
        guard username.utf8.count <= 256 else {
            entry.outcome = "bad request"
            return Self.text(.badRequest, "username over 256 bytes\n")
        }
        switch await endpoint.answer(.init(id: id, format: format, username: username, client: client)) {
        case .offer(let json):
            entry.outcome = "offer served"
            var response = Self.text(.ok, json + "\n")
            response.headers[.contentType] = "application/json"
            response.headers[.cacheControl] = "no-store"
            return response
        case .nothing(let reason):
            entry.outcome = "no offer"
            entry.reason = reason
            return Response(status: .noContent)
        case .failed(let reason):
            entry.outcome = "failed"
            entry.reason = reason
            return Self.text(.serviceUnavailable, "the offer could not be signed or recorded\n")
        }
    }
}
