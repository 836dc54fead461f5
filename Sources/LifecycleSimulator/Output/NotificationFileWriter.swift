import Foundation

/// Writes one format's NDJSON stream as `notifications-0001.ndjson[.gz]`, `…-0002…`, starting a
/// new file when the current one would pass `maxFileBytes` (a file always takes at least one
/// chunk, so it can only overshoot by less than one chunk).
final class NotificationFileWriter {
    private let directory: URL
    private let gzip: Bool
    private let maxFileBytes: Int
    private var handle: FileHandle?
    private var fileBytes = 0
    private var crc: UInt = 0
    private var rawLength = 0
    private(set) var fileNames: [String] = []

    init(directory: URL, gzip: Bool, maxFileBytes: Int) {
        self.directory = directory
        self.gzip = gzip
        self.maxFileBytes = maxFileBytes
    }

    /// Appends a chunk: its raw lines, or their deflated segment when gzip'd.
    func append(raw: [UInt8], segment: GzipSegment?) throws {
        guard !raw.isEmpty else { return }
        let size = segment?.deflated.count ?? raw.count
        if handle != nil, fileBytes + size > maxFileBytes { try closeFile() }
        if handle == nil { try openFile() }
        if let segment {
            try write(segment.deflated)
            crc = GzipSegment.combine(crc, segment)
            rawLength += segment.length
        } else {
            try write(raw)
        }
    }

    func finish() throws { try closeFile() }

    private func openFile() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let name = String(format: "notifications-%04d.ndjson", fileNames.count + 1) + (gzip ? ".gz" : "")
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        handle = try FileHandle(forWritingTo: url)
        fileNames.append(name)
        fileBytes = 0
        crc = 0
        rawLength = 0
        if gzip { try write(GzipSegment.header) }
    }

    private func closeFile() throws {
        guard let handle else { return }
        if gzip {
            try write(GzipSegment.finalBlock)
            try write(GzipSegment.trailer(crc: crc, length: rawLength))
        }
        try handle.close()
        self.handle = nil
    }

    private func write(_ bytes: [UInt8]) throws {
        try handle?.write(contentsOf: bytes)
        fileBytes += bytes.count
    }
}
