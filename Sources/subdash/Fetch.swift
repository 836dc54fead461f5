import AppStorePayloads
import AppStoreServerAPI
import ArgumentParser
import Dashboard
import Foundation
import SubscriberStore
import SubscriptionModel
import TeamLog

struct Fetch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch from the App Store Server API and import what it sends (verified, archived, deduplicated).",
        discussion: """
            Credentials: --issuer-id, --key-id, --bundle-id and --private-key (the .p8 file, which must not be \
            readable by group or others), else SUBDASH_ISSUER_ID, SUBDASH_KEY_ID, SUBDASH_BUNDLE_ID and \
            SUBDASH_PRIVATE_KEY, else the [appstore] section of $XDG_CONFIG_HOME/subdash/config.toml \
            (see the README, "Credentials"). The first line names the server the requests (and the bearer \
            token) go to: Apple's, or --api-base / SUBDASH_API_BASE, which must be https (plain http only to \
            loopback). Each page is stored as it arrives; a page over --max-document-bytes is rejected unread. \
            429 waits for Retry-After; 5xx and timeouts (30 s for a whole answer) are retried with backoff; \
            pages that repeat a token already followed stop the fetch. Exit status: 0 ok, 1 a request failed \
            or a page was rejected, 2 usage (credentials, the server's URL).
            """,
        subcommands: [
            History.self, Statuses.self, Notifications.self, TestNotification.self, OrderLookupCommand.self, RefundsCommand.self,
        ])
}

/// The credentials and the server, shared by every `fetch` command.
struct APIOptions: ParsableArguments {
    @Option(name: .customLong("issuer-id"), help: "The issuer id (App Store Connect → Users and Access → Integrations).")
    var issuerId: String?
    @Option(name: .customLong("key-id"), help: "The In-App Purchase key's id.") var keyId: String?
    @Option(name: .customLong("bundle-id"), help: "The app's bundle id.") var bundleId: String?
    @Option(name: .customLong("private-key"), help: "The .p8 private key file (mode 600).") var privateKey: String?
    @Flag(help: "Use the sandbox environment's server.") var sandbox = false
    @Option(
        name: .customLong("api-base"),
        help: """
            Another server (a test server; also SUBDASH_API_BASE). It gets the bearer token: https only, \
            plain http only to loopback (127.0.0.1, ::1, localhost).
            """)
    var apiBase: String?
    @Option(help: "The configuration file (default: $XDG_CONFIG_HOME/subdash/config.toml).") var config: String?
    @Option(
        name: .customLong("max-document-bytes"),
        help: "A page larger than this many bytes is rejected unread (default \(DocumentReader.defaultSizeLimit), 16 MiB).")
    var maxDocumentBytes = DocumentReader.defaultSizeLimit
    @Option(
        name: .customLong("request-timeout"),
        help: ArgumentHelp("Seconds for a whole answer before the attempt is retried (default 30).", visibility: .hidden))
    var requestTimeout = 30
    @Option(
        name: .customLong("max-attempts"),
        help: ArgumentHelp("Attempts of each request, the first included (default 6).", visibility: .hidden))
    var maxAttempts = 6

    func validate() throws {
        if maxDocumentBytes < 1 { throw ValidationError("--max-document-bytes must be at least 1") }
        if !(1...600).contains(requestTimeout) { throw ValidationError("--request-timeout must be 1 to 600 seconds") }
        if !(1...20).contains(maxAttempts) { throw ValidationError("--max-attempts must be 1 to 20") }
    }

    /// The client, the server it talks to and what to tell the user about the configuration.
    struct Connection {
        var client: AppStoreServerClient
        var base: APIBase
        /// Warnings: a configuration file that gives nothing usable.
        var notes: [String]
        /// The environment the credentials act on (`--sandbox`, the configuration; production else),
        /// whatever server `--api-base` names.
        var environment: AppStoreServerEnvironment = .production
        /// The app the credentials are for.
        var bundleId = ""
    }

