import Foundation
import GRDB
import Testing
@testable import SubscriberStore
import SubscriptionModel

@Suite struct ArchiveTests {
    /// A v1-like body: verbose, repetitive JSON, as the App Store sends.
    static let verbose = Data(("{\"latest_receipt_info\":[" + (0..<40).map { i in
        "{\"transaction_id\":\"20000000000\(1000 + i)\",\"purchase_date\":\"2025-06-14 04:01:07 Etc/GMT\",\"product_id\":\"com.example.pro.monthly\"}"
    }.joined(separator: ",") + "]}").utf8)

    func document(_ body: Data, sha: String) -> IncomingDocument {
        IncomingDocument(sha256: sha, source: "test.json", byteCount: body.count, body: body,
                         content: .rejected(reason: "not a payload"))
    }

    @Test func verboseBodiesAreCompressedAndComeBackExactly() throws {
        let db = try AppDatabase.inMemory()
        try db.apply([document(Self.verbose, sha: "a")])
        let stored = try db.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT length(body) AS stored, bodyEncoding FROM document WHERE sha256 = 'a'")!
        }
        #expect(stored["bodyEncoding"] == "zstd")
        #expect((stored["stored"] as Int) * 4 < Self.verbose.count, "stored \(stored["stored"] as Int) of \(Self.verbose.count) bytes")
        #expect(try db.archivedBody(sha256: "a") == Self.verbose)
    }

    @Test func shortOrIncompressibleBodiesAreStoredAsTheyCame() throws {
        let db = try AppDatabase.inMemory()
        let short = Data("{\"a\":1}".utf8)
        var generator = SystemRandomNumberGenerator()
        let noise = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try db.apply([document(short, sha: "s"), document(noise, sha: "n")])
        let encodings = try db.writer.read { db in
            try String?.fetchAll(db, sql: "SELECT bodyEncoding FROM document ORDER BY sha256")
        }
        #expect(encodings == [nil, nil])
        #expect(try db.archivedBody(sha256: "s") == short)
        #expect(try db.archivedBody(sha256: "n") == noise)
        #expect(try db.archivedBody(sha256: "unknown") == nil)
    }
}
