import Foundation
import Hummingbird
import StoreImport
import SubscriberStore
import SubscriptionModel
import TeamLog

/// Answers every request of `subdash listen`: Apple's POSTs on the configured path, `GET /healthz`,
/// and 404 / 405 for everything else. A notification's body goes through the import's own path
/// (`Importer.incoming`: decoding, signature verification, the archive record) and is committed
/// by the `GroupCommitter` before the answer, which says what the store made of it:
/// - 200 `applied`, or `duplicate` when it was stored before (Apple's retries change nothing);
/// - 202 `stored, not applied: …`: an unsigned v1 notification kept in the archive but not applied,
///   its subscription having signed data (a success for Apple, which does not send it again);
/// - 400 `rejected: reason`: not stored as accepted (not decodable, a bad signature, another app);
///   archived as rejected up to the archive's limit (``RejectedArchive``), counted past it;
/// - 409 `conflict: …`: its `notificationUUID` is stored already with other content; the first is
///   kept, this one archived and not applied;
/// - 503 when it could not be committed, so Apple sends it again.
///
/// With a team log (`listen --team`), a document the store took (applied, duplicate, or kept as
/// unverified) is then committed to the log, and answered as above only once it is there: 503 when
/// the log cannot take it. Without a store, the log's verdict is the answer: 200 `logged`, or 200
/// `duplicate` when the log held it already (from any listener); rejections are those of the
/// decoding and verification, answered alike but archived nowhere (docs/team.md, "Listeners").
struct NotificationResponder: HTTPResponder {
    typealias Context = ListenerRequestContext

    let configuration: ListenerConfiguration
    let importer: Importer
    /// The local store's committer; nil for a listener that writes to the team log only.
    let committer: GroupCommitter?
    let log: RequestLog
    let health: ListenerHealth
    let rejectedArchive: RejectedArchive
    var teamLog: TeamLogWriter? = nil
    /// Without a store: the app whose signed documents are taken (nil: any).
    var app: AppIdentity? = nil
    /// `GET /offers/…` when `subdash listen --offers` serves it.
    var offers: (endpoint: OffersEndpoint, limiter: OfferRateLimiter)? = nil

    func respond(to request: Request, context: Context) async throws -> Response {
        let arrived = Date()
        let started = ContinuousClock.now
        var entry = RequestLog.Entry(
            time: RequestLog.timestamp(arrived), method: request.method.rawValue,
            path: request.uri.path, outcome: "", status: 0, ms: 0)
        let response: Response
        if let offers, request.uri.path.hasPrefix(OffersEndpoint.pathPrefix) {
            response = await answerOffer(
                request, endpoint: offers.endpoint, limiter: offers.limiter, client: context.client, entry: &entry)
        } else {
            response = await answer(request, entry: &entry)
        }
        let elapsed = ContinuousClock.now - started
        entry.status = response.status.code
        entry.ms = (Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15).rounded(toPlaces: 2)
        log.write(entry)
        return response
    }