    func connection(
        onRetry: @escaping @Sendable (String) -> Void, environment env: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Connection {
        do throws(AppStoreAPIError) {
            var sources = [
                CredentialSources(
                    issuerId: issuerId, keyId: keyId, bundleId: bundleId, privateKeyPath: privateKey,
                    environment: sandbox ? .sandbox : nil),
                try CredentialSources.fromEnvironment(env),
            ]
            var notes: [String] = []
            if let path = config ?? ConfigFile.defaultPath(environment: env),
                config != nil || FileManager.default.fileExists(atPath: path)
            {
                let file = try ConfigFile(contentsOf: path)
                if let why = CredentialSources.nothingUsable(in: file) {
                    notes.append("\(path) gives no App Store Server API setting: \(why)")
                }
                sources.append(try CredentialSources.fromConfig(file, path: path))
            }
            let merged = CredentialSources.merged(sources)
            let credentials: AppStoreCredentials
            do throws(AppStoreAPIError) {
                credentials = try merged.credentials()
            } catch {
                throw AppStoreAPIError(([error.message] + notes.map { "(\($0))" }).joined(separator: " "))
            }
            let base: APIBase
            if let apiBase {
                base = try APIBase(apiBase, source: "--api-base")
            } else if let variable = env["SUBDASH_API_BASE"], !variable.isEmpty {
                base = try APIBase(variable, source: "SUBDASH_API_BASE")
            } else {
                base = APIBase(environment: merged.environment ?? .production)
            }
            let client = AppStoreServerClient(
                credentials: credentials, baseURL: base.url, retry: RetryPolicy(maxAttempts: maxAttempts),
                requestTimeoutSeconds: requestTimeout, maxDocumentBytes: maxDocumentBytes, onRetry: onRetry)
            return Connection(
                client: client, base: base, notes: notes, environment: merged.environment ?? .production,
                bundleId: credentials.bundleId)
        } catch {
            throw CLIError(error.message, code: 2)
        }
    }
}

/// What every fetch command does around its requests: the store, the verifier, the progress line,
/// the summary and the exit status.
final class FetchRun {
    let sink: StoreSink
    let client: AppStoreServerClient
    /// The environment and app the credentials act on.
    let environment: AppStoreServerEnvironment
    let bundleId: String
    let progress: FetchProgress
    var rejected = 0
    /// Notifications whose notificationUUID the store holds already with other content.
    var conflicts = 0
    var totals = BatchResult()
    /// Print the import summary at the end (an action that stores nothing says its own).
    var summary = true

    /// Says first which server it talks to (the bearer token goes there).
    init(store: StoreOptions, verification: VerificationOptions, api: APIOptions) throws {
        let progress = FetchProgress()
        self.progress = progress
        let connection = try api.connection(onRetry: { progress.show($0) })
        client = connection.client
        environment = connection.environment
        bundleId = connection.bundleId
        printError("fetch: App Store Server API at \(connection.base.url) (\(connection.base.source))")
        for note in connection.notes { printError("warning: " + note) }
        do {
            sink = StoreSink(database: try store.open(), verifier: try verification.verifier())
        } catch {
            client.syncShutdown()
            throw error
        }
    }

    func store(_ body: FetchedPage, source: String) throws -> StoreSink.Stored {
        let stored = try sink.store(body, source: source)
        totals.add(stored.result)
        if let reason = stored.rejection {
            rejected += 1
            progress.clear()
            printError("\(source): \(reason)")
        } else if let (_, reason) = stored.result.rejections.first {
            // The store's own verdict (another app's document).
            rejected += 1
            progress.clear()
            printError("\(source): \(reason)")
        }
        for (_, reason) in stored.result.conflicts {
            conflicts += 1
            progress.clear()
            printError("\(source): conflict: \(reason)")
        }
        return stored
    }

