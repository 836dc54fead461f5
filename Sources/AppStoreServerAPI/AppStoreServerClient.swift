import AppStorePayloads
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The App Store's two hosts for the Server API: the domains Apple recommends since 2026-05-05
/// (App Store Server API changelog); the earlier `api.storekit(-sandbox).itunes.apple.com` still
/// answer, and `--api-base` reaches them.
public enum AppStoreServerEnvironment: String, Sendable, CaseIterable {
    case production, sandbox

    public var baseURL: String {
        switch self {
        case .production: "https://api.storekit.apple.com"
        case .sandbox: "https://api.storekit-sandbox.apple.com"
        }
    }
}

/// A client of the App Store Server API: each request signed with a fresh token, 429 obeyed after
/// `Retry-After`, 5xx, timeouts and dropped connections retried with backoff (`RetryPolicy`),
/// 401 and 404 turned into messages that say what to check. Bodies come back as bytes: what is
/// fetched is stored through the import path as it came.
///
/// Every attempt is timed whole, from the connection to the body's last byte: a server that sends
/// its headers at once and then trickles the body is timed out like one that never answers. A body
/// over `maxDocumentBytes` is not read further (``FetchedPage/tooLarge(byteCount:reason:)``), as a file's
/// document over `--max-document-bytes` is rejected without being held.
public final class AppStoreServerClient: Sendable {
    let credentials: AppStoreCredentials
    let baseURL: String
    let retry: RetryPolicy
    let requestTimeout: Int64
    let maxDocumentBytes: Int
    let http: HTTPClient
    /// Told before each retry (the progress line says why it waits).
    let onRetry: @Sendable (String) -> Void

    public init(
        credentials: AppStoreCredentials, baseURL: String, retry: RetryPolicy = RetryPolicy(),
        requestTimeoutSeconds: Int = 30, maxDocumentBytes: Int = DocumentReader.defaultSizeLimit,
        onRetry: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.credentials = credentials
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.retry = retry
        self.requestTimeout = Int64(requestTimeoutSeconds)
        self.maxDocumentBytes = maxDocumentBytes
        self.onRetry = onRetry
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(Int64(requestTimeoutSeconds)))
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func shutdown() async throws { try await http.shutdown() }

    /// For a caller outside any task (the dashboard's run loop ends on its own thread).
    public func syncShutdown() { try? http.syncShutdown() }

