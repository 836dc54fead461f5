import Foundation
import Hummingbird
import StoreImport
import SubscriberStore
import SubscriptionModel

/// Answers every request of `subdash listen`: Apple's POSTs on the configured path, `GET /healthz`,
/// and 404 / 405 for everything else. A notification's body goes through the import's own path
/// (`Importer.incoming`: decoding, signature verification, the archive record) and is committed
/// by the `GroupCommitter` before the answer: 200 when applied or already stored, 4xx with a short
/// reason when rejected (the rejection is archived too), 5xx when it could not be committed, so
/// Apple sends it again.
struct NotificationResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let configuration: ListenerConfiguration
    let importer: Importer
    let committer: GroupCommitter
    let database: AppDatabase
    let log: RequestLog

    func respond(to request: Request, context: Context) async throws -> Response {
        let arrived = Date()
        let started = ContinuousClock.now
        var entry = RequestLog.Entry(
            time: RequestLog.timestamp(arrived), method: request.method.rawValue,
            path: request.uri.path, outcome: "", status: 0, ms: 0)
        let response = await answer(request, entry: &entry)
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
            // Off the server's threads: the check may wait up to its busy timeout.
            let database = self.database
            let checked: Result<Void, any Error> = await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: Result { try database.checkWritable() }) }
            }
            switch checked {
            case .success:
                entry.outcome = "healthy"
                return Self.text(.ok, "ok\n")
            case .failure(let error):
                entry.outcome = "unhealthy"
                entry.reason = "\(error)"
                return Self.text(.serviceUnavailable, "store not writable\n")
            }
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
        let importer = self.importer
        let committed = await committer.commit(preparing: {
            var document = importer.incoming(bytes, source: "listen")
            if case .facts(let facts) = document.content, facts.format != .v1Notification, facts.format != .v2Notification {
                // An API response or a receipt is importable, but not something Apple posts here.
                document.content = .rejected(reason: "not a server notification (a \(facts.format.rawValue) document)")
            }
            return document
        })
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
                entry.outcome = "rejected"
                entry.reason = Self.shortened(reason)
                return Self.text(.badRequest, "rejected: \(Self.shortened(reason))\n")
            }
            entry.outcome = result.applied > 0 ? "applied" : "duplicate"
            return Self.text(.ok, entry.outcome + "\n")
        }
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