    /// Shuts the client down; prints the summary; exit status 1 when a request failed or a page was rejected.
    func finish(_ outcome: Result<Void, any Error>) async throws {
        try? await client.shutdown()
        progress.clear()
        let t = totals
        if summary || t.applied + t.duplicates + t.rejected > 0 {
            printError(
                "\(t.applied) applied, \(t.duplicates) duplicate\(t.duplicates == 1 ? "" : "s"), \(t.rejected) rejected, "
                    + "\(conflicts) in conflict; \(t.touchedSubscriptions.count) subscription\(t.touchedSubscriptions.count == 1 ? "" : "s") touched"
            )
        }
        if case .failure(let error) = outcome {
            if let error = error as? AppStoreAPIError { throw CLIError(error.message) }
            throw error
        }
        if rejected > 0 || conflicts > 0 { throw ExitCode(1) }
    }

    /// Runs `body`, then `finish`.
    /// With `actionLog`, the store commits its audit entries to the team log first
    /// (docs/team.md, "Operator writes").
    static func run(
        store: StoreOptions, verification: VerificationOptions, api: APIOptions, actionLog: TeamActionLog? = nil,
        _ body: (FetchRun) async throws -> Void
    ) async throws {
        defer { if let actionLog { Task { await actionLog.close() } } }
        let run = try FetchRun(store: store, verification: verification, api: api)
        try TeamOptions.attach(actionLog, to: run.sink.database)
        let outcome: Result<Void, any Error>
        do {
            try await body(run)
            outcome = .success(())
        } catch { outcome = .failure(error) }
        try await run.finish(outcome)
    }
}

/// A line on stderr that updates in place on a terminal, plain lines otherwise.
final class FetchProgress: Sendable {
    let interactive = isatty(2) != 0

    func show(_ text: String) {
        if interactive { FileHandleOutput.progress(text) } else { printError(text) }
    }

    func clear() { if interactive { FileHandleOutput.clearLine() } }
}

extension Fetch {
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "Get Transaction History: every page of a customer's transactions, from any of their transaction ids.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var verification: VerificationOptions
        @OptionGroup var api: APIOptions
        @Argument(help: "A transaction id (or original transaction id).") var transactionId: String

        mutating func run() async throws {
            let id = transactionId
            try await FetchRun.run(store: store, verification: verification, api: api) { run in
                var transactions = 0
                try await run.client.transactionHistory(id) { body, page in
                    transactions += try run.store(body, source: "api:history/\(id) page \(page)").transactions
                    run.progress.show("fetch history \(id): page \(page), \(transactions) transactions")
                }
            }
        }
    }

    struct Statuses: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "statuses",
            abstract: "Get All Subscription Statuses: the latest transaction and renewal info of each subscription.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var verification: VerificationOptions
        @OptionGroup var api: APIOptions
        @Argument(help: "A transaction id (or original transaction id).") var transactionId: String

