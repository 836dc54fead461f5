import AppStorePayloads
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import StoreImport
import SubscriberStore
import SubscriptionModel
import TeamLog

#if canImport(Glibc)
    import Glibc
#endif

/// Where and how `subdash listen` serves.
public struct ListenerConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// 0: any free port (the one taken is passed to `onRunning`).
    public var port = 8080
    /// The one path Apple posts to (App Store Connect's "Production Server URL").
    public var path = "/notifications"
    /// Bodies over this are answered 413 without being read in full (Apple's are a few KB).
    public var maxBodyBytes = 1 << 20
    /// The whole body must arrive within this many seconds of the headers.
    public var bodyTimeoutSeconds = 10
    /// A connection that sends nothing for this long (headers included) is closed.
    public var idleTimeoutSeconds = 30
    /// A request's headers must all arrive within this many seconds of the connection opening or
    /// of the previous response (a client trickling bytes never looks idle).
    public var headerTimeoutSeconds = 10
    /// Connections served at once; further ones wait in the listen backlog.
    public var maxConnections = 256
    /// Bytes of rejected requests archived per hour; past them a rejected request is answered and
    /// counted, not archived (``RejectedArchive``).
    public var rejectedArchiveBytesPerHour = 4 << 20
    /// `/healthz` fails when the store's file system has less free space than this: a commit, and
    /// the WAL growing between two checkpoints (up to 64 MiB while receiving), need room.
    public var minimumFreeBytes: Int64 = 64 << 20
    /// PEM files for serving HTTPS directly (else plain HTTP, for a TLS proxy in front).
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// `GET /offers/…` (`subdash listen --offers`); nil: not served (404 like any other path).
    public var offers: OffersEndpoint?

    public init() {}
}

/// `subdash listen`: an HTTP/1.1 server for App Store Server Notifications (v1 and v2) that
/// stores each one through the import path before answering 200. SIGTERM and SIGINT stop it
/// gracefully: no new connections, in-flight requests answered and committed, then `run` returns.
///
/// With a team log (`listen --team`), each notification is committed to the log before the 200,
/// after the local store when there is one too (docs/team.md, "Listeners").
public struct NotificationListener: Sendable {
    /// The local store; nil for a listener that writes to the team log only.
    let database: AppDatabase?
    let verifier: any SignatureVerifier
    let configuration: ListenerConfiguration
    let log: RequestLog
    /// The app's shared secret: v1 notifications whose password matches are trusted as Apple's.
    let sharedSecret: String?
    /// The team log's writer (`listen --team`).
    let teamLog: TeamLogWriter?
    /// Without a store: the one app whose signed documents are taken (`--bundle-id`); nil takes
    /// any app's, and each view decides which it holds.
    let app: AppIdentity?

    public init(
        database: AppDatabase?, verifier: any SignatureVerifier, sharedSecret: String? = nil,
        configuration: ListenerConfiguration, log: RequestLog, teamLog: TeamLogWriter? = nil, app: AppIdentity? = nil
    ) {
        self.database = database
        self.verifier = verifier
        self.sharedSecret = sharedSecret
        self.configuration = configuration
        self.log = log
        self.teamLog = teamLog
        self.app = app
    }

    /// Serves until SIGTERM or SIGINT. `onRunning` receives the bound host and port.
    public func run(onRunning: @escaping @Sendable (String, Int) -> Void = { _, _ in }) async throws {
        // A write to stderr piped to a reader that exited fails with EPIPE, counted by the log
        // (`RequestLog`), instead of killing the listener with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        try database?.prepareForReceiving()
        let checkpoints = try database?.startBackgroundCheckpoints(interval: 0.2)
        defer { checkpoints?.stop() }
        let log = self.log
        let rejectedArchive = RejectedArchive(bytesPerWindow: configuration.rejectedArchiveBytesPerHour)
        let health = ListenerHealth(
            storePath: database?.path, hasStore: database != nil, minimumFreeBytes: configuration.minimumFreeBytes,
            log: log, rejectedArchive: rejectedArchive, teamLog: teamLog)
        let committer = database.map { database in
            GroupCommitter(
                database: database,
                onDerivationError: { error in
                    log.note("subdash listen: deriving after a commit failed (retried after the next one): \(error)")
                },
                onCommitted: { health.committed($0) })
        }
        defer { committer?.stop() }
        // Decoding and verifying need no store: without one, an empty one in memory stands in for
        // the importer, which never writes to it (`Importer.incoming` only decodes).
        let importer = Importer.appStore(
            database: try database ?? AppDatabase.inMemory(), verifier: verifier, sharedSecret: sharedSecret,
            report: { _ in })
        var responder = NotificationResponder(
            configuration: configuration, importer: importer, committer: committer, log: log, health: health,
            rejectedArchive: rejectedArchive, teamLog: teamLog, app: app)
        if let offers = configuration.offers {
            responder.offers = (offers, OfferRateLimiter(limit: offers.requestsPerMinute))
        }
        var logger = Logger(label: "subdash.listen")
        logger.logLevel = .error
        let headerTimeout = TimeAmount.seconds(Int64(configuration.headerTimeoutSeconds))
        var http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [HeaderTimeoutHandler(timeout: headerTimeout)],
            idleTimeout: .seconds(Int64(configuration.idleTimeoutSeconds)))
        http1.httpDecoder = .init(maxHeaderFieldSize: 16 * 1024, maxHeaderListSize: 32 * 1024, maxHeaderFieldCount: 100)
        var server = HTTPServerBuilder.http1(configuration: http1)
        if let certificate = configuration.tlsCertificatePath, let key = configuration.tlsKeyPath {
            server = try .tls(server, tlsConfiguration: try Self.tlsConfiguration(certificate: certificate, key: key))
        }
        let app = Application(
            responder: responder,
            server: server,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "subdash", backlog: 256,
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections)),
            onServerRunning: { [configuration] channel in
                let port = channel.localAddress?.port ?? configuration.port
                onRunning(configuration.host, port)
            },
            logger: logger)
        try await app.runService()
    }

    static func tlsConfiguration(certificate: String, key: String) throws -> TLSConfiguration {
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
            let privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
            var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(privateKey))
            tls.minimumTLSVersion = .tlsv12
            return tls
        } catch {
            throw ListenerError("--tls-cert \(certificate) / --tls-key \(key): cannot load them: \(error)")
        }
    }
}