    private func answer(_ request: Request, entry: inout RequestLog.Entry) async -> Response {
        let path = request.uri.path
        if path == "/healthz" {
            guard request.method == .get || request.method == .head else {
                entry.outcome = "method not allowed"
                return Self.text(.methodNotAllowed, "use GET\n", allow: "GET, HEAD")
            }
            let (healthy, text) = health.report()
            entry.outcome = healthy ? "healthy" : "unhealthy"
            if !healthy { entry.reason = health.lastFailureReason.map(Self.shortened) }
            return Self.text(healthy ? .ok : .serviceUnavailable, text)
        }
        guard path == configuration.path else {
            entry.outcome = "not found"
            return Self.text(.notFound, "not found: notifications are received at \(configuration.path)\n")
        }
        guard request.method == .post else {
            entry.outcome = "method not allowed"
            return Self.text(.methodNotAllowed, "use POST\n", allow: "POST")
        }
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > configuration.maxBodyBytes {
            entry.outcome = "too large"
            entry.reason = "Content-Length \(declared)"
            return Self.text(.contentTooLarge, "body over \(configuration.maxBodyBytes) bytes\n")
        }
        let body: ByteBuffer
        do {
            body = try await collect(request.body)
        } catch let error as BodyError {
            switch error {
            case .tooLarge:
                entry.outcome = "too large"
                return Self.text(.contentTooLarge, "body over \(configuration.maxBodyBytes) bytes\n")
            case .timedOut:
                entry.outcome = "body timeout"
                return Self.text(.requestTimeout, "body not received within \(configuration.bodyTimeoutSeconds) s\n")
            }
        } catch {
            entry.outcome = "body unreadable"
            entry.reason = "\(error)"
            return Self.text(.badRequest, "body could not be read\n")
        }
        let bytes = Data(body.readableBytesView)
        guard let committer else { return await answerToTeamLogOnly(bytes, entry: &entry) }
        let importer = self.importer
        let rejectedArchive = self.rejectedArchive
        var counted: (document: IncomingDocument, firstInWindow: Bool)?
        let committed = await committer.commitIfAny(preparing: {
            var document = importer.incoming(bytes, source: "listen")
            if case .facts(let facts) = document.content, facts.format != .v1Notification, facts.format != .v2Notification {
                // An API response or a receipt is importable, but not something Apple posts here.
                document.content = .rejected(reason: "not a server notification (a \(facts.format.rawValue) document)")
            }
            if case .rejected = document.content, case .counted(let first) = rejectedArchive.admit(document) {
                counted = (document, first)
                return nil
            }
            return document
        })
        guard let committed else {
            // Past the archive's limit for rejected requests: answered as any rejection, not written.
            guard let counted, case .rejected(let reason) = counted.document.content else {
                entry.outcome = "not stored"
                return Self.text(.serviceUnavailable, "not stored, send again later\n")
            }
            if counted.firstInWindow {
                log.note(
                    "subdash listen: over \(rejectedArchive.bytesPerWindow >> 20) MiB of rejected requests archived this hour: "
                        + "further ones are answered and counted (GET /healthz), not archived, until the hour is over")
            }
            entry.id = "sha256:" + counted.document.sha256
            entry.archived = false
            return Self.rejected(reason, entry: &entry)
        }
        let document = committed.document
        entry.id = "sha256:" + document.sha256
        if case .facts(let facts) = document.content, let notification = facts.notifications.first {
            if facts.format == .v2Notification { entry.id = notification.notificationId }
            entry.type = notification.notificationType + (notification.subtype.map { "/" + $0 } ?? "")
        }
        if committed.commit > 0 { entry.commit = committed.commit }
        switch committed.outcome {
        case .failure(let error):
            entry.outcome = "not stored"
            entry.reason = "\(error)"
            return Self.text(.serviceUnavailable, "not stored, send again later\n")
        case .success(let result):
            if case .rejected(let reason) = document.content {
                return Self.rejected(reason, entry: &entry)
            }
            // The store's own verdict: another app's document is rejected there, not by the decoder.
            switch result.documentOutcome {
            case .rejected(let reason):
                return Self.rejected(reason, entry: &entry)
            case .conflict(let reason):
                entry.outcome = "conflict"
                entry.reason = Self.shortened(reason)
                return Self.text(.conflict, "conflict: \(Self.shortened(reason))\n")
            case .unverified:
                if let failed = await logToTeam(bytes, document, entry: &entry) { return failed }
                entry.outcome = "not applied"
                entry.reason = Self.unverifiedReason
                return Self.text(.accepted, "stored, not applied: \(Self.unverifiedReason)\n")
            case .applied, .duplicate:
                if let failed = await logToTeam(bytes, document, entry: &entry) { return failed }
                entry.outcome = result.applied > 0 ? "applied" : "duplicate"
                return Self.text(.ok, entry.outcome + "\n")
            }
        }
    }

    /// After the local store took a document: commits it to the team log too, when there is one.
    /// Nil when it is there (its sequence number in the log line); else the 503 to answer.
    private func logToTeam(_ bytes: Data, _ document: IncomingDocument, entry: inout RequestLog.Entry) async -> Response? {
        guard let teamLog, case .facts(let facts) = document.content else { return nil }
        switch await teamLog.commit(Self.logDocument(bytes, format: facts.format.rawValue)) {
        case .logged(let sequence, _, _):
            entry.seq = sequence
            return nil
        case .notLogged(let reason):
            entry.outcome = "not stored"
            entry.reason = Self.shortened(reason)
            return Self.text(.serviceUnavailable, "not stored, send again later\n")
        }
    }

