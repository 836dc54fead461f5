import AppStorePayloads
import CZstd
import Foundation
import GRDB
import SubscriberStore

/// The archive's compact layout (docs/architecture.md, "The archive's layout") on a generated
/// dataset's documents: stored bytes per document as received and in the layout, with zstd and
/// zlib, CPU to archive and read back, and whether a trained zstd dictionary would pay
/// (docs/performance.md, "The archive's compact layout").
struct ArchiveLayoutBench {
    static func measure(directory: String, limit: Int) throws -> String {
        guard ArchiveCodec.current.zstdAvailable else {
            return "zstd cannot be loaded here: \(ArchiveCodec.zstdUnavailableReason ?? "")\n"
        }
        let zstd = ArchiveCodec(zstdAvailable: true)
        let zlib = ArchiveCodec(zstdAvailable: false)
        var documents = 0
        var original = 0
        var asReceived = 0
        var compact = [0, 0]
        var compactCount = 0
        var chains: [Data: Int] = [:]
        var cpu = [0.0, 0.0, 0.0, 0.0]
        var layouts: [Data] = []
        let files = (FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? [])
            .filter { $0.contains(".ndjson") || $0.hasSuffix(".json") }.sorted()
        let reader = DocumentReader()
        outer: for file in files {
            for document in try reader.documents(atPath: directory + "/" + file) {
                guard documents < limit else { break outer }
                guard let body = document.bytes else { continue }
                documents += 1
                original += body.count
                var t0 = ArchiveCodecBench.threadCPU()
                let old = zstd.archiveAsReceived(body)
                var t1 = ArchiveCodecBench.threadCPU()
                _ = try zstd.restore(old, originalCount: body.count)
                cpu[0] += t1 - t0
                cpu[1] += ArchiveCodecBench.threadCPU() - t1
                asReceived += old.data.count
                t0 = ArchiveCodecBench.threadCPU()
                let new = zstd.archive(body)
                t1 = ArchiveCodecBench.threadCPU()
                let back = try zstd.restore(new, originalCount: body.count, chains: new.chains.map(\.text))
                cpu[2] += t1 - t0
                cpu[3] += ArchiveCodecBench.threadCPU() - t1
                guard back == body else { throw BenchError("document \(documents) does not come back exactly") }
                compact[0] += new.data.count
                compact[1] += zlib.archive(body).data.count
                if new.layout != nil {
                    compactCount += 1
                    for chain in new.chains { chains[chain.text, default: 0] += 1 }
                    if let packed = JWSLayout.pack(body) { layouts.append(packed.bytes) }
                }
            }
        }
        guard documents > 0 else { return "no documents under \(directory)\n" }
        let n = Double(documents)
        let chainBytes = chains.keys.reduce(0) { $0 + $1.count }
        func perDocument(_ bytes: Int) -> String { "\(bytes / documents)" }
        var md =
            "| archive | stored bytes per document | of the original | µs to archive | µs to read back |\n|---|---|---|---|---|\n"
        md +=
            "| as received, zstd level 1 (before) | \(perDocument(asReceived)) | \(percent(asReceived, original)) | "
            + "\(micro(cpu[0], n)) | \(micro(cpu[1], n)) |\n"
        md +=
            "| compact layout, zstd level 1 (after) | \(perDocument(compact[0])) | \(percent(compact[0], original)) | "
            + "\(micro(cpu[2], n)) | \(micro(cpu[3], n)) |\n"
        md +=
            "| compact layout, zlib level 1 (no libzstd) | \(perDocument(compact[1])) | \(percent(compact[1], original)) | | |\n"
        md +=
            "\n\(documents) documents, \(original / documents) bytes each on average, \(compactCount) in the compact layout; "
            + "\(chains.count) distinct certificate chain\(chains.count == 1 ? "" : "s") (\(chainBytes) bytes, stored once) "
            + "for \(chains.values.reduce(0, +)) references, from \(directory).\n"
        md += "\n" + dictionary(layouts)
        return md
    }

