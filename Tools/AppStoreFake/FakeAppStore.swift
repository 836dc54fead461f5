import Crypto
import Foundation
import Hummingbird
import LifecycleSimulator
import Logging
import SubscriptionModel
import Synchronization
import TestSupport

/// An App Store Server API on loopback, in process: it checks every request's token as Apple does
/// (ES256 signature with the key's public half, `kid`, `typ`, `iss`, `aud`, `bid`, `iat`, an `exp`
/// in the future and at most 60 minutes after `iat`) and serves pages signed with the simulator's
/// test chain. Failures can be queued ahead of the next requests. Test tooling: the tests serve it
/// in process, `subdash-fake-appstore` as a process (README, "Support actions").
public final class FakeAppStore: Sendable {
    public static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"
    public static let keyId = "2X9R4HXF34"
    public static let bundleId = "com.example.app"
    /// The app whose tokens it takes and whose bundle id its answers carry.
    public let appBundleId: String

    /// What a request carried and what the fake made of its token.
    struct Seen: Sendable {
        var method: String
        var path: String
        var query: [String: String]
        var body: String
        var tokenProblem: String?
    }

    enum Scripted: Sendable {
        case status(Int, retryAfter: String? = nil, body: String = "")
        /// A 200 whose head goes out at once and whose body follows as `count` copies of `chunk`,
        /// `interval` apart, without a Content-Length: a slow (or endless) body.
        case stream(chunk: String, count: Int, interval: Duration)
        /// The request is handled as usual (an extension is applied), and the answer goes out only
        /// after `delay`: past the client's timeout, the client never sees it.
        case late(Duration)
    }

    /// What the tests and the server's threads share: the requests seen, the failures queued, and
    /// what is served.
    private struct State {
        var seen: [Seen] = []
        var scripted: [Scripted] = []
        var transactions: [String] = []
        var pageSize = 2
        var notifications: [String] = []
        var testNotification: String?
        var testAttempts: [String] = []
        var now: @Sendable () -> Date = { Date() }
        var streamedChunks = 0
    }

    let publicKey: P256.Signing.PublicKey
    let jws: CompactJWS
    private let state = Mutex(State())
    /// The support endpoints' state (FakeAppStoreSupport.swift).
    public let support = Mutex(FakeSupportState())

    /// Transactions of the history, in pages of `pageSize`.
    var transactions: [String] {
        get { state.withLock { $0.transactions } }
        set { state.withLock { $0.transactions = newValue } }
    }
    var pageSize: Int {
        get { state.withLock { $0.pageSize } }
        set { state.withLock { $0.pageSize = newValue } }
    }
    /// Signed v2 notification payloads served by the notification history, in pages of `pageSize`.
    var notifications: [String] {
        get { state.withLock { $0.notifications } }
        set { state.withLock { $0.notifications = newValue } }
    }
    var testNotification: String? {
        get { state.withLock { $0.testNotification } }
        set { state.withLock { $0.testNotification = newValue } }
    }
    var testAttempts: [String] {
        get { state.withLock { $0.testAttempts } }
        set { state.withLock { $0.testAttempts = newValue } }
    }
    var now: @Sendable () -> Date {
        get { state.withLock { $0.now } }
        set { state.withLock { $0.now = newValue } }
    }

    public static let chain = Result {
        try TestCertificateChain(
            seed: 7, validFrom: UTCCalendar.instant(year: 2020, month: 1, day: 1),
            validUntil: UTCCalendar.instant(year: 2040, month: 1, day: 1))
    }

    static let quiet: Logger = {
        var logger = Logger(label: "fake-app-store")
        logger.logLevel = .critical
        return logger
    }()

    /// Told of every request as it arrives (the process writes them to its log).
    let observe: (@Sendable (_ method: String, _ path: String, _ body: String, _ tokenProblem: String?) -> Void)?

