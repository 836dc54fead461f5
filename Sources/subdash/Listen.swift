import AppStoreServerAPI
import ArgumentParser
import Foundation
import NotificationListener
import SubscriberStore
import SubscriptionModel
import TeamLog

struct Listen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Receive App Store Server Notifications (v1 and v2) over HTTP and store them as they come.",
        discussion: """
            Serves POST requests on --path: each body is decoded, verified and archived exactly as \
            `subdash import` does, and committed to the store before the answer. 200: applied, or \
            stored before (Apple's retries change nothing); 202: stored, not applied (an unsigned v1 \
            notification about a subscription with signed data: pass --shared-secret); 400 with a \
            short reason: rejected (archived as rejected, up to --rejected-archive-mib an hour, then \
            counted only); 413: body over 1 MiB; 503: could not be stored, so Apple sends it again. \
            GET /healthz answers 200 while a notification can be committed, 503 when the last commit \
            failed or free space is below --min-free-mib (docs/security.md). The store must exist: \
            only `subdash import` creates one (`subdash import --db PATH - </dev/null` makes an empty \
            one). One JSON line per request goes to stderr, or to --log FILE; a line that cannot be \
            written is counted (in /healthz), never fatal. Apple requires HTTPS (TLS 1.2 or later): \
            pass --tls-cert and --tls-key, or put a TLS proxy in front. SIGTERM or SIGINT: stop \
            accepting, answer and commit what is in flight, exit 0. \
            With --team URL (or $SUBDASH_TEAM), each verified notification is committed to the team \
            log on PostgreSQL before the 200 (duplicates are found by the database, so any number of \
            listeners can share one log); no store is needed, and with --db it is also stored there \
            first. 503 while the log cannot be reached (GET /healthz says why); the listener \
            reconnects by itself. See docs/team.md.
            """)

    @OptionGroup var store: StoreOptions
    @OptionGroup var team: TeamOptions
    @OptionGroup var verification: VerificationOptions
    @OptionGroup var app: AppTrustOptions
    @Option(help: "The address to listen on.") var bind = "127.0.0.1"
    @Option(help: "The port (0: any free port, printed at start).") var port = 8080
    @Option(help: "The path Apple posts to.") var path = "/notifications"
    @Option(name: .customLong("tls-cert"), help: "PEM certificate chain, to serve HTTPS directly.") var tlsCert: String?
    @Option(name: .customLong("tls-key"), help: "PEM private key of --tls-cert.") var tlsKey: String?
    @Option(help: "Append the request log to this file instead of stderr.") var log: String?
    @Option(name: .customLong("max-connections"), help: "Connections served at once.") var maxConnections = 256
    @Option(name: .customLong("body-timeout"), help: "Seconds a request's body may take to arrive.") var bodyTimeout = 10
    @Option(name: .customLong("idle-timeout"), help: "Seconds a connection may stay silent (headers included).") var idleTimeout =
        30
    @Option(
        name: .customLong("header-timeout"),
        help: "Seconds a request's headers may take to arrive (from the connection or the previous response).")
    var headerTimeout = 10
    @Option(
        name: .customLong("rejected-archive-mib"),
        help: "MiB of rejected requests archived per hour; further ones are answered and counted, not archived.")
    var rejectedArchiveMiB = ListenerConfiguration().rejectedArchiveBytesPerHour >> 20
    @Option(
        name: .customLong("min-free-mib"),
        help: "GET /healthz fails when the store's file system has less free space than this, MiB.")
    var minFreeMiB = Int(ListenerConfiguration().minimumFreeBytes >> 20)

    @Flag(
        help: """
            Also serve GET /offers/{appAccountToken or originalTransactionId}: the subscriber's flagged offer, \
            signed (README, "Offers that reach the customer"). Needs the signing key (as `offer sign`) and \
            offers_token in [listen] of the configuration file (or SUBDASH_OFFERS_TOKEN), 32 characters or more.
            """)
    var offers = false
    @Option(name: .customLong("offers-rate"), help: "With --offers: requests a minute per client address.") var offersRate =
        60
    @Option(help: "The configuration file (default: $XDG_CONFIG_HOME/subdash/config.toml).") var config: String?

    func validate() throws {
        if offersRate < 1 { throw ValidationError("--offers-rate must be at least 1") }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if !path.hasPrefix("/") || path == "/healthz" { throw ValidationError("--path must start with / and not be /healthz") }
        if !(0...65535).contains(port) { throw ValidationError("--port must be between 0 and 65535") }
        if maxConnections < 1 || bodyTimeout < 1 || idleTimeout < 1 || headerTimeout < 1 {
            throw ValidationError("--max-connections, --body-timeout, --idle-timeout and --header-timeout must be at least 1")
        }
        if !(0...(1 << 20)).contains(rejectedArchiveMiB) { throw ValidationError("--rejected-archive-mib must be 0 to 1048576") }
        if !(0...(1 << 30)).contains(minFreeMiB) { throw ValidationError("--min-free-mib must be 0 to 1073741824") }
    }

    mutating func run() async throws {
        let teamAddress = try team.address()
        if teamAddress != nil && verification.noVerify {
            throw CLIError("the team log takes verified documents only: leave out --no-verify", code: ExitStatus.usage)
        }
        if teamAddress != nil && store.db == nil && offers {
            throw CLIError("--offers reads the subscribers' flags from a store: give --db with --team", code: ExitStatus.usage)
        }
        let verifier = try verification.verifier()
        // With --team, a store only when --db names one: the log is where notifications go.
        var database: AppDatabase? = nil
        if teamAddress == nil || store.db != nil {
            // Only `import` creates a store: a mistyped --db would otherwise store Apple's
            // notifications in a new file that no dashboard or report reads.
            try store.requireExisting()
            let opened = try store.open()
            try app.recordApp(in: opened)
            database = opened
        }
        var teamLog: TeamLogWriter? = nil
        if let teamAddress { teamLog = try await Self.teamLogWriter(teamAddress) }
        defer { teamLog?.stop() }
        let requestLog: RequestLog
        do {
            requestLog = try log.map(RequestLog.init(path:)) ?? RequestLog()
        } catch let error as ListenerError {
            throw CLIError(error.message, code: 2)
        }
        var configuration = ListenerConfiguration()
        configuration.host = bind
        configuration.port = port
        configuration.path = path
        configuration.maxConnections = maxConnections
        configuration.bodyTimeoutSeconds = bodyTimeout
        configuration.idleTimeoutSeconds = idleTimeout
        configuration.headerTimeoutSeconds = headerTimeout
        configuration.tlsCertificatePath = tlsCert
        configuration.tlsKeyPath = tlsKey
        configuration.rejectedArchiveBytesPerHour = rejectedArchiveMiB << 20
        configuration.minimumFreeBytes = Int64(minFreeMiB) << 20
        if offers, let database { configuration.offers = try offersEndpoint(database) }
        let listener = NotificationListener(
            database: database, verifier: verifier, sharedSecret: app.sharedSecretValue,
            configuration: configuration, log: requestLog, teamLog: teamLog,
            app: app.bundleId.map { AppIdentity(bundleId: $0, appAppleId: app.appAppleId) })
        let scheme = tlsCert == nil ? "http" : "https"
        let storePath = database.map { $0.path ?? "memory" }
        var destination = storePath.map { "store \($0)" } ?? ""
        if let teamAddress {
            destination = "team log \(teamAddress)" + (storePath.map { " and store \($0)" } ?? " (no local store)")
        }
        let unverified = verification.noVerify ? " (signatures NOT verified: --no-verify)" : ""
        let servedPath = path
        // Held for as long as the listener runs, as an import holds it: readers (`report`, the
        // dashboard's store watch) then take the subscriptions waiting between a commit and their
        // derivation for work in progress, not for an interrupted import.
        let writing = database?.path.flatMap { ImportLock(storePath: $0) }
        defer { writing?.release() }
        do {
            try await listener.run { [destination] host, port in
                printError(
                    "subdash listen: listening on \(scheme)://\(host):\(port)\(servedPath), \(destination)\(unverified)")
            }
        } catch let error as ListenerError {
            throw CLIError(error.message)
        } catch {
            throw CLIError("listen on \(bind):\(port): \(error)")
        }
        teamLog?.stop()
        printError("subdash listen: stopped; everything answered 200 is in the \(destination)")
    }

    /// The team log's writer: the schema checked (created by a role that may), and a role that may
    /// not insert documents refused before anything is served. A log that cannot be reached yet is
    /// no reason not to start: the listener answers 503 and /healthz says why until it can.
    static func teamLogWriter(_ address: TeamLogAddress) async throws -> TeamLogWriter {
        let connect: @Sendable () async throws -> TeamLogConnection = {
            let log = try await TeamLogConnection.open(address)
            do {
                try await log.requireDocumentInserts()
            } catch {
                await log.close()
                throw error
            }
            return log
        }
        do {
            return TeamLogWriter(address: address, connection: try await connect(), connect: connect)
        } catch let error as TeamLogError {
            guard case .unreachable(let reason) = error else { throw CLIError("\(error)", code: ExitStatus.fatal) }
            printError("subdash listen: \(reason); answering 503 until it can be reached (tried again every second)")
            return TeamLogWriter(address: address, connection: nil, reason: reason, connect: connect)
        } catch {
            throw CLIError("\(error)", code: ExitStatus.fatal)
        }
    }

    /// The offers endpoint: its token, the signing key and the catalogue, or a usage error.
    func offersEndpoint(_ database: AppDatabase) throws -> OffersEndpoint {
        let (credentials, catalogue, file) = try SigningKeyOptions.resolve(flags: CredentialSources(), config: config)
        let token =
            ProcessInfo.processInfo.environment["SUBDASH_OFFERS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            ?? file?.values["listen.offers_token"]
        guard let token, token.count >= 32 else {
            throw CLIError(
                "--offers needs offers_token in the [listen] section of the configuration file (or SUBDASH_OFFERS_TOKEN), "
                    + "32 characters or more (`openssl rand -hex 32`); it is not the App Store key",
                code: ExitStatus.usage)
        }
        if token == credentials.keyId || token == credentials.issuerId {
            throw CLIError("offers_token must be a secret of its own, not an App Store id", code: ExitStatus.usage)
        }
        if catalogue.isEmpty { printError("subdash listen: warning: no [offers.KIND] catalogue: every /offers/ answer is 204") }
        let service = OfferService(database: database, credentials: credentials, catalogue: catalogue)
        return OffersEndpoint(token: token, requestsPerMinute: offersRate) { request in service.answer(request) }
    }
}