    /// A dictionary trained on the first fifth of the layouts (at most 5,000), measured on the rest:
    /// zstd level 1 with and without it.
    static func dictionary(_ layouts: [Data]) -> String {
        guard czstd_dictionaries_available() != 0 else {
            return "Trained dictionary: not measured (the loaded libzstd lacks the dictionary functions).\n"
        }
        let training = min(5_000, layouts.count / 5)
        guard training >= 100 else { return "Trained dictionary: too few documents in the compact layout to measure.\n" }
        var rows =
            "| dictionary | stored bytes per document (layout, zstd 1) | µs to compress | µs to read back |\n|---|---|---|---|\n"
        let rest = layouts[training...]
        let plain = rest.reduce(0) { $0 + (ArchiveCodecForBench.compress($1, cdict: nil)?.count ?? $1.count) }
        rows += "| none | \(plain / rest.count) | | |\n"
        for capacity in [16_384, 65_536, 112_640] {
            var samples = Data()
            var sizes: [Int] = []
            for layout in layouts[..<training] {
                samples.append(layout)
                sizes.append(layout.count)
            }
            var dictionary = Data(count: capacity)
            let trained = dictionary.withUnsafeMutableBytes { out in
                samples.withUnsafeBytes { s in
                    sizes.withUnsafeBufferPointer { z in
                        czstd_train_dictionary(out.baseAddress, capacity, s.baseAddress, z.baseAddress, UInt32(sizes.count))
                    }
                }
            }
            guard czstd_is_error(trained) == 0 else {
                rows += "| \(capacity / 1024) KB | training failed | | |\n"
                continue
            }
            dictionary.count = trained
            let (stored, compressCPU, readCPU) = ArchiveCodecForBench.withDictionary(dictionary, Array(rest))
            rows +=
                "| \(trained / 1024) KB, trained on \(training) | \(stored / rest.count) | \(micro(compressCPU, Double(rest.count))) | "
                + "\(micro(readCPU, Double(rest.count))) |\n"
        }
        return "Trained dictionary (one for the kind: all are v2 notifications), measured on the \(rest.count) layouts after "
            + "the \(training) it was trained on:\n\n" + rows
    }

    static func percent(_ a: Int, _ b: Int) -> String { String(format: "%.1f %%", 100 * Double(a) / Double(b)) }
    static func micro(_ seconds: Double, _ n: Double) -> String { String(format: "%.1f", seconds / n * 1e6) }

