import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Cuts a file's bytes into documents (docs/architecture.md, "From a file to a figure on screen"):
/// one JSON document (pretty-printed or not), a JSON array of documents (`index N`), NDJSON (`line
/// N`, blank lines skipped), bare compact JWS lines, or a customers CSV (`line N`, one document per
/// row). gzip'd input (`.gz`, or any file starting with the gzip magic bytes) is decompressed on
/// the fly.
///
/// A document over `sizeLimit` is rejected on its own, without its bytes ever being held; a
/// line that is not JSON is left for the decoder to reject, so only that line fails.
public struct DocumentReader: Sendable {
    public static let defaultSizeLimit = 16 << 20

    public var sizeLimit: Int

    public init(sizeLimit: Int = DocumentReader.defaultSizeLimit) { self.sizeLimit = sizeLimit }

    /// The documents of bytes already in memory. `name` (a file name) only serves as a hint:
    /// `.csv` or `.csv.gz` means a customers CSV.
    public func documents(in data: Data, name: String = "") -> [SourceDocument] {
        Array(DocumentStream(source: MemoryChunks(data), name: name, sizeLimit: sizeLimit))
    }

    /// Streams the documents of a file, reading it a chunk at a time.
    public func documents(atPath path: String) throws(PayloadError) -> DocumentStream {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw PayloadError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        return DocumentStream(source: FileChunks(descriptor: descriptor, closesDescriptor: true),
                              name: path, sizeLimit: sizeLimit)
    }

    /// Streams the documents of an open descriptor (`0` for stdin); the descriptor stays open.
    public func documents(fileDescriptor: Int32, name: String = "stdin") -> DocumentStream {
        DocumentStream(source: FileChunks(descriptor: fileDescriptor, closesDescriptor: false),
                       name: name, sizeLimit: sizeLimit)
    }

    /// "document is 52428800 bytes, over the 16 MiB limit".
    static func overLimit(_ count: Int, limit: Int) -> PayloadError {
        let shown = limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit) bytes"
        return PayloadError("document is \(count) bytes, over the \(shown) limit")
    }
}

/// The documents of one file, in order. Reading is lazy: a document is cut out when asked for.
public final class DocumentStream: Sequence, IteratorProtocol {
    private var source: any ByteChunks
    private let name: String
    private let sizeLimit: Int

    private var buffer: [UInt8] = []
    private var start = 0
    private var scanned = 0
    private var sourceEnded = false
    private var sourceError: PayloadError?
    private var lineNumber = 0

    private enum Mode {
        case undecided
        case lines
        case csv(header: [UInt8])
        case queued([SourceDocument])
        case finished
    }
    private var mode = Mode.undecided

    init(source: any ByteChunks, name: String, sizeLimit: Int) {
        self.source = source
        self.name = name
        self.sizeLimit = sizeLimit
    }

    public func makeIterator() -> DocumentStream { self }

    public func next() -> SourceDocument? {
        while true {
            switch mode {
            case .undecided:
                decideMode()
            case .lines:
                guard let line = nextLine() else { return finish() }
                switch line {
                case .text(let bytes):
                    guard let trimmed = trim(bytes) else { continue }
                    if let tooLong = overLimit(trimmed) { return tooLong }
                    return SourceDocument(location: "line \(lineNumber)", bytes: Data(trimmed))
                case .tooLong(let count):
                    return SourceDocument(location: "line \(lineNumber)", bytes: nil, byteCount: count,
                                          rejection: DocumentReader.overLimit(count, limit: sizeLimit))
                }
            case .csv(let header):
                guard let line = nextLine() else { return finish() }
                switch line {
                case .text(let bytes):
                    guard let trimmed = trim(bytes) else { continue }
                    if let tooLong = overLimit(trimmed) { return tooLong }
                    return SourceDocument(location: "line \(lineNumber)", bytes: Data(header + [0x0A] + trimmed))
                case .tooLong(let count):
                    return SourceDocument(location: "line \(lineNumber)", bytes: nil, byteCount: count,
                                          rejection: DocumentReader.overLimit(count, limit: sizeLimit))
                }
            case .queued(var documents):
                guard !documents.isEmpty else { return finish() }
                let document = documents.removeFirst()
                mode = .queued(documents)
                return document
            case .finished:
                return nil
            }
        }
    }

