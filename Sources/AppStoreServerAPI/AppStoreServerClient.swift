import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The App Store's two hosts for the Server API.
public enum AppStoreServerEnvironment: String, Sendable, CaseIterable {
    case production, sandbox

    public var baseURL: String {
        switch self {
        case .production: "https://api.storekit.itunes.apple.com"
        case .sandbox: "https://api.storekit-sandbox.itunes.apple.com"
        }
    }
}

/// A client of the App Store Server API: each request signed with a fresh token, 429 obeyed after
/// `Retry-After`, 5xx, timeouts and dropped connections retried with backoff (`RetryPolicy`),
/// 401 and 404 turned into messages that say what to check. Bodies come back as bytes: what is
/// fetched is stored through the import path as it came.
public final class AppStoreServerClient: Sendable {
    let credentials: AppStoreCredentials
    let baseURL: String
    let retry: RetryPolicy
    let requestTimeout: Int64
    let http: HTTPClient
    /// Told before each retry (the progress line says why it waits).
    let onRetry: @Sendable (String) -> Void

    public init(
        credentials: AppStoreCredentials, baseURL: String, retry: RetryPolicy = RetryPolicy(),
        requestTimeoutSeconds: Int = 30, onRetry: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.credentials = credentials
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.retry = retry
        self.requestTimeout = Int64(requestTimeoutSeconds)
        self.onRetry = onRetry
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(Int64(requestTimeoutSeconds)))
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func shutdown() async throws { try await http.shutdown() }

    /// For a caller outside any task (the dashboard's run loop ends on its own thread).
    public func syncShutdown() { try? http.syncShutdown() }

    /// Sends one request (and its retries) and returns the body of the 200.
    public func send(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], json body: Data? = nil) async throws
        -> Data
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
            let status: HTTPResponseStatus
            let headers: HTTPHeaders
            let bytes: Data
            do {
                let response = try await http.execute(request, timeout: .seconds(requestTimeout))
                status = response.status
                headers = response.headers
                bytes = Data(try await response.body.collect(upTo: 64 << 20).readableBytesView)
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
            switch status.code {
            case 200..<300:
                return bytes
            case 429:
                let wait = RetryPolicy.retryAfterSeconds(headers.first(name: "Retry-After")) ?? retry.backoff(retry: attempt)
                guard attempt < retry.maxAttempts, wait <= retry.maxRetryAfter else {
                    throw AppStoreAPIError(
                        "\(method) \(path): 429 Too Many Requests: the App Store Server API's rate limit; "
                            + "try again in \(Self.seconds(wait))")
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
                        + ": check the id, and --sandbox for a sandbox purchase")
            default:
                throw AppStoreAPIError("\(method) \(path): \(status.code) \(status.reasonPhrase)" + Self.appleError(bytes))
            }
            attempt += 1
        }
    }

    /// `: message (errorCode N)` from Apple's error body, when there is one.
    static func appleError(_ body: Data) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return "" }
        let message = object["errorMessage"] as? String
        let code = object["errorCode"].map { "\($0)" }
        switch (message, code) {
        case (let m?, let c?): return ": \(m) (errorCode \(c))"
        case (let m?, nil): return ": \(m)"
        case (nil, let c?): return " (errorCode \(c))"
        default: return ""
        }
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
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