        mutating func run() async throws {
            let id = transactionId
            try await FetchRun.run(store: store, verification: verification, api: api) { run in
                let body = try await run.client.subscriptionStatuses(id)
                _ = try run.store(body, source: "api:statuses/\(id)")
            }
        }
    }

    struct Notifications: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "notifications",
            abstract: "Get Notification History: the notifications Apple sent (or tried to) between two instants.",
            discussion: """
                The backfill after the listener was down. Without --since, it starts at the latest \
                notification already stored, so running it again resumes where it stopped. Apple keeps \
                180 days; --until defaults to now.
                """)
        @OptionGroup var store: StoreOptions
        @OptionGroup var verification: VerificationOptions
        @OptionGroup var api: APIOptions
        @Option(help: "Start (default: the latest notification in the store).") var since: InstantArgument?
        @Option(help: "End (default: now).") var until: InstantArgument?

        mutating func run() async throws {
            let until = self.until?.instant ?? Instant(Date())
            let explicitSince = since?.instant
            try await FetchRun.run(store: store, verification: verification, api: api) { run in
                var start: Instant
                if let explicitSince {
                    start = explicitSince
                } else if let latest = try run.sink.latestNotificationMilliseconds() {
                    start = Instant(milliseconds: latest)
                    printError("fetch notifications: resuming at the latest stored notification, \(start.iso8601)")
                } else {
                    throw CLIError("no notification is stored yet: pass --since DATE (Apple keeps 180 days)", code: 2)
                }
                let oldest = Instant(Date()).adding(days: -180)
                if start < oldest {
                    printError(
                        "fetch notifications: Apple keeps 180 days; starting at \(oldest.iso8601) instead of \(start.iso8601)")
                    start = oldest
                }
                guard start < until else {
                    throw CLIError("--since \(start.iso8601) is not before --until \(until.iso8601)", code: 2)
                }
                var notifications = 0
                try await run.client.notificationHistory(
                    startMilliseconds: start.milliseconds, endMilliseconds: until.milliseconds
                ) { body, page in
                    notifications += try run.store(body, source: "api:notification-history \(start.iso8601) page \(page)")
                        .notifications
                    run.progress.show("fetch notifications: page \(page), \(notifications) notifications")
                }
            }
        }
    }

    struct TestNotification: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test-notification",
            abstract: "Request a Test Notification, wait for Apple to send it to your server, and store it.",
            discussion: "Checks the whole path: App Store Connect's server URL, your TLS front, `subdash listen`.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var verification: VerificationOptions
        @OptionGroup var api: APIOptions
        @Option(help: "Seconds to wait for Apple's send attempt.") var wait = 60
        @Option(name: .customLong("poll-interval"), help: ArgumentHelp("Seconds between status requests.", visibility: .hidden))
        var pollInterval = 2.0

        mutating func run() async throws {
            let (wait, interval) = (wait, pollInterval)
            try await FetchRun.run(store: store, verification: verification, api: api) { run in
                let token = try await run.client.requestTestNotification()
                run.progress.show("fetch test-notification: requested; waiting for Apple's send attempt")
                let deadline = Date().addingTimeInterval(Double(wait))
                while true {
                    var page: FetchedPage?
                    do {
                        page = try await run.client.testNotificationStatus(token)
                    } catch let error as AppStoreAPIError where error.message.contains("404") {
                        page = nil  // not sent yet
                    }
                    if let page, case .tooLarge = page {
                        _ = try run.store(page, source: "api:test-notification")
                        return
                    }
                    if let page, case .body(let body) = page, let attempts = TestNotificationStatus(body),
                        !attempts.results.isEmpty
                    {
                        _ = try run.store(page, source: "api:test-notification")
                        run.progress.clear()
                        print(
                            "test notification \(attempts.notificationUUID ?? "?"): \(attempts.results.joined(separator: ", "))")
                        if attempts.results.last != "SUCCESS" {
                            throw CLIError(
                                "Apple could not deliver the test notification (\(attempts.results.last ?? "?")): "
                                    + "check the server URL in App Store Connect, TLS, and that `subdash listen` is reachable")
                        }
                        return
                    }
                    guard Date() < deadline else {
                        throw CLIError("Apple had not tried to send the test notification after \(wait) s")
                    }
                    try await Task.sleep(for: .seconds(interval))
                }
            }
        }
    }
}

/// The parts of Get Test Notification Status subdash shows: each send attempt's result.
struct TestNotificationStatus {
    var results: [String]
    var notificationUUID: String?

    init?(_ body: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        var results = (object["sendAttempts"] as? [[String: Any]] ?? []).compactMap { $0["sendAttemptResult"] as? String }
        if results.isEmpty, let first = object["firstSendAttemptResult"] as? String { results = [first] }
        self.results = results
        notificationUUID = nil
        if let jws = object["signedPayload"] as? String {
            let parts = jws.split(separator: ".")
            if parts.count == 3, let data = Data(base64URL: String(parts[1])),
                let payload = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            {
                notificationUUID = payload["notificationUUID"] as? String
            }
        }
    }
}

extension Data {
    init?(base64URL: String) {
        var s = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        self.init(base64Encoded: s)
    }
}