    private func overLimit(_ line: ArraySlice<UInt8>) -> SourceDocument? {
        guard line.count > sizeLimit else { return nil }
        return SourceDocument(location: "line \(lineNumber)", bytes: nil, byteCount: line.count,
                              rejection: DocumentReader.overLimit(line.count, limit: sizeLimit))
    }

    /// Ends the stream, reporting a read error (I/O, corrupt or truncated gzip) once.
    private func finish() -> SourceDocument? {
        mode = .finished
        guard let error = sourceError else { return nil }
        sourceError = nil
        return SourceDocument(location: lineNumber > 0 ? "line \(lineNumber + 1)" : nil, bytes: nil, rejection: error)
    }

    // MARK: - Deciding the shape of the file

    private func decideMode() {
        // Look at the first line that holds something (without consuming it).
        var firstByte: Int?
        var lineEnd: Int?
        while true {
            firstByte = nil
            lineEnd = nil
            do {
                var i = start
                if i == 0, buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { start = 3; i = 3 }
                while i < buffer.count, JSONScanner.isWhitespace(buffer[i]) { i += 1 }
                if i < buffer.count { firstByte = i }
            }
            if let first = firstByte {
                if let newline = buffer[first...].firstIndex(of: 0x0A) { lineEnd = newline; break }
                if buffer.count - first > sizeLimit { break }
            }
            if sourceEnded { break }
            fill()
        }
        guard let first = firstByte else { mode = .finished; return }
        let end = lineEnd ?? buffer.count
        let isCSVName = name.hasSuffix(".csv") || name.hasSuffix(".csv.gz")

        switch buffer[first] {
        case UInt8(ascii: "[") where !isCSVName:
            readToEnd(limit: nil)
            mode = .queued(splitArray(from: first))
        case UInt8(ascii: "{") where !isCSVName:
            let outcome = buffer.withUnsafeBufferPointer { all in
                JSONScanner.scanValue(UnsafeBufferPointer(rebasing: all[..<end]), from: first)
            }
            if outcome == .incomplete && lineEnd != nil {
                wholeDocument(from: first)
            } else {
                mode = .lines
            }
        default:
            let line = Substring(String(decoding: buffer[first..<end], as: UTF8.self))
            if CustomersCSV.header(line) != nil {
                let header = trim(buffer[first..<end]).map(Array.init) ?? []
                skipThroughFirstLine()
                mode = .csv(header: header)
            } else if isCSVName {
                skipThroughFirstLine()
                mode = .queued([SourceDocument(location: "line \(lineNumber)", bytes: nil,
                                               rejection: PayloadError(CustomersCSV.headerProblem(line)))])
            } else {
                mode = .lines
            }
        }
    }

    /// Consumes the blank lines before the first line that holds something, and that line.
    private func skipThroughFirstLine() {
        while let line = nextLine() {
            if case .text(let bytes) = line, trim(bytes) == nil { continue }
            return
        }
    }

    /// A pretty-printed document: the whole file is one document.
    private func wholeDocument(from first: Int) {
        let total = readToEnd(limit: sizeLimit)
        guard total <= sizeLimit, let bytes = trim(buffer[first...]) else {
            mode = .queued([SourceDocument(location: nil, bytes: nil, byteCount: total,
                                           rejection: DocumentReader.overLimit(total, limit: sizeLimit))])
            return
        }
        var documents = [SourceDocument(location: nil, bytes: Data(bytes))]
        if let error = sourceError {
            documents[0] = SourceDocument(location: nil, bytes: Data(bytes), rejection: error)
            sourceError = nil
        }
        mode = .queued(documents)
    }

