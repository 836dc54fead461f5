import Foundation

/// When to send a request again: 429 after its `Retry-After`, 5xx and timeouts after a capped
/// exponential delay with full jitter (a random delay between zero and the cap of that attempt,
/// so many clients do not come back at once).
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// The cap of the first retry's delay; each retry doubles it…
    public var baseDelay: Double
    /// …up to this.
    public var maxDelay: Double
    /// The longest `Retry-After` obeyed; a longer one fails the request with a message.
    public var maxRetryAfter: Double
    /// Waits that many seconds (injected by tests).
    public var sleep: @Sendable (Double) async throws -> Void
    /// A number in 0..<1 (injected by tests).
    public var random: @Sendable () -> Double

    public init(
        maxAttempts: Int = 6, baseDelay: Double = 0.5, maxDelay: Double = 30, maxRetryAfter: Double = 300,
        sleep: @escaping @Sendable (Double) async throws -> Void = { try await Task.sleep(for: .seconds($0)) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.sleep = sleep
        self.random = random
    }

    /// The delay before retry number `retry` (1 for the first) after a 5xx or a timeout.
    public func backoff(retry: Int) -> Double {
        let cap = min(maxDelay, baseDelay * pow(2, Double(retry - 1)))
        return cap * random()
    }

    /// `Retry-After` in seconds: a number of seconds or an HTTP date.
    public static func retryAfterSeconds(_ value: String?, now: Date = Date()) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
