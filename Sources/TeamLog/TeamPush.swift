import AppStorePayloads
import Foundation
import StoreImport
import SubscriberStore
import SubscriptionModel

/// `subdash import --team`: files go through the local import (the same reading, decoding,
/// verification, rejections and summary) into a private staging store, and the documents it
/// accepted are pushed to the log, each once: the log decides what it holds already (by sha256).
public enum TeamPush {
    /// What a push added to the log.
    public struct Summary: Sendable, Equatable {
        /// Documents new to the log.
        public var added = 0
        /// Documents the log held already (pushed before, by anyone).
        public var alreadyInLog = 0
        /// Accepted documents whose bytes were too large to archive, so not pushed.
        public var notArchived = 0

        public init() {}

        public var line: String {
            var s = "team log: \(added) document\(added == 1 ? "" : "s") added, \(alreadyInLog) already in the log"
            if notArchived > 0 { s += ", \(notArchived) too large to archive (not pushed)" }
            return s
        }
    }

    /// Formats that carry no Apple signature: in the log as `unsigned`.
    public static let unsignedFormats: Set<String> = [
        PayloadFormat.v1Notification.rawValue, PayloadFormat.verifyReceipt.rawValue, PayloadFormat.customersCSV.rawValue,
    ]

    /// Documents pushed per transaction.
    public static let documentsPerTransaction = 1000

    /// Pushes every document the staging store at `stagingPath` accepted, in the order it stored
    /// them, `documentsPerTransaction` at a time (memory bounded by one page).
    public static func push(stagingStore stagingPath: String, to log: TeamLogConnection) async throws -> Summary {
        let staging = try AppDatabase.open(path: stagingPath, readOnly: true)
        var summary = Summary()
        var after: Int64 = 0
        while true {
            let accepted = try staging.acceptedDocuments(after: after, limit: documentsPerTransaction)
            guard let last = accepted.last else { break }
            after = last.id
            var page: [LogDocument] = []
            page.reserveCapacity(accepted.count)
            for document in accepted {
                guard let body = document.body else {
                    summary.notArchived += 1
                    continue
                }
                page.append(
                    LogDocument(
                        sha256: Importer.sha256Hex(body), body: body, format: document.format,
                        outcome: unsignedFormats.contains(document.format) ? "unsigned" : "signed",
                        source: "import: " + String(document.source.prefix(500))))
            }
            let inserted = try await log.push(page)
            summary.added += inserted.count
            summary.alreadyInLog += page.count - inserted.count
        }
        return summary
    }
}
