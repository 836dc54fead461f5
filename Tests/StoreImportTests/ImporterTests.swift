import AppStorePayloads
import Foundation
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

@testable import StoreImport

/// Pipeline tests with a toy format: each line "otid txid start end" is one document, "bad" lines
/// are rejected. The App Store formats are tested end to end in AppStoreImportTests.
@Suite struct ImporterTests {
    static func open(_ path: String) -> AnyIterator<SourceDocument> {
        let data = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
        return AnyIterator(split(data).makeIterator())
    }

    static func split(_ data: Data) -> [SourceDocument] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").enumerated().map { i, line in
            SourceDocument(location: "line \(i + 1)", bytes: Data(line.utf8))
        }
    }

    static func decode(_ data: Data, _ sha: String) -> Result<DocumentFacts, ImportError> {
        let f = String(decoding: data, as: UTF8.self).split(separator: " ").map(String.init)
        guard f.count == 4, let start = Instant(parsing: f[2]), let end = Instant(parsing: f[3]) else {
            return .failure(.rejected("expected 'otid txid start end'"))
        }
        return .success(
            DocumentFacts(
                format: .v2Notification,
                transactions: [
                    TransactionFact(
                        transactionId: f[1], originalTransactionId: f[0], productId: "p", purchaseDate: start, expiresDate: end)
                ]))
    }

    func importer(_ db: AppDatabase, _ rejections: Lines, batchSize: Int) -> Importer {
        Importer(
            database: db, open: Self.open, decode: Self.decode, signaturesVerified: true, batchSize: batchSize,
            report: { rejections.append($0) })
    }

    func write(_ text: String, to dir: URL, _ name: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test(arguments: [1, 3, 1000])
    func batchesOfAnySizeGiveTheSameSummary(batchSize: Int) throws {
        let temporary = try TemporaryDirectory("import")
        defer { temporary.remove() }
        let dir = temporary.url
        _ = try write("s1 t1 2025-01-01 2025-02-01\nbad\ns1 t2 2025-02-01 2025-03-01\n", to: dir, "a/one.ndjson")
        _ = try write("s2 t3 2025-01-05 2025-02-05\ns1 t1 2025-01-01 2025-02-01\n", to: dir, "b.ndjson")
        _ = try write("not imported", to: dir, ".hidden")
        _ = try write("-----BEGIN CERTIFICATE-----", to: dir, "test-root.pem")
        let db = try AppDatabase.inMemory()
        let rejections = Lines()
        let summary = try importer(db, rejections, batchSize: batchSize).importPaths([dir.path])
        #expect(summary.files == 2)
        #expect(summary.documents == 5)
        #expect(summary.applied == 3)
        #expect(summary.duplicates == 1)
        #expect(summary.rejected == 1)
        #expect(summary.subscriptionsTouched == 2)
        #expect(rejections.all == ["\(dir.path)/a/one.ndjson:line 2: expected 'otid txid start end'"])
        #expect(
            summary.line.hasPrefix("5 documents read from 2 files: 3 applied, 1 duplicate, 1 rejected; 2 subscriptions touched; ")
        )
    }

    @Test func aLinkToADirectoryIsWalkedAsTheDirectory() throws {
        let temporary = try TemporaryDirectory("link")
        defer { temporary.remove() }
        let dir = temporary.url
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("data/v1"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: dir.appendingPathComponent("data/v1/notifications-0001.ndjson"))
        try Data("{}".utf8).write(to: dir.appendingPathComponent("data/v1/notifications-0002.ndjson"))
        let link = dir.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: dir.appendingPathComponent("data"))
        #expect(
            try Importer.expand([link.path]) == [
                "\(link.path)/v1/notifications-0001.ndjson", "\(link.path)/v1/notifications-0002.ndjson",
            ])
    }

    @Test func aMissingPathIsAnError() throws {
        let db = try AppDatabase.inMemory()
        #expect(throws: ImportError.rejected("/nonexistent/file.json: no such file or directory")) {
            try importer(db, Lines(), batchSize: 10).importPaths(["/nonexistent/file.json"])
        }
    }

    @Test func unverifiedImportsSayso() {
        var s = ImportSummary()
        s.signaturesVerified = false
        #expect(s.line.hasSuffix("(signatures NOT verified: --no-verify)"))
    }
}