    /// A store's archive and file per document, and the time to read every archived document back
    /// and decode its facts (what re-deriving from the archive reads), best of `runs`. Reads the
    /// rows with SQL and restores them with `ArchiveCodec.restore`, so a store from before
    /// migration v30 is measured as it is (opening it with `AppDatabase` would convert it).
    static func store(path: String, runs: Int) throws -> String {
        var config = Configuration()
        config.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: config)
        let (documents, bodies, chainBytes, pages, free, pageSize, hasLayout) = try queue.read { db in
            let hasLayout = try db.columns(in: "document").contains { $0.name == "bodyLayout" }
            return (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document")!,
                try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(length(body)), 0) FROM document")!,
                try db.tableExists("archiveChain")
                    ? Int.fetchOne(db, sql: "SELECT COALESCE(SUM(length(chain)), 0) FROM archiveChain")! : 0,
                try Int.fetchOne(db, sql: "PRAGMA page_count")!, try Int.fetchOne(db, sql: "PRAGMA freelist_count")!,
                try Int.fetchOne(db, sql: "PRAGMA page_size")!, hasLayout
            )
        }
        guard documents > 0 else { return "no documents in \(path)\n" }
        let decoder = PayloadDecoder(verifier: UnverifiedJWS())
        var best = Double.infinity
        var restoreBest = Double.infinity
        for _ in 0..<runs {
            var restoring = 0.0
            let started = Date()
            try queue.read { db in
                var chains: [Int64: Data] = [:]
                let rows = try Row.fetchCursor(
                    db,
                    sql:
                        "SELECT body, bodyEncoding, byteCount, \(hasLayout ? "bodyLayout, bodyChains" : "NULL, NULL") FROM document"
                )
                while let row = try rows.next() {
                    guard let body = row[0] as Data? else { continue }
                    let t0 = Date()
                    var texts: [Data] = []
                    for id in (row[4] as String? ?? "").split(separator: " ").compactMap({ Int64($0) }) {
                        if chains[id] == nil {
                            chains[id] = try Data.fetchOne(
                                db, sql: "SELECT chain FROM archiveChain WHERE id = ?", arguments: [id])
                        }
                        texts.append(chains[id] ?? Data())
                    }
                    let bytes = try ArchiveCodec.current.restore(
                        ArchivedBody(data: body, encoding: row[1], layout: row[3]), originalCount: row[2], chains: texts)
                    restoring += Date().timeIntervalSince(t0)
                    _ = try? decoder.decode(bytes)
                }
            }
            best = min(best, Date().timeIntervalSince(started))
            restoreBest = min(restoreBest, restoring)
        }
        let file = pages * pageSize
        var md = "| store | documents | archive bytes per document | store bytes per document | free pages | "
        md += "s to read and decode every document | of it restoring |\n|---|---|---|---|---|---|---|\n"
        md += "| \(path) | \(documents) | \((bodies + chainBytes) / documents) | \(file / documents) | \(free) | "
        md += String(format: "%.2f | %.2f |\n", best, restoreBest)
        return md
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// zstd level 1 with a dictionary, through the shim, for the measurement only.
enum ArchiveCodecForBench {
    static func compress(_ input: Data, cdict: UnsafeMutableRawPointer?) -> Data? {
        let context = czstd_create_cctx()
        defer { czstd_free_cctx(context) }
        let bound = czstd_compress_bound(input.count)
        var output = Data(count: bound)
        let written = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { source in
                cdict.map { czstd_compress_cdict(context, out.baseAddress, bound, source.baseAddress, input.count, $0) }
                    ?? czstd_compress_cctx(context, out.baseAddress, bound, source.baseAddress, input.count, 1)
            }
        }
        guard czstd_is_error(written) == 0 else { return nil }
        output.count = written
        return output
    }

    /// Stored bytes of `layouts` compressed with `dictionary`, and the CPU seconds to compress and
    /// to read them back (each read checked).
    static func withDictionary(_ dictionary: Data, _ layouts: [Data]) -> (Int, Double, Double) {
        let cdict = dictionary.withUnsafeBytes { czstd_create_cdict($0.baseAddress, dictionary.count, 1) }
        let ddict = dictionary.withUnsafeBytes { czstd_create_ddict($0.baseAddress, dictionary.count) }
        let cctx = czstd_create_cctx()
        let dctx = czstd_create_dctx()
        defer {
            czstd_free_cdict(cdict)
            czstd_free_ddict(ddict)
            czstd_free_cctx(cctx)
            czstd_free_dctx(dctx)
        }
        var stored = 0
        var compressCPU = 0.0
        var readCPU = 0.0
        for layout in layouts {
            let bound = czstd_compress_bound(layout.count)
            var output = Data(count: bound)
            let t0 = ArchiveCodecBench.threadCPU()
            let written = output.withUnsafeMutableBytes { out in
                layout.withUnsafeBytes { czstd_compress_cdict(cctx, out.baseAddress, bound, $0.baseAddress, layout.count, cdict) }
            }
            let t1 = ArchiveCodecBench.threadCPU()
            guard czstd_is_error(written) == 0 else { continue }
            output.count = written
            var back = Data(count: layout.count)
            let read = back.withUnsafeMutableBytes { out in
                output.withUnsafeBytes {
                    czstd_decompress_ddict(dctx, out.baseAddress, layout.count, $0.baseAddress, written, ddict)
                }
            }
            readCPU += ArchiveCodecBench.threadCPU() - t1
            compressCPU += t1 - t0
            precondition(czstd_is_error(read) == 0 && back == layout, "a dictionary-compressed layout did not come back")
            stored += written
        }
        return (stored, compressCPU, readCPU)
    }
}