    /// Sends one request (and its retries) and returns the body of the 200, or why it was not read.
    public func send(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], json body: Data? = nil) async throws
        -> FetchedPage
    {
        var url = baseURL + path
        if !query.isEmpty {
            url += "?" + query.map { "\($0.0)=\(Self.percentEncoded($0.1))" }.joined(separator: "&")
        }
        var attempt = 1
        while true {
            var request = HTTPClientRequest(url: url)
            request.method = method
            request.headers.add(name: "Authorization", value: "Bearer " + (try await AuthenticationToken.make(credentials)))
            request.headers.add(name: "Accept", value: "application/json")
            request.headers.add(name: "User-Agent", value: "subdash")
            if let body {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(bytes: body))
            }
            let answer: Answer
            do {
                answer = try await exchange(request)
            } catch {
                guard attempt < retry.maxAttempts, Self.isTransient(error) else {
                    throw AppStoreAPIError(
                        "\(method) \(path): \(Self.describe(error))"
                            + (attempt > 1 ? " (after \(attempt) attempts)" : ""))
                }
                let delay = retry.backoff(retry: attempt)
                onRetry("\(Self.describe(error)); retrying in \(Self.seconds(delay))")
                try await retry.sleep(delay)
                attempt += 1
                continue
            }
            let (status, headers) = (answer.status, answer.headers)
            // An error's body only serves for Apple's message: one too large to read has none.
            let bytes = answer.body ?? Data()
            switch status.code {
            case 200..<300:
                if let tooLarge = answer.tooLarge { return .tooLarge(byteCount: tooLarge.byteCount, reason: tooLarge.reason) }
                return .body(bytes)
            case 429:
                let wait = RetryPolicy.retryAfterSeconds(headers.first(name: "Retry-After")) ?? retry.backoff(retry: attempt)
                guard attempt < retry.maxAttempts, wait <= retry.maxRetryAfter else {
                    throw AppStoreAPIError(
                        "\(method) \(path): 429 Too Many Requests: the App Store Server API's rate limit; "
                            + "try again in \(Self.seconds(wait))", status: 429, retryAfterSeconds: wait)
                }
                onRetry("429 Too Many Requests; retrying in \(Self.seconds(wait)) (Retry-After)")
                try await retry.sleep(wait)
            case 500..<600:
                guard attempt < retry.maxAttempts else {
                    throw AppStoreAPIError(
                        "\(method) \(path): \(status.code) \(status.reasonPhrase) after \(attempt) attempts: "
                            + "the App Store Server API is failing; try again later" + Self.appleError(bytes))
                }
                let delay = retry.backoff(retry: attempt)
                onRetry("\(status.code) \(status.reasonPhrase); retrying in \(Self.seconds(delay))")
                try await retry.sleep(delay)
            case 401:
                throw AppStoreAPIError(
                    "\(method) \(path): 401 Unauthorized: Apple refused the token. Check the issuer id, the key id, "
                        + "that the .p8 file is that key's (an In-App Purchase key, not an App Store Connect API key), "
                        + "the bundle id, and this machine's clock")
            case 404:
                throw AppStoreAPIError(
                    "\(method) \(path): 404 Not Found" + Self.appleError(bytes)
                        + ": check the id, and --sandbox for a sandbox purchase", status: 404,
                    appleErrorCode: Self.appleErrorCode(bytes))
            default:
                throw AppStoreAPIError(
                    "\(method) \(path): \(status.code) \(status.reasonPhrase)" + Self.appleError(bytes), status: Int(status.code),
                    appleErrorCode: Self.appleErrorCode(bytes))
            }
            attempt += 1
        }
    }

    /// What one attempt got: the status, the headers, and the body (nil, with its size and the
    /// reason, when it was over `maxDocumentBytes`).
    struct Answer: Sendable {
        var status: HTTPResponseStatus
        var headers: HTTPHeaders
        var body: Data?
        var tooLarge: (byteCount: Int, reason: String)?
    }

    /// One attempt, timed whole: the connection, the head and every byte of the body must arrive
    /// within `requestTimeout` (AsyncHTTPClient's own deadline ends with the head, and its read
    /// timeout is per read, so a body trickled a byte at a time would never end). Past it the
    /// request is cancelled and the attempt fails as a timeout.
    func exchange(_ request: HTTPClientRequest) async throws -> Answer {
        let (http, seconds, limit) = (http, requestTimeout, maxDocumentBytes)
        return try await withThrowingTaskGroup(of: Answer?.self) { group in
            group.addTask {
                let response = try await http.execute(request, timeout: .seconds(seconds))
                var answer = Answer(status: response.status, headers: response.headers)
                if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > limit {
                    answer.tooLarge = (length, Self.overLimit(length, known: true, limit: limit))
                    return answer
                }
                var buffer = ByteBuffer()
                for try await var chunk in response.body {
                    // Leaving the loop drops the rest: AsyncHTTPClient cancels the request.
                    let count = buffer.readableBytes + chunk.readableBytes
                    guard count <= limit else {
                        answer.tooLarge = (count, Self.overLimit(count, known: false, limit: limit))
                        return answer
                    }
                    buffer.writeBuffer(&chunk)
                }
                answer.body = Data(buffer.readableBytesView)
                return answer
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let answer = first else { throw HTTPClientError.deadlineExceeded }
            return answer
        }
    }

    /// "document is 52428800 bytes, over the 16 MiB limit", as a file's document over the limit is
    /// rejected; when the server did not say how long the body is, how much arrived before subdash
    /// stopped reading.
    static func overLimit(_ count: Int, known: Bool, limit: Int) -> String {
        let shown = limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit) bytes"
        return known
            ? "document is \(count) bytes, over the \(shown) limit (--max-document-bytes); not read"
            : "document is over the \(shown) limit (--max-document-bytes); stopped reading it after \(count) bytes"
    }

    /// `: sentence (errorCode N)` from Apple's error body, when there is one: the sentence of a
    /// known code (``AppleErrorCode``), else Apple's own message (made printable).
    static func appleError(_ body: Data) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return "" }
        let code = appleErrorCode(body)
        let message = code.flatMap(AppleErrorCode.sentence) ?? (object["errorMessage"] as? String).map(Self.printable)
        let shownCode = code.map { "\($0)" } ?? object["errorCode"].map { Self.printable("\($0)") }
        switch (message, shownCode) {
        case (let m?, let c?): return ": \(m) (errorCode \(c))"
        case (let m?, nil): return ": \(m)"
        case (nil, let c?): return " (errorCode \(c))"
        default: return ""
        }
    }

    /// Apple's `errorCode`, when the body is Apple's error object.
    static func appleErrorCode(_ body: Data) -> Int? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        return (object["errorCode"] as? NSNumber)?.intValue
    }

    /// What a server sent, kept to 200 printable characters (it reaches the terminal and the audit log).
    static func printable(_ text: String) -> String {
        let visible = String(
            text.unicodeScalars.map { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) ? "?" : Character($0) })
        return visible.count <= 200 ? visible : String(visible.prefix(200)) + "…"
    }

    /// Timeouts and connections that failed or dropped: worth another attempt.
    static func isTransient(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError {
            return [
                .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .remoteConnectionClosed,
                .getConnectionFromPoolTimeout, .tlsHandshakeTimeout,
            ].contains(error)
        }
        // A refused or reset connection (NIO's connection errors live in NIOPosix, not imported here).
        return error is IOError || error is ChannelError || String(describing: type(of: error)).contains("ConnectionError")
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout: return "timed out"
            case .connectTimeout: return "connection timed out"
            case .remoteConnectionClosed: return "connection closed by the server"
            default: return "\(error)"
            }
        }
        if String(describing: type(of: error)).contains("ConnectionError") { return "cannot connect" }
        return "\(error)"
    }

    static func seconds(_ s: Double) -> String { String(format: s < 10 ? "%.1f s" : "%.0f s", s) }

    static func percentEncoded(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }
}

/// Missing or unusable credentials (never showing the key) or a failed request, said so a person
/// can act on it.
public struct AppStoreAPIError: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String
    /// The HTTP status of Apple's answer, when the request got one.
    public var status: Int?
    /// Apple's `errorCode`, when the answer carried one (``AppleErrorCode`` says it in words).
    public var appleErrorCode: Int?
    /// A 429's `Retry-After` (seconds) when the request gave up on it: how long to wait before asking again.
    public var retryAfterSeconds: Double?
    public init(_ message: String, status: Int? = nil, appleErrorCode: Int? = nil, retryAfterSeconds: Double? = nil) {
        self.message = message
        self.status = status
        self.appleErrorCode = appleErrorCode
        self.retryAfterSeconds = retryAfterSeconds
    }
    public var description: String { message }
}