    public init(
        publicKey: P256.Signing.PublicKey, bundleId: String = FakeAppStore.bundleId,
        observe: (@Sendable (_ method: String, _ path: String, _ body: String, _ tokenProblem: String?) -> Void)? = nil
    ) throws {
        self.publicKey = publicKey
        appBundleId = bundleId
        self.observe = observe
        jws = try CompactJWS(chain: Self.chain.get())
    }

    func sign(_ json: String) -> String { String(decoding: jws.sign(Array(json.utf8)), as: UTF8.self) }

    var requests: [Seen] { state.withLock { $0.seen } }

    /// The chunks of `.stream` bodies the server managed to write (the client stopped reading the rest).
    var streamedChunks: Int { state.withLock { $0.streamedChunks } }

    func script(_ responses: Scripted...) { state.withLock { $0.scripted += responses } }

    /// Serves on a free port while `body` runs. The server's tasks run on a thread of their own
    /// (`ThreadTaskExecutor`): it answers however busy the cooperative pool is.
    /// `port` 0: a free one.
    public func serve<T>(port: Int = 0, _ body: (String) async throws -> T) async throws -> T {
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            responder: CallbackResponder<BasicRequestContext> { request, _ in
                await self.respond(request)
            }, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
            }, logger: Self.quiet)
        let executor = ThreadTaskExecutor(name: "fake-app-store")
        let server = Task(executorPreference: executor) {
            // Ends the wait for a port if the server stops without one.
            defer { portSink.finish() }
            try await app.run()
        }
        let outcome: Result<T, any Error>
        var bound = ports.makeAsyncIterator()
        if let port = await bound.next() {
            do { outcome = .success(try await body("http://127.0.0.1:\(port)")) } catch { outcome = .failure(error) }
        } else {
            outcome = .failure(TestSupportError("the fake App Store stopped before it listened: \(await server.result)"))
        }
        server.cancel()
        _ = await server.result
        executor.shutdown()
        return try outcome.get()
    }

    private func respond(_ request: Request) async -> Response {
        var body = ByteBuffer()
        if let collected = try? await request.body.collect(upTo: 1 << 20) { body = collected }
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        let problem = checkToken(request.headers[.authorization])
        let path = request.uri.path
        let seen = Seen(
            method: request.method.rawValue, path: path, query: query, body: String(buffer: body), tokenProblem: problem)
        state.withLock { $0.seen.append(seen) }
        observe?(seen.method, path, seen.body, problem)
        if let problem { return Self.json(401, #"{"errorCode":401,"errorMessage":"\#(problem)"}"#) }
        if let next = state.withLock({ $0.scripted.isEmpty ? nil : $0.scripted.removeFirst() }) {
            switch next {
            case .late(let delay):
                let response = supportResponse(
                    method: request.method.rawValue, path: path, query: query, body: String(buffer: body))
                try? await Task.sleep(for: delay)
                return response ?? Self.json(404, #"{"errorCode":4040000,"errorMessage":"Not found."}"#)
            case .status(let code, let retryAfter, let text):
                var response = Self.json(code, text)
                if let retryAfter { response.headers[.retryAfter] = retryAfter }
                return response
            case .stream(let chunk, let count, let interval):
                let body = ResponseBody { [self] writer in
                    for _ in 0..<count {
                        try await writer.write(ByteBuffer(string: chunk))
                        state.withLock { $0.streamedChunks += 1 }
                        if interval > .zero { try await Task.sleep(for: interval) }
                    }
                    try await writer.finish(nil)
                }
                return Response(status: .ok, headers: [.contentType: "application/json"], body: body)
            }
        }
        if let response = supportResponse(method: request.method.rawValue, path: path, query: query, body: String(buffer: body)) {
            return response
        }
        if path.hasPrefix("/inApps/v2/history/") {
            let id = String(path.dropFirst("/inApps/v2/history/".count))
            guard id == "1000" else {
                return Self.json(404, #"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#)
            }
            let start = query["revision"].flatMap { Int($0.dropFirst(4)) } ?? 0
            let page = transactions[start..<min(start + pageSize, transactions.count)]
            let hasMore = start + pageSize < transactions.count
            let signed = page.map { "\"\(sign(withAccountToken($0)))\"" }.joined(separator: ",")
            return Self.json(
                200,
                #"{"revision":"rev-\#(start + pageSize)","hasMore":\#(hasMore),"bundleId":"\#(appBundleId)","environment":"Production","signedTransactions":[\#(signed)]}"#
            )
        }
        if path == "/inApps/v1/subscriptions/1000" {
            let renewal = sign(
                #"{"originalTransactionId":"1000","autoRenewProductId":"pro.monthly","productId":"pro.monthly","autoRenewStatus":0,"signedDate":1735700000000,"environment":"Production"}"#
            )
            return Self.json(
                200,
                #"{"environment":"Production","bundleId":"\#(appBundleId)","data":[{"subscriptionGroupIdentifier":"g1","lastTransactions":[{"status":1,"originalTransactionId":"1000","signedTransactionInfo":"\#(sign(transactions.last!))","signedRenewalInfo":"\#(renewal)"}]}]}"#
            )
        }
        if path == "/inApps/v1/notifications/history", request.method == .post {
            let start = query["paginationToken"].flatMap { Int($0.dropFirst(5)) } ?? 0
            let page = notifications[start..<min(start + pageSize, notifications.count)]
            let hasMore = start + pageSize < notifications.count
            let entries = page.map {
                #"{"sendAttempts":[{"attemptDate":1735700000000,"sendAttemptResult":"SUCCESS"}],"signedPayload":"\#(sign($0))"}"#
            }
            return Self.json(
                200,
                #"{"hasMore":\#(hasMore),"paginationToken":"page-\#(start + pageSize)","notificationHistory":[\#(entries.joined(separator: ","))]}"#
            )
        }
        if path == "/inApps/v1/notifications/test", request.method == .post {
            return Self.json(200, #"{"testNotificationToken":"test-token-1"}"#)
        }
        if path == "/inApps/v1/notifications/test/test-token-1", let payload = testNotification {
            let attempts = testAttempts.map { #"{"attemptDate":1735700000000,"sendAttemptResult":"\#($0)"}"# }
            return Self.json(200, #"{"signedPayload":"\#(sign(payload))","sendAttempts":[\#(attempts.joined(separator: ","))]}"#)
        }
        return Self.json(404, #"{"errorCode":4040000,"errorMessage":"Not found."}"#)
    }

    /// Nil when the token is one Apple would take, else what is wrong with it.
    func checkToken(_ header: String?) -> String? {
        guard let header, header.hasPrefix("Bearer ") else { return "no bearer token" }
        let parts = header.dropFirst(7).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerData = Self.base64URL(parts[0]), let claimsData = Self.base64URL(parts[1]),
            let signatureData = Self.base64URL(parts[2]),
            let jwtHeader = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any]
        else { return "malformed token" }
        guard jwtHeader["alg"] as? String == "ES256" else { return "alg is not ES256" }
        guard jwtHeader["kid"] as? String == Self.keyId else { return "unknown kid" }
        guard jwtHeader["typ"] as? String == "JWT" else { return "typ is not JWT" }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
            publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8))
        else { return "bad signature" }
        guard claims["iss"] as? String == Self.issuerId else { return "wrong iss" }
        guard claims["aud"] as? String == "appstoreconnect-v1" else { return "wrong aud" }
        guard claims["bid"] as? String == appBundleId else { return "wrong bid" }
        guard let iat = claims["iat"] as? Int, let exp = claims["exp"] as? Int else { return "no iat or exp" }
        let now = Int(self.now().timeIntervalSince1970)
        guard iat <= now + 60 else { return "iat in the future" }
        guard exp > now else { return "token expired" }
        guard exp - iat <= 3600 else { return "exp more than 60 minutes after iat" }
        return nil
    }

    static func base64URL(_ s: String) -> Data? {
        var t = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while t.count % 4 != 0 { t += "=" }
        return Data(base64Encoded: t)
    }

    static func json(_ status: Int, _ body: String) -> Response {
        Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
