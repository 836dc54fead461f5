import AppStorePayloads
import Foundation
import SubscriberStore

/// The archive's two codecs on the documents of a generated dataset: CPU time per document to
/// compress (the import's cost) and stored bytes per document. Thread CPU time, both codecs on the
/// same document one after the other, so load from other processes weighs on both alike.
struct ArchiveCodecBench {
    struct Figures {
        var documents = 0
        var original = 0
        var stored = [0, 0]
        var cpu = [0.0, 0.0]
        var decode = [0.0, 0.0]
    }

    static func threadCPU() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func measure(directory: String, limit: Int) throws -> String {
        let codecs = [ArchiveCodec(zstdAvailable: true), ArchiveCodec(zstdAvailable: false)]
        guard ArchiveCodec.current.zstdAvailable else {
            return "zstd cannot be loaded here: \(ArchiveCodec.zstdUnavailableReason ?? "")\n"
        }
        var f = Figures()
        let files = (FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? [])
            .filter { $0.contains(".ndjson") || $0.hasSuffix(".json") }.sorted()
        let reader = DocumentReader()
        outer: for file in files {
            for document in try reader.documents(atPath: directory + "/" + file) {
                guard f.documents < limit else { break outer }
                guard let body = document.bytes else { continue }
                f.documents += 1
                f.original += body.count
                for (i, codec) in codecs.enumerated() {
                    let t0 = threadCPU()
                    let stored = codec.archiveAsReceived(body)
                    let t1 = threadCPU()
                    _ = try codec.restore(stored, originalCount: body.count)
                    f.cpu[i] += t1 - t0
                    f.decode[i] += threadCPU() - t1
                    f.stored[i] += stored.data.count
                }
            }
        }
        guard f.documents > 0 else { return "no documents under \(directory)\n" }
        let n = Double(f.documents)
        var md =
            "| codec | µs per document to compress | µs to read back | stored bytes per document | of the original |\n|---|---|---|---|---|\n"
        for (i, name) in ["zstd (level 1)", "zlib (level 1)"].enumerated() {
            md +=
                "| \(name) | \(String(format: "%.1f", f.cpu[i] / n * 1e6)) | \(String(format: "%.1f", f.decode[i] / n * 1e6)) | "
            md +=
                "\(f.stored[i] / f.documents) | \(String(format: "%.1f %%", 100 * Double(f.stored[i]) / Double(f.original))) |\n"
        }
        md += "\n\(f.documents) documents, \(f.original / f.documents) bytes each on average, from \(directory).\n"
        return md
    }
}