/// The dashboard's `R`: a subscriber's transaction history and subscription statuses fetched with
/// the credentials `subdash fetch` would use (environment variables, then the configuration file),
/// stored through the import path.
struct DashboardFetcher {
    let client: AppStoreServerClient
    let fetch: @Sendable (String) async throws -> String
    /// `/` on an order ID nobody matches: Look Up Order ID, audited as `operatorName`
    /// (``DashboardFetcher/lookUpOrder(_:client:sink:environment:operatorName:)``).
    var lookUpOrder: (@Sendable (String) async throws -> [String])?
    /// Pane 2's `x`: Extend a Subscription Renewal Date with this client (the dashboard checks and
    /// audits it as `subdash extend` does).
    var extender: RenewalExtender?
    /// The `:answer` form: Send Consumption Information with this client.
    var consumptionAnswerer: ConsumptionAnswerer?
    /// The dashboard's background polls of running mass extensions: Get Status of
    /// Subscription-Renewal-Date Extensions with this client.
    var massExtensionPoller: MassExtensionPoller?

    /// Nil and the reason when there are no usable credentials.
    /// `environment`: where the credentials and `SUBDASH_API_BASE` are read (the process's; tests
    /// give their own).
    static func make(
        database: AppDatabase, operatorName: String? = nil, trustRoots: [String] = [],
        environment processEnvironment: [String: String] = ProcessInfo.processInfo.environment
    ) -> (DashboardFetcher?, unavailable: String?) {
        let client: AppStoreServerClient
        let sink: StoreSink
        let environment: AppStoreServerEnvironment
        let bundleId: String
        do {
            let connection = try APIOptions.parse([]).connection(onRetry: { _ in }, environment: processEnvironment)
            client = connection.client
            environment = connection.environment
            bundleId = connection.bundleId
            sink = StoreSink(
                database: database,
                verifier: try VerificationOptions.parse(trustRoots.flatMap { ["--trust-root", $0] }).verifier())
        } catch let error as CLIError where error.message.hasPrefix("App Store Server API credentials missing") {
            return (nil, "no App Store Server API credentials")
        } catch {
            // Present but unusable (a key file others can read, a broken config line): said in full.
            return (nil, "\(error)")
        }
        let fetch: @Sendable (String) async throws -> String = { id in
            var totals = BatchResult()
            var transactions = 0
            do {
                try await client.transactionHistory(id) { body, page in
                    let stored = try sink.store(body, source: "api:history/\(id) page \(page)")
                    totals.add(stored.result)
                    transactions += stored.transactions
                }
                let statuses = try sink.store(try await client.subscriptionStatuses(id), source: "api:statuses/\(id)")
                totals.add(statuses.result)
            } catch let error as AppStoreAPIError {
                throw CLIError(error.message)
            }
            return "\(transactions) transaction\(transactions == 1 ? "" : "s"); \(totals.applied) applied, "
                + "\(totals.duplicates) already stored, \(totals.rejected) rejected"
        }
        var fetcher = DashboardFetcher(client: client, fetch: fetch)
        fetcher.extender = RenewalExtender(
            environment: environment.rawValue, storeEnvironment: environment.storeEnvironment, bundleId: bundleId,
            requestBody: { days, reason, requestIdentifier in
                String(
                    decoding: AppStoreServerClient.extendRequestBody(
                        days: days, reason: AppStoreServerClient.ExtendReason(rawValue: reason) ?? .undeclared,
                        requestIdentifier: requestIdentifier), as: UTF8.self)
            },
            send: { id, body in
                do {
                    let answer = try await client.extendRenewalDate(originalTransactionId: id, body: Data(body.utf8))
                    return SupportAnswer(
                        outcome: answer.success ? .done : .refused, answer: answer.text,
                        effectiveDate: answer.effectiveDateMilliseconds.map(Instant.init(milliseconds:)), at: Instant(Date()))
                } catch let error as AppStoreAPIError {
                    // An answer with an error code is Apple's refusal; anything else leaves it unknown.
                    let refused = error.status.map { $0 < 500 && $0 != 429 } == true
                    return SupportAnswer(
                        outcome: refused ? .refused : .failed, answer: error.message, errorCode: error.appleErrorCode,
                        at: Instant(Date()))
                }
            })
        fetcher.consumptionAnswerer = ConsumptionAnswerer(
            environment: environment.rawValue, storeEnvironment: environment.storeEnvironment, bundleId: bundleId,
            send: { id, body in
                do {
                    try await client.sendConsumptionInformation(transactionId: id, body: Data(body.utf8))
                    return SupportAnswer(outcome: .done, answer: "accepted", at: Instant(Date()))
                } catch let error as AppStoreAPIError {
                    let refused = error.status.map { $0 < 500 && $0 != 429 } == true
                    return SupportAnswer(
                        outcome: refused ? .refused : .failed, answer: error.message, errorCode: error.appleErrorCode,
                        at: Instant(Date()))
                }
            })
        fetcher.massExtensionPoller = MassExtensionPoller(
            environment: environment.rawValue,
            poll: { product, request in
                do {
                    let status = try await client.massExtendStatus(productId: product, requestIdentifier: request)
                    return MassExtensionPoll(
                        answer: SupportAnswer(outcome: .done, answer: status.text, at: Instant(Date())),
                        complete: status.complete,
                        succeeded: status.succeededCount, failed: status.failedCount)
                } catch let error as AppStoreAPIError {
                    let refused = error.status.map { $0 < 500 && $0 != 429 } == true
                    return MassExtensionPoll(
                        answer: SupportAnswer(
                            outcome: refused ? .refused : .failed, answer: error.message, errorCode: error.appleErrorCode,
                            at: Instant(Date())), retryAfter: error.retryAfterSeconds)
                } catch {
                    return MassExtensionPoll(answer: SupportAnswer(outcome: .failed, answer: "\(error)", at: Instant(Date())))
                }
            })
        if let operatorName {
            fetcher.lookUpOrder = { order in
                try await Self.lookUpOrder(
                    order, client: client, sink: sink, environment: environment, operatorName: operatorName)
            }
        }
        return (fetcher, nil)
    }