    /// Cuts a JSON array into its elements, `index 0` first.
    private func splitArray(from open: Int) -> [SourceDocument] {
        var documents: [SourceDocument] = []
        let limit = sizeLimit
        let readError = sourceError
        sourceError = nil
        buffer.withUnsafeBufferPointer { all in
            let n = all.count
            var i = open + 1
            var index = 0
            func skipWhitespace() { while i < n, JSONScanner.isWhitespace(all[i]) { i += 1 } }
            func reject(_ reason: String) {
                documents.append(SourceDocument(location: "index \(index)", bytes: nil, rejection: readError ?? PayloadError(reason)))
            }
            skipWhitespace()
            if i < n, all[i] == UInt8(ascii: "]") { i += 1; return }
            while true {
                skipWhitespace()
                guard i < n else { return reject("truncated file: it ends inside the JSON array, before element \(index)") }
                switch JSONScanner.scanValue(all, from: i) {
                case .complete(let end):
                    let count = end - i
                    if count > limit {
                        documents.append(SourceDocument(location: "index \(index)", bytes: nil, byteCount: count,
                                                        rejection: DocumentReader.overLimit(count, limit: limit)))
                    } else {
                        documents.append(SourceDocument(location: "index \(index)", bytes: Data(all[i..<end])))
                    }
                    i = end
                case .incomplete:
                    return reject("truncated file: it ends inside this element of the JSON array")
                case .invalid(let at):
                    return reject("invalid JSON at byte \(at) of the file: expected an array element")
                }
                index += 1
                skipWhitespace()
                guard i < n else { return reject("truncated file: it ends before the JSON array's closing ']'") }
                if all[i] == UInt8(ascii: ",") { i += 1; continue }
                if all[i] == UInt8(ascii: "]") {
                    i += 1
                    skipWhitespace()
                    if i < n { reject("invalid JSON at byte \(i) of the file: content after the JSON array's closing ']'") }
                    return
                }
                return reject("invalid JSON at byte \(i) of the file: expected ',' or ']' after an array element")
            }
        }
        if let readError, documents.last?.rejection != readError {
            documents.append(SourceDocument(location: nil, bytes: nil, rejection: readError))
        }
        return documents
    }

    // MARK: - Lines

    private enum Line {
        case text(ArraySlice<UInt8>)
        case tooLong(Int)
    }

    /// The next line (without its newline), or nil at the end. A line over the limit is
    /// counted while its bytes are dropped.
    private func nextLine() -> Line? {
        while true {
            if let newline = buffer[Swift.max(scanned, start)...].firstIndex(of: 0x0A) {
                let line = buffer[start..<newline]
                start = newline + 1
                scanned = start
                lineNumber += 1
                return .text(line)
            }
            scanned = buffer.count
            if buffer.count - start > sizeLimit {
                lineNumber += 1
                return .tooLong(skipRestOfLine(counted: buffer.count - start))
            }
            if sourceEnded {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                scanned = start
                lineNumber += 1
                return .text(line)
            }
            fill()
        }
    }

    private func skipRestOfLine(counted: Int) -> Int {
        var count = counted
        buffer.removeAll(keepingCapacity: false)
        start = 0
        scanned = 0
        while let chunk = readChunk() {
            if let newline = chunk.firstIndex(of: 0x0A) {
                count += newline
                buffer = Array(chunk[(newline + 1)...])
                return count
            }
            count += chunk.count
        }
        return count
    }

    // MARK: - Reading

    private func readChunk() -> [UInt8]? {
        guard !sourceEnded else { return nil }
        do {
            if let chunk = try source.next() {
                if !decidedCompression {
                    decidedCompression = true
                    if GzipChunks.isGzip(chunk) {
                        source = try GzipChunks(source: source, first: chunk)
                        return readChunk()
                    }
                }
                return chunk
            }
        } catch {
            sourceError = error
        }
        sourceEnded = true
        return nil
    }
    private var decidedCompression = false

    private func fill() {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(..<start)
            scanned -= start
            start = 0
        }
        if let chunk = readChunk() { buffer += chunk }
    }

    /// Reads the rest of the source into the buffer and returns the size from `start`. Past
    /// `limit`, the bytes are counted and dropped.
    @discardableResult
    private func readToEnd(limit: Int?) -> Int {
        while !sourceEnded {
            if let limit, buffer.count - start > limit {
                var count = buffer.count - start
                buffer.removeAll()
                start = 0
                while let chunk = readChunk() { count += chunk.count }
                return count
            }
            fill()
        }
        return buffer.count - start
    }

    private func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard let first = bytes.firstIndex(where: { !JSONScanner.isWhitespace($0) }),
              let last = bytes.lastIndex(where: { !JSONScanner.isWhitespace($0) }) else { return nil }
        return bytes[first...last]
    }
}
