import Foundation
import GRDB
import SubscriptionModel
import TestSupport
import Testing

@testable import SubscriberStore

@Suite struct ArchiveTests {
    /// A v1-like body: verbose, repetitive JSON, as the App Store sends.
    static let verbose = Data(
        ("{\"latest_receipt_info\":["
            + (0..<40).map { i in
                "{\"transaction_id\":\"20000000000\(1000 + i)\",\"purchase_date\":\"2025-06-14 04:01:07 Etc/GMT\",\"product_id\":\"com.example.pro.monthly\"}"
            }.joined(separator: ",") + "]}").utf8)

    func document(_ body: Data, sha: String) -> IncomingDocument {
        IncomingDocument(
            sha256: sha, source: "test.json", byteCount: body.count, body: body,
            content: .rejected(reason: "not a payload"))
    }

    @Test func verboseBodiesAreCompressedAndComeBackExactly() throws {
        let db = try AppDatabase.inMemory()
        try db.apply([document(Self.verbose, sha: "a")])
        let stored = try db.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT length(body) AS stored, bodyEncoding FROM document WHERE sha256 = 'a'")!
        }
        #expect(stored["bodyEncoding"] == "zstd")
        #expect(
            (stored["stored"] as Int) * 4 < Self.verbose.count, "stored \(stored["stored"] as Int) of \(Self.verbose.count) bytes"
        )
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

/// The archive without zstd's library (issue: the build needs no zstd headers): new bodies go to
/// zlib, zstd bodies read back wherever the library loads, and elsewhere fail with a message that
/// names the package, changing nothing.
@Suite struct ArchiveCodecFallbackTests {
    /// The process's codec, so the library is loaded before it is used: a codec merely told that
    /// zstd is there would call through function pointers nothing has set yet.
    let withZstd = ArchiveCodec.current
    let withoutZstd = ArchiveCodec(zstdAvailable: false)

    @Test func theLibraryLoadsOnThisMachine() {
        // libzstd.so.1 is part of the base system here (dpkg depends on it); the build has no headers.
        #expect(ArchiveCodec.current.zstdAvailable, "\(ArchiveCodec.zstdUnavailableReason ?? "")")
    }

    @Test func withoutTheLibraryNewBodiesGoToZlibAndComeBackExactly() throws {
        let stored = withoutZstd.archive(ArchiveTests.verbose)
        #expect(stored.encoding == "zlib")
        #expect(stored.data.count * 4 < ArchiveTests.verbose.count)
        #expect(try withoutZstd.restore(stored, originalCount: ArchiveTests.verbose.count) == ArchiveTests.verbose)
        #expect(try withZstd.restore(stored, originalCount: ArchiveTests.verbose.count) == ArchiveTests.verbose)
    }

    @Test func aZstdBodyWithoutTheLibraryFailsWithTheFix() throws {
        let stored = withZstd.archive(ArchiveTests.verbose)
        #expect(stored.encoding == "zstd")
        #expect(try withZstd.restore(stored, originalCount: ArchiveTests.verbose.count) == ArchiveTests.verbose)
        let error = #expect(throws: StoreError.self) {
            try withoutZstd.restore(stored, originalCount: ArchiveTests.verbose.count)
        }
        #expect(error?.description.contains("apt-get install libzstd1") == true)
        #expect(error?.description.contains("Nothing in the store was changed") == true)
    }

    /// A body compressed with a trained dictionary names the same fix when zstd (or its
    /// dictionary functions) cannot be loaded.
    @Test func aDictionaryBodyWithoutTheLibraryFailsWithTheFix() throws {
        let queue = try DatabaseQueue()
        let error = #expect(throws: StoreError.self) {
            try queue.read { db in try ArchiveDictionaries(available: false).decompressor(1, db) }
        }
        #expect(error?.description.contains("apt-get install libzstd1") == true)
        #expect(error?.description.contains("Nothing in the store was changed") == true)
    }

    @Test func damagedBodiesAreNamedAsSuch() {
        let stored = ArchivedBody(data: Data([1, 2, 3, 4]), encoding: "zlib")
        let error = #expect(throws: StoreError.self) { try withoutZstd.restore(stored, originalCount: 40) }
        #expect(error?.description.contains("damaged") == true)
    }
}

/// The build links nothing outside ncursesw, SQLite and zlib, and no source includes zstd.h.
@Suite struct BuildDependencyTests {
    static let root = packageRoot

    @Test func packageLinksOnlyTheBaseLibraries() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let linked = manifest.matches(of: /linkedLibrary\("([^"]+)"\)/).map { String($0.1) }
        #expect(!linked.isEmpty)
        #expect(Set(linked).isSubset(of: ["ncursesw", "sqlite3", "z"]), "links \(linked)")
    }

    @Test func noSourceIncludesZstdHeaders() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
            .compactMap { $0 as? URL }.filter { ["c", "h", "swift"].contains($0.pathExtension) }
        #expect(files.count > 50)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(!text.contains("<zstd.h>") && !text.contains("\"zstd.h\""), "\(file.path) includes zstd.h")
        }
    }
}