    /// `listen --team` without a store: decoded and verified as the import does, then committed to
    /// the log, which decides whether it held it already.
    private func answerToTeamLogOnly(_ bytes: Data, entry: inout RequestLog.Entry) async -> Response {
        var document = importer.incoming(bytes, source: "listen")
        if case .facts(let facts) = document.content, facts.format != .v1Notification, facts.format != .v2Notification {
            document.content = .rejected(reason: "not a server notification (a \(facts.format.rawValue) document)")
        }
        if case .facts(let facts) = document.content, let app, facts.isSigned, let documentApp = facts.app,
            !app.matches(documentApp)
        {
            document.content = .rejected(reason: "for the app \(documentApp), but this listener takes \(app) (--bundle-id)")
        }
        entry.id = "sha256:" + document.sha256
        guard case .facts(let facts) = document.content else {
            if case .rejected(let reason) = document.content {
                // No store to archive it in: answered, and its line says so.
                entry.archived = false
                return Self.rejected(reason, entry: &entry)
            }
            return Self.text(.serviceUnavailable, "not stored, send again later\n")
        }
        if let notification = facts.notifications.first {
            if facts.format == .v2Notification { entry.id = notification.notificationId }
            entry.type = notification.notificationType + (notification.subtype.map { "/" + $0 } ?? "")
        }
        guard let teamLog else { return Self.text(.serviceUnavailable, "not stored, send again later\n") }
        switch await teamLog.commit(Self.logDocument(bytes, format: facts.format.rawValue)) {
        case .logged(let sequence, let added, let commit):
            entry.seq = sequence
            entry.commit = commit
            entry.outcome = added ? "logged" : "duplicate"
            return Self.text(.ok, entry.outcome + "\n")
        case .notLogged(let reason):
            entry.outcome = "not stored"
            entry.reason = Self.shortened(reason)
            return Self.text(.serviceUnavailable, "not stored, send again later\n")
        }
    }

    /// A received body as the log keeps it: a v1 notification's shared secret blanked, as in the
    /// store's archive and as `import --team` pushes it, so that the same notification from a file
    /// and from Apple has one sha256 in the log.
    static func logDocument(_ bytes: Data, format: String) -> LogDocument {
        let body = SecretRedaction.redacted(bytes)
        return LogDocument(
            sha256: Importer.sha256Hex(body), body: body, format: format,
            outcome: TeamPush.unsignedFormats.contains(format) ? "unsigned" : "signed", source: "listen")
    }

    /// Why an unsigned v1 notification was kept but not applied.
    static let unverifiedReason =
        "an unsigned v1 notification about a subscription that has signed data "
        + "(start the listener with --shared-secret to verify v1 notifications)"

    /// 400 with the reason, logged as rejected.
    private static func rejected(_ reason: String, entry: inout RequestLog.Entry) -> Response {
        entry.outcome = "rejected"
        entry.reason = shortened(reason)
        return text(.badRequest, "rejected: \(shortened(reason))\n")
    }

    enum BodyError: Error { case tooLarge, timedOut }

    /// The whole body, refusing it as soon as it grows past the limit and giving up when it has not
    /// all arrived in time (a slow sender must not hold a connection slot for ever).
    private func collect(_ body: RequestBody) async throws -> ByteBuffer {
        let limit = configuration.maxBodyBytes
        let timeout = configuration.bodyTimeoutSeconds
        return try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask {
                var collected = ByteBuffer()
                for try await part in body {
                    guard collected.readableBytes + part.readableBytes <= limit else { throw BodyError.tooLarge }
                    var part = part
                    collected.writeBuffer(&part)
                }
                return collected
            }
            group.addTask {
                try await Task.sleep(for: .seconds(timeout))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let collected = first else { throw BodyError.timedOut }
            return collected
        }
    }

    /// A reason fit for a response and a log line: one line, at most 200 characters.
    static func shortened(_ reason: String) -> String {
        let line = reason.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.count <= 200 ? line : String(line.prefix(199)) + "…"
    }

    static func text(_ status: HTTPResponse.Status, _ body: String, allow: String? = nil) -> Response {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        if let allow { headers[.allow] = allow }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}