    /// Look Up Order ID as `subdash fetch order` does it (refused in the sandbox, written to the
    /// audit log, what Apple returns stored through the import path); the subscriptions found.
    static func lookUpOrder(
        _ order: String, client: AppStoreServerClient, sink: StoreSink, environment: AppStoreServerEnvironment,
        operatorName: String
    ) async throws -> [String] {
        guard environment == .production else {
            throw CLIError("Apple does not offer Look Up Order ID in the sandbox: sandbox purchases have no order ID")
        }
        let database = sink.database
        let id = try database.beginSupportAction(
            kind: .lookupOrder, target: order, environment: environment.rawValue, summary: "look up order \(order)", request: nil,
            requestIdentifier: nil, operatorName: operatorName, at: Instant(Date()))
        let lookup: AppStoreServerClient.OrderLookup
        do {
            lookup = try await client.lookUpOrder(order)
        } catch let error as AppStoreAPIError {
            let outcome: SupportAnswer.Outcome = error.status.map { $0 < 500 && $0 != 429 } == true ? .refused : .failed
            try database.recordSupportAnswer(
                SupportAnswer(outcome: outcome, answer: error.message, errorCode: error.appleErrorCode, at: Instant(Date())),
                action: id)
            throw CLIError(error.message)
        }
        guard lookup.valid else {
            try database.recordSupportAnswer(
                SupportAnswer(outcome: .refused, answer: "status 1: not a valid order ID", at: Instant(Date())), action: id)
            throw CLIError("Apple says \(order) is not a valid order ID (status 1)")
        }
        try database.recordSupportAnswer(
            SupportAnswer(
                outcome: .done,
                answer: "status 0: \(lookup.transactionCount) transaction\(lookup.transactionCount == 1 ? "" : "s")",
                at: Instant(Date())), action: id)
        let stored = try sink.store(lookup.body, source: "api:lookup/\(order)")
        if let rejection = stored.rejection { throw CLIError("Apple's answer was rejected: \(rejection)") }
        guard case .body(let body) = lookup.body else { return [] }
        return try Fetch.OrderLookupCommand.subscriptions(in: body, database: database)
    }

    func shutdown() { client.syncShutdown() }
}
